package ooxml_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/internal/doctest"
	"github.com/retrieve-dev/retrieve/format/ooxml"
)

// The files in testdata were written by other projects (testdata/README.md).

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRealDOCX(t *testing.T) {
	txt := mustExtract(t, ooxml.DOCX(), read(t, "godocx-test.docx"))
	if got, want := txt.Text, "# Test\n\nHello, World\n"; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	if len(txt.Sections) != 1 || txt.Sections[0].Title != "Test" {
		t.Errorf("sections = %+v", txt.Sections)
	}
}

func TestRealXLSX(t *testing.T) {
	b := read(t, "excelize-Book1.xlsx")
	txt := mustExtract(t, ooxml.XLSX(), b)
	if got := doctest.Part(t, txt, "Sheet1!A19:D22"); !strings.Contains(got, "| 19 | Total: | 237 |") {
		t.Errorf("Sheet1 = %q, want the cached total 237 in B19", got)
	}
	if !slices.Contains(txt.Assumptions, ooxml.AssumeFormulas) {
		t.Errorf("assumptions %v lack the formula one", txt.Assumptions)
	}
	sel, err := ooxml.XLSX().(format.Selector).Select(context.Background(), bytes.NewReader(b), int64(len(b)), "Sheet2!A2:B3", format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "| 2 | > 23 Inch | 19 |\n| 3 | 20-23 Inch | 24 |\n"; !strings.HasSuffix(sel.Text, want) {
		t.Errorf("Select = %q, want it to end with %q", sel.Text, want)
	}

	dates := mustExtract(t, ooxml.XLSX(), read(t, "xlsxreader-multiple-sheets.xlsx"))
	if got := doctest.Part(t, dates, "testSheet1!A1:T10"); !strings.Contains(got, "| 2 |  |  |  | 22 | 1996-06-21 |") {
		t.Errorf("testSheet1 = %q, want E2 as the ISO date 1996-06-21 (excelize shows 21/06/1996)", got)
	}
}

func TestRealEncrypted(t *testing.T) {
	_, err := extract(t, ooxml.XLSX(), read(t, "excelize-encryptSHA1.xlsx"), format.Limits{})
	if !errors.Is(err, format.ErrEncrypted) {
		t.Errorf("error = %v, want ErrEncrypted", err)
	}
}
