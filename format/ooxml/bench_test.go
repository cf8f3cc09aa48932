package ooxml_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/ooxml"
)

// bigBook is a workbook of rows rows × 5 columns: a shared string, an
// inline string, a number, a date and a formula with its cached value.
func bigBook(b testing.TB, rows int) []byte {
	var sb strings.Builder
	shared := make([]string, 100)
	for i := range shared {
		shared[i] = fmt.Sprintf("label %d", i)
	}
	for r := 1; r <= rows; r++ {
		fmt.Fprintf(&sb, `<row r="%d"><c r="A%d" t="s"><v>%d</v></c><c r="B%d" t="inlineStr"><is><t>item %d</t></is></c><c r="C%d"><v>%d.25</v></c><c r="D%d" s="1"><v>%d</v></c><c r="E%d"><f>C%d*2</f><v>%d.5</v></c></row>`,
			r, r, r%100, r, r, r, r, r, 40000+r%3000, r, r, 2*r)
	}
	return workbook(b, shared, []string{"Data"}, []string{sb.String()})
}

// bigDoc is a DOCX of about pages pages: per page a heading, eight
// paragraphs of 60 words, a list and a 4×3 table.
func bigDoc(b testing.TB, pages int) []byte {
	var sb strings.Builder
	para := strings.TrimSpace(strings.Repeat("the quick brown fox jumps over the lazy dog again ", 6))
	for p := 1; p <= pages; p++ {
		sb.WriteString(wp("Heading1", fmt.Sprintf("Section %d", p)))
		for i := 0; i < 8; i++ {
			sb.WriteString(wp("", para))
		}
		sb.WriteString(wli(1, 0, "first point") + wli(1, 0, "second point"))
		sb.WriteString(wtable([]string{"a", "b", "c"}, []string{"1", "2", "3"}, []string{"4", "5", "6"}, []string{"7", "8", "9"}))
	}
	return wordDoc(b, sb.String())
}

func run(b *testing.B, x format.Extractor, doc []byte) {
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := x.Extract(context.Background(), bytes.NewReader(doc), int64(len(doc)), format.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkXLSX10kRows(b *testing.B) { run(b, ooxml.XLSX(), bigBook(b, 10000)) }

func BenchmarkDOCX200Pages(b *testing.B) { run(b, ooxml.DOCX(), bigDoc(b, 200)) }

// BenchmarkXLSXSelect selects 40 rows of a 10k-row sheet: the sheet is
// still read whole (a zip member is a stream), the rendering is small.
func BenchmarkXLSXSelect(b *testing.B) {
	doc := bigBook(b, 10000)
	sel := ooxml.XLSX().(format.Selector)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sel.Select(context.Background(), bytes.NewReader(doc), int64(len(doc)), "Data!B2:C41", format.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
