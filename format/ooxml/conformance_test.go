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
