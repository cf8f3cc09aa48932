package pdf_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/pdf"
)

// pageOps is a dense page: 60 lines of running text in two columns.
func pageOps(n int) []textOp {
	var ops []textOp
	for i := 0; i < 60; i++ {
		ops = append(ops,
			textOp{x: 72, y: 740 - float64(i)*11, size: 9, text: fmt.Sprintf("Page %d line %d of the left column, ordinary running text.", n, i)},
			textOp{x: 320, y: 740 - float64(i)*11, size: 9, text: fmt.Sprintf("Right column line %d goes on with more words to read.", i)})
	}
	return ops
}

func manyPages(n int) []byte {
	pages := make([][]textOp, n)
	for i := range pages {
		pages[i] = pageOps(i + 1)
	}
	return doc(pages...).bytes(1)
}

func benchExtract(b *testing.B, data []byte, opts format.Options, pages int) {
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		t, err := pdf.New().Extract(context.Background(), bytes.NewReader(data), int64(len(data)), opts)
		if err != nil {
			b.Fatal(err)
		}
		if len(t.Parts) != pages {
			b.Fatalf("parts = %d, want %d", len(t.Parts), pages)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(pages), "ns/page")
}

// BenchmarkPage extracts a one-page, two-column PDF of 120 lines.
func BenchmarkPage(b *testing.B) {
	benchExtract(b, manyPages(1), format.Options{}, 1)
}

// BenchmarkManyPages extracts a 200-page PDF: ns/page should match
// BenchmarkPage, and B/op grow with the text, not with held glyphs.
func BenchmarkManyPages(b *testing.B) {
	benchExtract(b, manyPages(200), format.Options{}, 200)
}

// BenchmarkOnePartOfMany extracts page 100 of the 200-page PDF: it should
// cost about one page (plus reading the page tree), not 200.
func BenchmarkOnePartOfMany(b *testing.B) {
	benchExtract(b, manyPages(200), format.Options{Parts: []format.Range{{From: 100, To: 100}}}, 1)
}
