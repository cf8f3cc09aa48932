package memory

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/workspace"
)

func TestFetch(t *testing.T) {
	w := testws.New(t)
	note := "---\nmemory_entry_id: proc-20260416-001\ntitle: \"Release\"\nmemory_type: procedural\ntags: [\"release\"]\n---\n\n1. Tag.\n"
	w.Write("x-ipe-docs/memory/procedural/release.md", note)
	w.Write("x-ipe-docs/memory/semantic/secret.md", "# Secret\n")
	ws, err := workspace.Open(w.Root, []string{"**/secret.md"})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s, err := New(Options{FS: ws})
	if err != nil {
		t.Fatal(err)
	}
	reg := retrieve.NewRegistry(s)
	if got, err := reg.Resolve(&retrieve.Request{Target: "memory:procedural/release.md"}); err != nil || got != s {
		t.Fatalf("Resolve(memory:…) = %v, %v; want the memory source", got, err)
	}
	if scheme, _ := reg.SchemeOf("procedural/release.md"); scheme != "" {
		t.Fatalf("a path without memory: has scheme %q", scheme)
	}
	ctx := context.Background()
	doc, err := s.Fetch(ctx, &retrieve.Request{Target: "memory:procedural/release.md"})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(doc.Body)
	if string(body) != note || doc.Locator != "memory:procedural/release.md" || doc.Authority != retrieve.AuthorityMedium ||
		!strings.HasPrefix(*doc.Version, "sha256:") || doc.Metadata["memory_entry_id"] != "proc-20260416-001" ||
		doc.Metadata["path"] != "x-ipe-docs/memory/procedural/release.md" {
		t.Fatalf("%+v", doc)
	}
	for target, code := range map[string]retrieve.Code{
		"memory:procedural/missing.md":   retrieve.CodePathNotFound,
		"memory:../../etc/passwd":        retrieve.CodeInvalidPath,
		"memory:working/x.md":            retrieve.CodeInvalidPath,
		"memory:semantic/secret.md":      retrieve.CodeSensitivePath,
		"memory:procedural/release.txt":  retrieve.CodeInvalidPath,
		"memory:procedural/../../a/b.md": retrieve.CodeInvalidPath,
	} {
		if _, err := s.Fetch(ctx, &retrieve.Request{Target: target}); retrieve.ErrorCode(err) != code {
			t.Errorf("%s: got %v, want %s", target, err, code)
		}
	}
}
