package memory

import (
	"context"
	"io"
	"os"
	"path/filepath"
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

// FuzzFetch: any memory: reference gets a typed error or a note inside the
// workspace, never INTERNAL and never a file outside it.
func FuzzFetch(f *testing.F) {
	w := testws.New(f)
	out := f.TempDir()
	if err := os.WriteFile(filepath.Join(out, "secret.md"), []byte("SENTINEL-OUTSIDE\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	w.Write("memory/semantic/a.md", "# A\n")
	w.Write(".env", "SENTINEL-ENV\n")
	if err := os.Symlink(filepath.Join(out, "secret.md"), filepath.Join(w.Root, "memory", "semantic", "evil.md")); err != nil {
		f.Fatal(err)
	}
	if err := os.Symlink("../../.env", filepath.Join(w.Root, "memory", "semantic", "env.md")); err != nil {
		f.Fatal(err)
	}
	s, err := New(Options{Root: w.Root})
	if err != nil {
		f.Fatal(err)
	}
	for _, t := range []string{"memory:semantic/a.md", "memory:semantic/evil.md", "memory:semantic/env.md", "memory:../../.env", "memory:semantic/a\x00.md", "memory:semantic/" + strings.Repeat("a", 300) + ".md", "memory:SEMANTIC/A.md", "memory:semantic//a.md"} {
		f.Add(t)
	}
	f.Fuzz(func(t *testing.T, target string) {
		doc, err := s.Fetch(context.Background(), &retrieve.Request{Target: target})
		if err != nil {
			if c := retrieve.ErrorCode(err); c == retrieve.CodeInternal || c == "" {
				t.Fatalf("Fetch(%q): untyped error %v", target, err)
			}
			return
		}
		b, _ := io.ReadAll(doc.Body)
		doc.Body.Close()
		if strings.Contains(string(b), "SENTINEL") {
			t.Fatalf("Fetch(%q) read a file it must not: %q", target, b)
		}
	})
}
