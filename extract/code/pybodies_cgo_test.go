//go:build cgo

package code

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retrieve-dev/retrieve/internal/codecorpus"
)

// The tests that compare the blanked parse with tree-sitter's whole parse
// (outlineTreeSitter): a build with cgo only.

// TestPythonOutlineAsFullParse: on the Python standard library's modules,
// the outline of the blanked source is the outline of the whole parse.
func TestPythonOutlineAsFullParse(t *testing.T) {
	needsTreeSitter(t, "python")
	files := codecorpus.Files("python")
	if len(files) == 0 {
		t.Skip("no Python standard library on this machine")
	}
	paths, _ := filepath.Glob(filepath.Join(filepath.Dir(files[0]), "*.py"))
	blanked := 0
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := outlineTreeSitter("python", src, false)
		if err != nil || whole.SyntaxErrors {
			continue
		}
		if _, ok := blankPythonBodies(src); ok {
			blanked++
		}
		got, err := Parse("python", src)
		if err != nil {
			t.Fatal(err)
		}
		if got.SyntaxErrors {
			t.Errorf("%s: syntax errors after blanking", p)
		}
		if diff := cmp.Diff(format(whole), format(got)); diff != "" {
			t.Errorf("%s (-whole +blanked):\n%s", p, diff)
		}
	}
	if blanked < 100 {
		t.Fatalf("%d files blanked and compared", blanked)
	}
}

// FuzzPythonBodies: for any source whose whole parse is clean, the
// blanked parse gives the same outline, without syntax errors.
func FuzzPythonBodies(f *testing.F) {
	needsTreeSitter(f, "python")
	if src, err := os.ReadFile(filepath.Join("testdata", "models.py")); err == nil {
		f.Add(src)
	}
	f.Add([]byte("class C:\n    def f(self):\n        '''d'''\n        return [\n  1]\n    # c\n\n@d\ndef g(): pass\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		whole, err := outlineTreeSitter("python", src, false)
		if err != nil || whole.SyntaxErrors {
			return
		}
		got, err := Parse("python", src)
		if err != nil {
			t.Fatal(err)
		}
		if got.SyntaxErrors || format(got) != format(whole) {
			t.Fatalf("blanked %q (errors %v), whole %q", format(got), got.SyntaxErrors, format(whole))
		}
	})
}
