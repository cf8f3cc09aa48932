package pdf_test

import (
	"fmt"
	"testing"

	"github.com/retrieve-dev/retrieve/format/formattest"
	"github.com/retrieve-dev/retrieve/format/pdf"
)

// TestConformance holds the PDF extractor to the suite every format passes
// (format/formattest): parts, quotes, determinism, part selection, memory
// on a 600-page file, typed errors, limits.
func TestConformance(t *testing.T) {
	report := doc(
		lines(72, 700, "The first page says every citation is checkable again.", "A second line on it."),
		lines(72, 700, "The second page holds the results of the study."),
		lines(72, 700, "The third page is an appendix."),
	)
	var pages [][]textOp
	for i := range 600 {
		var ls []string
		for j := range 40 {
			ls = append(ls, fmt.Sprintf("Page %d line %d of the generated manual with some words", i, j))
		}
		pages = append(pages, lines(72, 740, ls...))
	}
	large := doc(pages...)
	formattest.Run(t, pdf.New(), []formattest.Sample{
		{Name: "report.pdf", Data: report.bytes(1), Phrase: "every citation is checkable again"},
		{Name: "large.pdf", Data: large.bytes(1), Phrase: "Page 7 line 3 of the generated", Large: true},
	})
}
