package memory_test

import (
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/source/memory"
	"github.com/retrieve-dev/retrieve/source/sourcetest"
	"github.com/retrieve-dev/retrieve/workspace"
)

func TestContract(t *testing.T) {
	sourcetest.Run(t, func(t *testing.T) sourcetest.Fixture {
		ws := testws.New(t)
		ws.Write("memory/procedural/release.md", "---\nmemory_entry_id: proc-20260416-001\ntitle: \"Release\"\nmemory_type: procedural\n---\n\n1. Tag.\n2. Push.\n")
		ws.Write("memory/semantic/secret.md", "# Secret\n\nmemory-SECRET-1\n")
		fs, err := workspace.Open(ws.Root, []string{"**/secret.md"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { fs.Close() })
		src, err := memory.New(memory.Options{FS: fs})
		if err != nil {
			t.Fatal(err)
		}
		return sourcetest.Fixture{
			Source:  src,
			Targets: []string{"memory:procedural/release.md", "memory:procedural/release.md:7-8"},
			Missing: "memory:procedural/missing.md", MissingCode: retrieve.CodePathNotFound,
			Secret: "memory-SECRET-1", SecretTargets: []string{"memory:semantic/secret.md", "memory:semantic/secret.md:3"},
		}
	})
}
