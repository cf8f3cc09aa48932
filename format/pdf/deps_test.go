package pdf_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports holds docs/ARCHITECTURE.md's rule: format/pdf imports the
// standard library and format, nothing else (no PDF library, no cgo).
func TestImports(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(p, "/")
			if p == "C" || strings.Contains(first, ".") && p != "github.com/retrieve-dev/retrieve/format" {
				t.Errorf("%s imports %s: format/pdf may import the standard library and format only", name, p)
			}
		}
	}
}
