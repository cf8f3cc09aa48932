package file_test

import (
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/source/sourcetest"
)

func TestContract(t *testing.T) {
	sourcetest.Run(t, func(t *testing.T) sourcetest.Fixture {
		ws := sourcetest.Workspace(t, "file-SECRET-1")
		src, err := file.New(file.Options{Root: ws.Root})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { src.Close() })
		return sourcetest.Fixture{
			Source: src, Targets: []string{"README.md", "docs/a.md:2-3"},
			Missing: "docs/missing.md", MissingCode: retrieve.CodePathNotFound,
			Secret: "file-SECRET-1", SecretTargets: []string{".env", ".env:1", "docs/../.env"},
		}
	})
}
