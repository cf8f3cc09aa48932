package sheet_test

import (
	"errors"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/internal/sheet"
)

func TestQuoteName(t *testing.T) {
	for name, want := range map[string]string{
		"Sheet1":   "Sheet1",
		"Données":  "Données",
		"_x.y":     "_x.y",
		"My Sheet": "'My Sheet'",
		"It's":     "'It''s'",
		"2024":     "'2024'",
		"A1":       "'A1'",
		"xfd9":     "'xfd9'",
		"R1C1":     "'R1C1'",
		"R":        "'R'",
		"a-b":      "'a-b'",
		"":         "''",
	} {
		if got := sheet.QuoteName(name); got != want {
			t.Errorf("QuoteName(%q) = %s, want %s", name, got, want)
		}
	}
}

func TestParseRef(t *testing.T) {
	for _, c := range []struct {
		expr, name, rng string
		whole           bool
	}{
		{"Sheet1!B2:C40", "Sheet1", "B2:C40", false},
		{"Sheet1!$C$40:$b$2", "Sheet1", "B2:C40", false},
		{"'My Sheet'!A:C", "My Sheet", "A:C", false},
		{"'It''s'!2:5", "It's", "2:5", false},
		{"Sheet1!C7", "Sheet1", "C7", false},
		{"'My Sheet'", "My Sheet", "", true},
		{"Plain", "Plain", "", true},
	} {
		name, r, whole, err := sheet.ParseRef(c.expr)
		if err != nil {
			t.Errorf("ParseRef(%q): %v", c.expr, err)
			continue
		}
		got := ""
		if !whole {
			got = r.String()
		}
		if name != c.name || got != c.rng || whole != c.whole {
			t.Errorf("ParseRef(%q) = %q %q %v, want %q %q %v", c.expr, name, got, whole, c.name, c.rng, c.whole)
		}
	}
	for _, bad := range []string{"", "'open!A1", "S!A0", "S!XFE1", "S!A1048577", "S!1:B", "S!A1:", "'S'X"} {
		if _, _, _, err := sheet.ParseRef(bad); !errors.Is(err, format.ErrNoPart) {
			t.Errorf("ParseRef(%q) error = %v, want ErrNoPart", bad, err)
		}
	}
}

func TestColName(t *testing.T) {
	for c, want := range map[int]string{1: "A", 26: "Z", 27: "AA", 702: "ZZ", 703: "AAA", 16384: "XFD"} {
		if got := sheet.ColName(c); got != want {
			t.Errorf("ColName(%d) = %s, want %s", c, got, want)
		}
		if col, row, ok := sheet.ParseCell(want + "7"); !ok || col != c || row != 7 {
			t.Errorf("ParseCell(%s7) = %d %d %v, want %d 7", want, col, row, ok, c)
		}
	}
}

func TestSelectClips(t *testing.T) {
	s := &sheet.Sheet{Name: "Data"}
	s.Add(2, 2, "b2")
	s.Add(5, 4, "d5")
	s.Add(3, 3, "")
	txt, err := sheet.Select([]*sheet.Sheet{s}, "data!A1:Z100", format.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := txt.Parts[0].Fragment; got != "Data!B2:D5" {
		t.Errorf("fragment = %s, want Data!B2:D5 (the range clipped to the values)", got)
	}
	want := "# Data\n\n|  | B | C | D |\n| --- | --- | --- | --- |\n| 2 | b2 |  |  |\n| 5 |  |  | d5 |\n"
	if txt.Text != want {
		t.Errorf("text =\n%s\nwant\n%s", txt.Text, want)
	}
	if _, err := sheet.Select([]*sheet.Sheet{s}, "Data!F1:G9", format.Limits{}); !errors.Is(err, format.ErrNoPart) {
		t.Errorf("an empty range: error = %v, want ErrNoPart", err)
	}
}
