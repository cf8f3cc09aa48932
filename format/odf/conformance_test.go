package odf_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/format/formattest"
	"github.com/retrieve-dev/retrieve/format/odf"
)

const (
	mtODT = "application/vnd.oasis.opendocument.text"
	mtODS = "application/vnd.oasis.opendocument.spreadsheet"
	mtODP = "application/vnd.oasis.opendocument.presentation"
)

// TestConformanceODT holds the ODT extractor to the suite every format
// passes (format/formattest).
func TestConformanceODT(t *testing.T) {
	var big strings.Builder
	big.WriteString("<office:text>")
	for i := range 4500 {
		fmt.Fprintf(&big, `<text:h text:outline-level="1">Chapter %d</text:h><text:p>Paragraph %d of the generated document, with enough words to weigh on the scale of a mebibyte, and more words so that each paragraph carries a few hundred bytes of plain prose, which the test needs to pass one mebibyte of text.</text:p>`, i, i)
	}
	big.WriteString("</office:text>")
	formattest.Run(t, odf.ODT(), []formattest.Sample{
		{Name: "doc.odt", Data: pkg(t, mtODT, odtBody), Phrase: "First paragraph[^1] ends."},
		{Name: "large.odt", Data: pkg(t, mtODT, big.String()), Phrase: "Paragraph 7 of the generated", Large: true},
	})
}

// TestConformanceODS holds the ODS extractor to the suite.
func TestConformanceODS(t *testing.T) {
	var big strings.Builder
	big.WriteString(`<office:spreadsheet><table:table table:name="Data">`)
	for i := range 20000 {
		fmt.Fprintf(&big, `<table:table-row><table:table-cell office:value-type="string"><text:p>item %d</text:p></table:table-cell><table:table-cell office:value-type="float" office:value="%d.25"><text:p>%d.25</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>a label of the generated sheet</text:p></table:table-cell></table:table-row>`, i, i, i)
	}
	big.WriteString(`</table:table></office:spreadsheet>`)
	formattest.Run(t, odf.ODS(), []formattest.Sample{
		{Name: "book.ods", Data: pkg(t, mtODS, odsBody), Phrase: "| 2 | Ada | 2024-01-31 | 2 |"},
		{Name: "large.ods", Data: pkg(t, mtODS, big.String()), Phrase: "| 8 | item 7 | 7.25 |", Large: true},
	})
}

// TestConformanceODP holds the ODP extractor to the suite.
func TestConformanceODP(t *testing.T) {
	page := func(title, text, notes string) string {
		s := `<draw:page><draw:frame presentation:class="title"><draw:text-box><text:p>` + title + `</text:p></draw:text-box></draw:frame><draw:frame><draw:text-box><text:p>` + text + `</text:p></draw:text-box></draw:frame>`
		if notes != "" {
			s += `<presentation:notes><draw:frame presentation:class="notes"><draw:text-box><text:p>` + notes + `</text:p></draw:text-box></draw:frame></presentation:notes>`
		}
		return s + `</draw:page>`
	}
	var big strings.Builder
	big.WriteString("<office:presentation>")
	for i := range 7000 {
		big.WriteString(page(fmt.Sprintf("Slide title %d", i), fmt.Sprintf("Point %d of the generated deck, with enough words to weigh on the scale of a mebibyte, and more words so that each slide carries a few hundred bytes.", i), ""))
	}
	big.WriteString("</office:presentation>")
	small := "<office:presentation>" + page("Welcome", "Every citation is checkable on this slide.", "") +
		page("Numbers", "Revenue up", "Speak slowly.") + page("End", "The last slide.", "") + "</office:presentation>"
	formattest.Run(t, odf.ODP(), []formattest.Sample{
		{Name: "deck.odp", Data: pkg(t, mtODP, small), Phrase: "Every citation is checkable on this slide."},
		{Name: "large.odp", Data: pkg(t, mtODP, big.String()), Phrase: "Point 7 of the generated deck", Large: true},
	})
}
