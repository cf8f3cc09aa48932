package ooxml_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/format/formattest"
	"github.com/retrieve-dev/retrieve/format/ooxml"
)

// TestConformanceDOCX holds the DOCX extractor to the suite every format
// passes (format/formattest).
func TestConformanceDOCX(t *testing.T) {
	var big strings.Builder
	for i := range 4500 {
		big.WriteString(wp("Heading1", fmt.Sprintf("Chapter %d", i)))
		big.WriteString(wp("", fmt.Sprintf("Paragraph %d of the generated document, with enough words to weigh on the scale of a mebibyte, and more words so that each paragraph carries about three hundred bytes of plain prose, which the test needs to pass one mebibyte.", i)))
	}
	formattest.Run(t, ooxml.DOCX(), []formattest.Sample{
		{Name: "doc.docx", Data: wordDoc(t, wp("Heading1", "Intro")+wp("", "Every citation is checkable in this document.")+wp("Heading1", "Results")+wp("", "The results are good.")), Phrase: "Every citation is checkable in this document."},
		{Name: "large.docx", Data: wordDoc(t, big.String()), Phrase: "Paragraph 7 of the generated", Large: true},
	})
}

// TestConformancePPTX holds the PPTX extractor to the suite.
func TestConformancePPTX(t *testing.T) {
	var slides, notes []string
	for i := range 3000 {
		slides = append(slides, sp("title", fmt.Sprintf("Slide title %d", i))+sp("", fmt.Sprintf("Point %d of the generated deck, with enough words to weigh on the scale of a mebibyte, and more words so that each slide carries a few hundred bytes.", i)))
		notes = append(notes, "")
	}
	formattest.Run(t, ooxml.PPTX(), []formattest.Sample{
		{Name: "deck.pptx", Data: deck(t,
			[]string{sp("ctrTitle", "Quarterly review") + sp("subTitle", "Every citation is checkable on this slide."), sp("title", "Numbers") + sp("", "Revenue up\nCosts down"), sp("", "The last slide has no title")},
			[]string{"", "Say the numbers slowly.", ""}), Phrase: "Every citation is checkable on this slide."},
		{Name: "large.pptx", Data: deck(t, slides, notes), Phrase: "Point 7 of the generated deck", Large: true},
	})
}

// TestConformanceXLSX holds the XLSX extractor to the suite.
func TestConformanceXLSX(t *testing.T) {
	formattest.Run(t, ooxml.XLSX(), []formattest.Sample{
		{Name: "book.xlsx", Data: book(t), Phrase: "| 2 | Ada | 10.5 | 2024-01-31 |"},
		{Name: "large.xlsx", Data: bigBook(t, 20000), Phrase: "| 7 | label 7 | item 7 | 7.25 |", Large: true},
	})
}
