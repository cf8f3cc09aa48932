package code

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// whole outlines src in one parse, as before chunks existed.
func whole(t testing.TB, lang string, src []byte) *Outline {
	t.Helper()
	o, err := parseChunked(lang, src, len(src)+1)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestChunksOutlineAsWhole: a file outlined in chunks gives the outline of
// the whole file, on every fixture cut as finely as the splitter allows
// and on the benchmarks' 10k-line files of public code.
func TestChunksOutlineAsWhole(t *testing.T) {
	for name, lang := range fixtures {
		if grammarsByName[lang] == nil || grammarsByName[lang].spec.split == nil {
			continue
		}
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			got, err := parseChunked(lang, src, 1)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(whole(t, lang, src), got); diff != "" {
				t.Errorf("chunked outline of %s (-whole +chunked):\n%s", name, diff)
			}
		})
	}
	for _, lang := range []string{"python", "typescript"} {
		t.Run(lang+"-10k", func(t *testing.T) {
			if testing.Short() {
				t.Skip("parses 10k-line files whole: not in -short")
			}
			src := loadBenchInput(t, lang)
			g := grammarsByName[lang]
			p, err := g.parser()
			if err != nil {
				t.Fatal(err)
			}
			defer g.release(p)
			got, ok := parseChunks(p, g, lang, src, minChunk)
			if !ok {
				t.Fatalf("the %s file did not parse clean in chunks", lang)
			}
			if n := len(chunks(src, minChunk, g.spec.split)); n < 4 {
				t.Errorf("%d chunks, want several", n)
			}
			if diff := cmp.Diff(whole(t, lang, src), got); diff != "" {
				t.Errorf("chunked outline (-whole +chunked):\n%s", diff)
			}
		})
	}
}

// TestChunksCutOnlyAtStatements: a cut needs a blank line before and a
// statement start; a string or comment that a cut splits sends the file
// back to one parse, so its outline is the whole file's.
func TestChunksCutOnlyAtStatements(t *testing.T) {
	src := []byte("a = 1\n\nb = 2\n    \nelse_ = 3\nc = 4\n\nelse:\n\n(d)\n")
	got := chunks(src, 1, splitPython)
	var starts []int
	for _, c := range got {
		starts = append(starts, c.row)
	}
	if want := []int{0, 2, 4}; !cmp.Equal(starts, want) {
		t.Errorf("chunk rows = %v, want %v", starts, want)
	}
	for _, tc := range []struct{ lang, src string }{
		{"python", "X = '''\n\nfoo = 1\n'''\n\ndef f():\n    pass\n"},
		{"typescript", "const s = `\n\nexport const x = 1\n`;\n\nfunction f() {}\n"},
		{"typescript", "/* a\n\nfunction g() {}\n*/\n\nfunction f() {}\n"},
	} {
		src := []byte(tc.src)
		got, err := parseChunked(tc.lang, src, 1)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(whole(t, tc.lang, src), got); diff != "" {
			t.Errorf("%q (-whole +chunked):\n%s", tc.src, diff)
		}
	}
}

// FuzzChunks: whatever the source, an outline made in chunks is the whole
// file's whenever the whole file parses clean.
func FuzzChunks(f *testing.F) {
	for name, lang := range fixtures {
		if lang != "python" && lang != "typescript" {
			continue
		}
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(lang == "python", b)
	}
	f.Add(true, []byte("x = '''\n\ny = 1\n'''\n"))
	f.Add(false, []byte("let a = b\n\n(c)\n\nfoo\n"))
	f.Fuzz(func(t *testing.T, python bool, src []byte) {
		lang := "typescript"
		if python {
			lang = "python"
		}
		if len(src) > 4096 {
			return
		}
		w := whole(t, lang, src)
		got, err := parseChunked(lang, src, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !w.SyntaxErrors && !cmp.Equal(w, got) {
			t.Errorf("chunked outline differs from the whole file's:\n%s", cmp.Diff(w, got))
		}
	})
}
