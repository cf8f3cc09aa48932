package code

import (
	"testing"

	"github.com/retrieve-dev/retrieve/internal/codecorpus"
)

// benchInputs are the languages of the benchmarks' 10k-line files
// (internal/codecorpus; bench/outline.sh times universal-ctags on them).
var benchInputs = codecorpus.Languages

// loadBenchInput returns the 10k-line file of lang, or skips.
func loadBenchInput(tb testing.TB, lang string) []byte {
	tb.Helper()
	src, err := codecorpus.Load(lang)
	if err != nil {
		tb.Skip(err)
	}
	return src
}

// BenchmarkParse outlines each language's 10k-line file, parsers warm (a
// long-running server's case).
func BenchmarkParse(b *testing.B) {
	for _, lang := range benchInputs {
		b.Run(lang, func(b *testing.B) {
			needsTreeSitter(b, lang)
			src := loadBenchInput(b, lang)
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			cpu := codecorpus.CPUTime()
			for b.Loop() {
				o, err := Parse(lang, src)
				if err != nil {
					b.Fatal(err)
				}
				// zod's TypeScript has variance annotations (out T, TS 4.7),
				// which tree-sitter-typescript v0.23.2 does not parse: its
				// outline is whole (the same as gotreesitter's newer
				// grammar gave) but marked as having syntax errors.
				if len(o.Symbols) == 0 || o.SyntaxErrors && lang != "typescript" {
					b.Fatalf("%s: %d symbols, syntax errors %v", lang, len(o.Symbols), o.SyntaxErrors)
				}
			}
			b.ReportMetric(float64(codecorpus.CPUTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkBlankBodies times the scan that blanks the functions' bodies of
// the Go and Python 10k-line files before their parse.
func BenchmarkBlankBodies(b *testing.B) {
	for lang, blank := range map[string]func([]byte) ([]byte, bool){"go": blankGoBodies, "python": blankPythonBodies} {
		b.Run(lang, func(b *testing.B) {
			src := loadBenchInput(b, lang)
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := blank(src); !ok {
					b.Fatal("not blanked")
				}
			}
		})
	}
}
