package code

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBlankGoBodies: each top-level function's body keeps only its
// newlines, so lines stay; what only looks like a brace (in a
// string, rune, raw string or comment), a signature's struct or interface
// type, a function literal outside a function and a declaration without a
// body are not.
func TestBlankGoBodies(t *testing.T) {
	src := "package p\n\n" +
		"// F does \"{\".\n" +
		"func F(s struct{ a int }) interface{ M() } {\n\tx := \"}\" + `{` + string('}') /* } */ // }\n\treturn nil\n}\n\n" +
		"func (t *T[K]) G[V any]() {}\n" +
		"func Stub(a int)\n" +
		"var v = func() { y := 1 }\n" +
		"type I interface {\n\tM() // {\n}\n" +
		"func H() (\n\tint,\n) { return 1 }\n"
	want := "package p\n\n" +
		"// F does \"{\".\n" +
		"func F(s struct{ a int }) interface{ M() } {\n\n\n}\n\n" +
		"func (t *T[K]) G[V any]() {}\n" +
		"func Stub(a int)\n" +
		"var v = func() { y := 1 }\n" +
		"type I interface {\n\tM() // {\n}\n" +
		"func H() (\n\tint,\n) {}\n"
	got, ok := blankGoBodies([]byte(src))
	if !ok {
		t.Fatal("not blanked")
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("blanked (-want +got):\n%s", diff)
	}
	for _, bad := range []string{
		"package p\nfunc F() {\n\tx := \"}\n}\n",      // a string left open
		"package p\nfunc F() {\n\t/* }\n}\n",          // a comment left open
		"package p\nfunc F() {\n\tif x {\n}\n",        // a brace left open
		"package p\nfunc F() {\n//line a.go:100\n}\n", // a line directive
	} {
		if _, ok := blankGoBodies([]byte(bad)); ok {
			t.Errorf("%q blanked", bad)
		}
	}
}

// TestGoBodyErrorNotParsed: a syntax error inside a body is not parsed, so
// it neither flags the outline nor moves a span; one outside the bodies is
// still reported.
func TestGoBodyErrorNotParsed(t *testing.T) {
	o := parseGo([]byte("package p\n\nfunc A() {\n\tx := (\n}\n\nfunc B() {}\n"))
	if o.SyntaxErrors {
		t.Error("an error inside a body is reported")
	}
	if got, want := format(o), "3-5 function A\n7-7 function B\n"; got != want {
		t.Errorf("outline %q, want %q", got, want)
	}
	if o := parseGo([]byte("package p\n\nfunc A() {}\n\nvar = 1\n")); !o.SyntaxErrors {
		t.Error("an error outside the bodies is not reported")
	}
}

// TestGoOutlineAsFullParse: on the Go toolchain's own packages, the outline
// of the blanked source is the outline of the whole parse.
func TestGoOutlineAsFullParse(t *testing.T) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skip(err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	files := 0
	for _, dir := range []string{"go", "net/http", "runtime", "cmd/compile/internal/syntax"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
				return err
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			whole := outlineGo(src)
			if whole.SyntaxErrors {
				return nil // testdata of the parsers
			}
			files++
			got := parseGo(src)
			if got.SyntaxErrors {
				t.Errorf("%s: syntax errors after blanking", p)
			}
			if diff := cmp.Diff(format(whole), format(got)); diff != "" {
				t.Errorf("%s (-whole +blanked):\n%s", p, diff)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 500 {
		t.Fatalf("%d files compared", files)
	}
}

// FuzzGoBodies: for any source whose whole parse is clean, the blanked
// parse gives the same outline, without syntax errors.
func FuzzGoBodies(f *testing.F) {
	if src, err := os.ReadFile(filepath.Join("testdata", "sample.go")); err == nil {
		f.Add(src)
	}
	f.Add([]byte("package p\n\nfunc F() interface{ M() } {\n\ts := `}`\n\t_ = '{'\n\treturn nil\n}\n\nfunc Stub()\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		whole := outlineGo(src)
		if whole.SyntaxErrors {
			return
		}
		got := parseGo(src)
		if got.SyntaxErrors || format(got) != format(whole) {
			t.Fatalf("blanked %q (errors %v), whole %q", format(got), got.SyntaxErrors, format(whole))
		}
	})
}
