package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

// A name without a link on the way is opened in one openat2 (its final
// path is the name); a link anywhere on the way, or a name that does not
// exist, is left to the root, which follows links inside it and reports
// errors.
func TestOpenBeneath(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "sub", "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(dir, "dirlink")); err != nil {
		t.Fatal(err)
	}
	w, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.top == nil {
		t.Skip("the root's directory could not be opened for openat2")
	}
	for _, c := range []struct {
		name   string
		direct bool
		final  string
	}{
		{"sub/a.txt", true, "sub/a.txt"},
		{"sub/link.txt", false, "sub/a.txt"},
		{"dirlink/a.txt", false, "sub/a.txt"},
		{"sub/missing.txt", false, ""},
	} {
		f, direct := openBeneath(w.top, w.dir, c.name, os.O_RDONLY)
		if direct {
			f.Close()
		}
		if direct != c.direct {
			if err := probeOpenat2(w.top); err != nil && c.direct {
				t.Skipf("openat2 is not available here: %v", err)
			}
			t.Errorf("%s: opened directly %v, want %v", c.name, direct, c.direct)
		}
		f, _, final, err := w.OpenResolved(c.name)
		if c.final == "" {
			if err == nil {
				f.Close()
				t.Errorf("%s: opened, want an error", c.name)
			}
			continue
		}
		if err != nil || final != c.final {
			t.Errorf("%s: final %q, %v; want %q", c.name, final, err, c.final)
			continue
		}
		f.Close()
	}
}

// probeOpenat2 says why openat2 fails on "." (nil when it works).
func probeOpenat2(dir *os.File) error {
	if f, ok := openBeneath(dir, "", ".", os.O_RDONLY); ok {
		f.Close()
		return nil
	}
	return os.ErrInvalid
}
