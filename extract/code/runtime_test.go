package code

import (
	"errors"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/testws"
)

// needsTreeSitter skips a test of a tree-sitter language in a build
// without cgo (testws.NeedsCgo), and fails it when CI=true.
func needsTreeSitter(t testing.TB, lang string) {
	t.Helper()
	if lang != "go" {
		testws.NeedsCgo(t, lang)
	}
}

// TestEveryLanguageEveryBuild parses each language: a cgo build knows them
// all; a build without cgo (.ci/run runs this test so) parses Go and gives
// every other language an UnsupportedError that wraps ErrNoRuntime, with
// the hint to build with cgo. An unknown language is ErrUnsupported.
func TestEveryLanguageEveryBuild(t *testing.T) {
	for _, lang := range Languages() {
		o, err := Parse(lang, []byte("x\n"))
		if treeSitterRuntime || lang == "go" {
			if err != nil || o.Language != lang && lang != "go" {
				t.Errorf("Parse(%s) = %v, %v", lang, o, err)
			}
			continue
		}
		var ue *UnsupportedError
		if !errors.As(err, &ue) || !errors.Is(err, ErrUnsupported) || !errors.Is(err, ErrNoRuntime) || ue.Language != lang {
			t.Errorf("Parse(%s) without cgo: err = %v, want an UnsupportedError wrapping ErrNoRuntime", lang, err)
		} else if h := ue.Hint(); h == "" || !strings.Contains(h, "CGO_ENABLED=1") {
			t.Errorf("Parse(%s) without cgo: hint %q does not say how to build with cgo", lang, h)
		}
	}
	_, err := Parse("cobol", []byte("x\n"))
	var ue *UnsupportedError
	if !errors.As(err, &ue) || !errors.Is(err, ErrUnsupported) || errors.Is(err, ErrNoRuntime) || ue.Language != "cobol" {
		t.Fatalf("err = %v, want an UnsupportedError", err)
	}
}
