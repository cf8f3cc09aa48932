package workspace_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/retrieve-dev/retrieve/policy"
	"github.com/retrieve-dev/retrieve/workspace"
)

// tree writes files under dir.
func tree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func open(t testing.TB, root string, extra ...string) *workspace.FS {
	t.Helper()
	ws, err := workspace.Open(root, extra)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

func dirs(t testing.TB) (root, outside string) {
	t.Helper()
	r, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return r, o
}

func TestOpenRefusals(t *testing.T) {
	root, out := dirs(t)
	tree(t, out, map[string]string{"secret.md": "OUTSIDE"})
	tree(t, root, map[string]string{"a.md": "A", "h.md": "H", ".env": "ENV", "docs/b.md": "B", ".retrieveignore": "!.env\nprivate/\n", "private/p.md": "P"})
	for link, target := range map[string]string{"out.md": filepath.Join(out, "secret.md"), "outdir": out, "env.md": ".env", "docs/up.md": "../a.md", "loop": "loop"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(root, "h.md"), filepath.Join(root, "hard.md")); err != nil {
		t.Fatal(err)
	}
	ws := open(t, root)
	if b, err := ws.ReadFile("docs/up.md"); err != nil || string(b) != "A" {
		t.Errorf("a link inside the root: %q %v", b, err)
	}
	for name, want := range map[string]error{
		"out.md":                 policy.ErrOutsideRoot,
		"outdir/secret.md":       policy.ErrOutsideRoot,
		"../x":                   policy.ErrOutsideRoot,
		".env":                   policy.ErrSensitive,
		".ENV":                   policy.ErrSensitive,
		"env.md":                 policy.ErrSensitive,
		"private/p.md":           policy.ErrSensitive,
		"PRIVATE/p.md":           policy.ErrSensitive,
		"hard.md":                policy.ErrHardLink,
		"h.md":                   policy.ErrHardLink, // the other name of the same file
		"a\x00b":                 policy.ErrBadName,
		strings.Repeat("n", 256): policy.ErrBadName,
	} {
		b, err := ws.ReadFile(name)
		if !errors.Is(err, want) {
			t.Errorf("ReadFile(%q) = %q, %v; want %v", name, b, err, want)
		}
		if !workspace.Refused(err) {
			t.Errorf("ReadFile(%q): Refused(%v) is false", name, err)
		}
	}
	if _, err := ws.ReadFile("loop"); err == nil || workspace.Refused(err) {
		t.Errorf("a link loop: %v", err)
	}
	if _, err := ws.ReadFile("missing.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func TestWritesStayInside(t *testing.T) {
	root, out := dirs(t)
	tree(t, root, map[string]string{"notes/a.md": "A", ".ssh/known": "K"})
	for link, target := range map[string]string{"outdir": out, "sshdir": ".ssh"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	ws := open(t, root)
	if err := ws.WriteFileAtomic("notes/b.md", []byte("B"), 0o644, true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "notes/b.md")); string(b) != "B" {
		t.Errorf("write: %q", b)
	}
	for name, want := range map[string]error{"outdir/x.md": policy.ErrOutsideRoot, "sshdir/x.md": policy.ErrSensitive, ".env": policy.ErrSensitive} {
		if err := ws.WriteFileAtomic(name, []byte("x"), 0o644, false); !errors.Is(err, want) {
			t.Errorf("WriteFileAtomic(%q) = %v, want %v", name, err, want)
		}
	}
	if err := ws.MkdirAll("outdir/sub", 0o755); !errors.Is(err, policy.ErrOutsideRoot) {
		t.Errorf("MkdirAll through a link out: %v", err)
	}
	if _, err := ws.OpenFile("outdir/log.md", os.O_CREATE|os.O_WRONLY, 0o644); !errors.Is(err, policy.ErrOutsideRoot) {
		t.Errorf("OpenFile through a link out: %v", err)
	}
	ents, _ := os.ReadDir(out)
	if len(ents) != 0 {
		t.Errorf("files written outside: %v", ents)
	}
	ents, _ = os.ReadDir(filepath.Join(root, ".ssh"))
	if len(ents) != 1 {
		t.Errorf("files written in .ssh: %v", ents)
	}
}

func TestListingsHideDenied(t *testing.T) {
	root, out := dirs(t)
	tree(t, out, map[string]string{"secret.md": "OUTSIDE"})
	tree(t, root, map[string]string{"src/a.go": "package a", "src/.env": "E", "src/.ssh/id": "S", "src/KEY.PEM": "K"})
	if err := os.Symlink(out, filepath.Join(root, "src", "out")); err != nil {
		t.Fatal(err)
	}
	ws := open(t, root)
	ents, err := ws.ReadDir("src")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "a.go,out" {
		t.Errorf("ReadDir = %v", names)
	}
	var walked []string
	if err := ws.WalkDir("src", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		walked = append(walked, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(walked, ",") != "src,src/a.go,src/out" {
		t.Errorf("WalkDir = %v", walked)
	}
}

// swapper replaces the link name, atomically, with links to each target in
// turn until stop is closed.
func swapper(t *testing.T, root, name string, targets []string, stop chan struct{}, wg *sync.WaitGroup) {
	t.Helper()
	wg.Add(1)
	go func() {
		defer wg.Done()
		tmp := filepath.Join(root, name+".tmp")
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.Remove(tmp)
			if err := os.Symlink(targets[i%len(targets)], tmp); err != nil {
				continue
			}
			_ = os.Rename(tmp, filepath.Join(root, name))
		}
	}()
}

// Finding 7: a link swapped between a benign file and a denied or outside
// file while it is read 500 times leaks nothing: the deny list is checked
// on the opened file's final path.
func TestSecuritySymlinkSwapRace(t *testing.T) {
	root, out := dirs(t)
	tree(t, out, map[string]string{"secret.md": "SENTINEL-OUTSIDE"})
	tree(t, root, map[string]string{"benign.md": "BENIGN", ".env": "SENTINEL-ENV", ".ssh/x.md": "SENTINEL-SSH", "docs/x.md": "BENIGN"})
	if err := os.Symlink("benign.md", filepath.Join(root, "swap.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("docs", filepath.Join(root, "dir")); err != nil {
		t.Fatal(err)
	}
	ws := open(t, root)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	swapper(t, root, "swap.md", []string{"benign.md", ".env", filepath.Join(out, "secret.md")}, stop, &wg)
	swapper(t, root, "dir", []string{"docs", ".ssh", out}, stop, &wg)
	var leaks, benign, refused atomic.Int64
	check := func(b []byte, err error) {
		switch {
		case err == nil && strings.Contains(string(b), "SENTINEL"):
			leaks.Add(1)
		case err == nil:
			benign.Add(1)
		default:
			refused.Add(1)
		}
	}
	for range 500 {
		check(ws.ReadFile("swap.md"))
		check(ws.ReadFile("dir/x.md"))
	}
	close(stop)
	wg.Wait()
	t.Logf("1000 reads: %d benign, %d refused, %d leaks", benign.Load(), refused.Load(), leaks.Load())
	if leaks.Load() != 0 {
		t.Fatalf("%d of 1000 reads leaked a denied or outside file", leaks.Load())
	}
	if benign.Load()+refused.Load() != 1000 {
		t.Fatalf("reads unaccounted for")
	}
}

func FuzzRel(f *testing.F) {
	root, _ := dirs(f)
	ws := open(f, root)
	for _, s := range []string{"a/b.md", "../x", "/etc/passwd", root + "/a", "a/../../b", "", ".", "a\x00b", strings.Repeat("a", 300), "./a//b/", "C:\\x", "a/./../b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, target string) {
		rel, err := ws.Rel(target)
		if err != nil {
			if !workspace.Refused(err) {
				t.Fatalf("Rel(%q): untyped error %v", target, err)
			}
			return
		}
		if rel == ".." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/") || strings.IndexByte(rel, 0) >= 0 {
			t.Fatalf("Rel(%q) = %q leaves the root", target, rel)
		}
		// Opening never escapes: any success is inside the root.
		if f, _, final, err := ws.OpenResolved(rel); err == nil {
			f.Close()
			if final == ".." || strings.HasPrefix(final, "../") {
				t.Fatalf("OpenResolved(%q) = %q", rel, final)
			}
		}
	})
}
