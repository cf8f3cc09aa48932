package ooxml_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/formattest"
	"github.com/retrieve-dev/retrieve/format/internal/doctest"
	"github.com/retrieve-dev/retrieve/format/ooxml"
)

func FuzzDOCX(f *testing.F) {
	formattest.Fuzz(f, ooxml.DOCX(), read(f, "godocx-test.docx"),
		wordDoc(f, wp("Heading1", "T")+wli(2, 0, "x")+wtable([]string{"a", "b"})+wp("", "n<w:r><w:footnoteReference w:id=\"1\"/></w:r>")))
}

func FuzzPPTX(f *testing.F) {
	formattest.Fuzz(f, ooxml.PPTX(), deck(f, []string{sp("title", "T") + sp("", "a\nb"), sp("", "c")}, []string{"notes", ""}))
}

func FuzzXLSX(f *testing.F) {
	formattest.Fuzz(f, ooxml.XLSX(), read(f, "excelize-Book1.xlsx"), read(f, "xlsxreader-multiple-sheets.xlsx"), book(f))
}

// FuzzXLSXSelect fuzzes range expressions on a fixed workbook: a
// selection is one range part or ErrNoPart.
func FuzzXLSXSelect(f *testing.F) {
	b := read(f, "excelize-Book1.xlsx")
	for _, s := range []string{"Sheet1!B2:C40", "'My Sheet'!A:C", "Sheet2", "Sheet2!2:5", "'It''s'!A1", "Sheet1!$A$1", "Sheet1!XFD1048576", "!", "''"} {
		f.Add(s)
	}
	sel := ooxml.XLSX().(format.Selector)
	f.Fuzz(func(t *testing.T, expr string) {
		txt, err := sel.Select(context.Background(), bytes.NewReader(b), int64(len(b)), expr, format.Options{})
		if err != nil {
			formattest.CheckError(t, err)
			return
		}
		doctest.Check(t, txt)
		if len(txt.Parts) != 1 || txt.Parts[0].Kind != "range" {
			t.Fatalf("Select(%q) parts = %+v", expr, txt.Parts)
		}
		// The normalized fragment selects the same text again.
		again, err := sel.Select(context.Background(), bytes.NewReader(b), int64(len(b)), txt.Parts[0].Fragment, format.Options{})
		if err != nil {
			t.Fatalf("Select(%q) = fragment %q, which fails: %v", expr, txt.Parts[0].Fragment, err)
		}
		if again.Text != txt.Text {
			t.Fatalf("Select(%q) = %q, its fragment %q selects %q", expr, txt.Text, txt.Parts[0].Fragment, again.Text)
		}
	})
}
