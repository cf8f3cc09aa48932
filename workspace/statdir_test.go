package workspace_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/workspace"
)

// TestLstatDir: the entries kept are lstat'ed (links not followed), the
// ones the deny list refuses are left out unless the caller says it
// checked them, and the listing of a denied folder is refused.
func TestLstatDir(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "notes")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"a.md": "alpha", "b.md": "bravo!", "id_rsa": "key", "skip.txt": "x"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(filepath.Join(dir, "a.md"), old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	list := func(checked bool) map[string]workspace.DirStat {
		t.Helper()
		ents, err := ws.LstatDir("notes", func(name string) (bool, bool) { return name != "skip.txt", checked })
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]workspace.DirStat{}
		for _, e := range ents {
			out[e.Name] = e
		}
		return out
	}
	got := list(false)
	names := make([]string, 0, len(got))
	for n := range got {
		names = append(names, n)
	}
	sort.Strings(names)
	if want := []string{"a.md", "b.md", "link.md", "sub"}; len(names) != len(want) || names[0] != want[0] || names[1] != want[1] || names[2] != want[2] || names[3] != want[3] {
		t.Fatalf("entries %v, want %v (id_rsa is denied, skip.txt not wanted)", names, want)
	}
	if a := got["a.md"]; a.Mode != 0 || a.Size != 5 || a.ModTime != old.UnixNano() || a.ChangeTime < a.ModTime {
		t.Fatalf("a.md: %+v", a)
	}
	if got["b.md"].Size != 6 || got["link.md"].Mode != fs.ModeSymlink || got["sub"].Mode != fs.ModeDir {
		t.Fatalf("types and sizes: %+v", got)
	}
	if _, ok := list(true)["id_rsa"]; !ok {
		t.Fatal("an entry the caller checked itself is left out")
	}
	if err := os.MkdirAll(filepath.Join(root, ".ssh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.LstatDir(".ssh", func(string) (bool, bool) { return true, true }); err == nil {
		t.Fatal("a denied folder was listed")
	}
}

// TestDenyFingerprint: the same patterns give the same fingerprint, other
// patterns another.
func TestDenyFingerprint(t *testing.T) {
	root := t.TempDir()
	a, _ := workspace.Open(root, []string{"*.secret"})
	b, _ := workspace.Open(root, []string{"*.secret"})
	c, _ := workspace.Open(root, []string{"*.private"})
	if a.DenyFingerprint() == "" || a.DenyFingerprint() != b.DenyFingerprint() || a.DenyFingerprint() == c.DenyFingerprint() {
		t.Fatalf("fingerprints %q %q %q", a.DenyFingerprint(), b.DenyFingerprint(), c.DenyFingerprint())
	}
}
