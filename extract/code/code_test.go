package code

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden outlines")

// fixtures maps the files of testdata to their language.
var fixtures = map[string]string{
	"sample.go":    "go",
	"user.ts":      "typescript",
	"App.tsx":      "tsx",
	"widget.js":    "javascript",
	"models.py":    "python",
	"Service.java": "java",
	"lib.rs":       "rust",
	"list.c":       "c",
	"list.h":       "c",
	"shapes.cpp":   "cpp",
	"Store.cs":     "csharp",
	"user.rb":      "ruby",
}

// format renders an outline as one "START-END kind path" line per symbol.
func format(o *Outline) string {
	var b strings.Builder
	for _, s := range o.Symbols {
		fmt.Fprintf(&b, "%d-%d %s %s\n", s.StartLine, s.EndLine, s.Kind, s.Path())
	}
	return b.String()
}

func TestGoldenOutlines(t *testing.T) {
	for name, lang := range fixtures {
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			o, err := Parse(lang, src)
			if err != nil {
				t.Fatal(err)
			}
			if o.SyntaxErrors {
				t.Errorf("%s: unexpected syntax errors", name)
			}
			got := format(o)
			golden := filepath.Join("testdata", name+".outline")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("outline of %s (-want +got):\n%s", name, diff)
			}
		})
	}
}

// TestEveryLanguageEveryBuild parses each language: the tree-sitter runtime
// is pure Go, so a CGO_ENABLED=0 build (.ci/run runs this package so) knows
// them all; an unknown language is ErrUnsupported.
func TestEveryLanguageEveryBuild(t *testing.T) {
	for _, lang := range Languages() {
		o, err := Parse(lang, []byte("x\n"))
		if err != nil || o.Language != lang && lang != "go" {
			t.Errorf("Parse(%s) = %v, %v", lang, o, err)
		}
	}
	_, err := Parse("cobol", []byte("x\n"))
	var ue *UnsupportedError
	if !errors.As(err, &ue) || !errors.Is(err, ErrUnsupported) || ue.Language != "cobol" {
		t.Fatalf("err = %v, want an UnsupportedError", err)
	}
}

// TestVersionNamesTheRuntime: Version names the tree-sitter runtime that
// go.mod requires (or replaces it with), so that upgrading it invalidates
// the cached outlines.
func TestVersionNamesTheRuntime(t *testing.T) {
	mod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	want := ""
	for _, line := range strings.Split(string(mod), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && f[0] == "github.com/odvcencio/gotreesitter" && want == "":
			want = f[1]
		case len(f) >= 4 && f[0] == "replace" && f[1] == "github.com/odvcencio/gotreesitter":
			want = "replaced" // a patched copy: bump Version's number by hand
		}
	}
	if want == "" {
		t.Fatal("go.mod requires no github.com/odvcencio/gotreesitter")
	}
	if want != "replaced" && !strings.HasSuffix(Version, "+gotreesitter@"+want) {
		t.Errorf("Version = %q, but go.mod requires gotreesitter %s: update Version", Version, want)
	}
}
