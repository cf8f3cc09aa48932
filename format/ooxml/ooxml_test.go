package ooxml_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/internal/doctest"
	"github.com/retrieve-dev/retrieve/format/ooxml"
)

func extract(t testing.TB, x format.Extractor, b []byte, lim format.Limits) (*format.Text, error) {
	t.Helper()
	return x.Extract(context.Background(), bytes.NewReader(b), int64(len(b)), format.Options{Limits: lim})
}

func mustExtract(t testing.TB, x format.Extractor, b []byte) *format.Text {
	t.Helper()
	txt, err := extract(t, x, b, format.Limits{})
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	doctest.Check(t, txt)
	return txt
}

func TestDOCX(t *testing.T) {
	body := wp("Heading1", "Introduction") +
		wp("", "First paragraph with a footnote<w:r><w:footnoteReference w:id=\"1\"/></w:r>.") +
		`<w:p><w:r><w:t>Tab</w:t></w:r><w:r><w:tab/><w:t>bed</w:t></w:r><w:commentReference w:id="0"/><w:del><w:r><w:delText>deleted words</w:delText></w:r></w:del><w:ins><w:r><w:t xml:space="preserve"> inserted</w:t></w:r></w:ins></w:p>` +
		wp("", "") +
		wli(1, 0, "bullet one") + wli(1, 1, "nested bullet") + wli(2, 0, "step one") + wli(2, 0, "step two") +
		wp("Heading2", "Results") +
		wtable([]string{"Name", "Score"}, []string{"Ada", "10"}, []string{"Pipe|Cell", "3"}) +
		wp("MyChapter", "Appendix") +
		`<w:p><w:hyperlink r:id="rId4"><w:r><w:t>a link's text</w:t></w:r></w:hyperlink></w:p>`
	txt := mustExtract(t, ooxml.DOCX(), wordDoc(t, body))

	for frag, want := range map[string]string{
		"para=1":     "# Introduction\n",
		"para=2":     "First paragraph with a footnote[^1].\n",
		"para=3":     "Tab bed inserted\n",
		"para=4":     "- bullet one\n",
		"para=5":     "  - nested bullet\n",
		"para=6":     "1. step one\n",
		"para=7":     "2. step two\n",
		"para=8":     "## Results\n",
		"table=1":    "| Name | Score |\n| --- | --- |\n| Ada | 10 |\n| Pipe\\|Cell | 3 |\n",
		"para=9":     "# Appendix\n",
		"para=10":    "a link's text\n",
		"footnote=1": "[^1]: A footnote's text.\n",
	} {
		if got := doctest.Part(t, txt, frag); got != want {
			t.Errorf("part %s = %q, want %q", frag, got, want)
		}
	}
	for _, no := range []string{"SECRET REVIEW COMMENT", "deleted words", "example.invalid"} {
		if strings.Contains(txt.Text, no) {
			t.Errorf("text holds %q:\n%s", no, txt.Text)
		}
	}
	var titles []string
	for _, s := range txt.Sections {
		titles = append(titles, s.Title)
	}
	if want := []string{"Introduction", "Results", "Appendix"}; !slices.Equal(titles, want) {
		t.Errorf("sections = %v, want %v", titles, want)
	}
	intro := txt.Sections[0]
	if got := txt.Text[intro.Start:intro.End]; !strings.HasPrefix(got, "# Introduction") || !strings.Contains(got, "## Results") || strings.Contains(got, "Appendix") {
		t.Errorf("section Introduction = %q, want it to hold Results and end before Appendix", got)
	}
	if !slices.Contains(txt.Assumptions, ooxml.AssumeDOCXFootnote) {
		t.Errorf("assumptions %v lack the footnote one", txt.Assumptions)
	}
}

func TestPPTX(t *testing.T) {
	slides := []string{
		sp("ctrTitle", "Quarterly review") + sp("subTitle", "Team A"),
		sp("title", "Numbers") + sp("", "Revenue up\nCosts down") + sp("sldNum", "2") +
			`<p:graphicFrame><a:graphic><a:graphicData><a:tbl><a:tr><a:tc><a:txBody><a:p><a:r><a:t>Q1</a:t></a:r></a:p></a:txBody></a:tc><a:tc><a:txBody><a:p><a:r><a:t>Q2</a:t></a:r></a:p></a:txBody></a:tc></a:tr><a:tr><a:tc><a:txBody><a:p><a:r><a:t>1</a:t></a:r></a:p></a:txBody></a:tc><a:tc><a:txBody><a:p><a:r><a:t>2</a:t></a:r></a:p></a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>`,
		sp("", "No title here"),
	}
	txt := mustExtract(t, ooxml.PPTX(), deck(t, slides, []string{"", "Say the numbers slowly.\nThen pause.", ""}))
	for frag, want := range map[string]string{
		"slide=1": "# Quarterly review\n\nTeam A\n",
		"slide=2": "# Numbers\n\nRevenue up\nCosts down\n\n| Q1 | Q2 |\n| --- | --- |\n| 1 | 2 |\n",
		"notes=2": "Notes:\n\nSay the numbers slowly.\nThen pause.\n",
		"slide=3": "No title here\n",
	} {
		if got := doctest.Part(t, txt, frag); got != want {
			t.Errorf("part %s = %q, want %q", frag, got, want)
		}
	}
	var kinds []string
	for _, p := range txt.Parts {
		kinds = append(kinds, p.Kind+"="+p.Label)
	}
	if want := []string{"slide=Quarterly review", "slide=Numbers", "notes=notes of slide 2", "slide=Slide 3"}; !slices.Equal(kinds, want) {
		t.Errorf("parts = %v, want %v", kinds, want)
	}
	if txt.Sections[2].Title != "Slide 3" {
		t.Errorf("section 3 = %q, want Slide 3", txt.Sections[2].Title)
	}
	empty := mustExtract(t, ooxml.PPTX(), deck(t, []string{sp("title", "One"), sp("", " "), sp("", "Three")}, []string{"", "", ""}))
	kinds = nil
	for _, p := range empty.Parts {
		kinds = append(kinds, p.Fragment)
	}
	if want := []string{"slide=1", "slide=3"}; !slices.Equal(kinds, want) {
		t.Errorf("parts = %v, want %v", kinds, want)
	}
	if len(txt.Sections) != 3 || txt.Sections[1].Title != "Numbers" {
		t.Errorf("sections = %+v, want one per slide", txt.Sections)
	}
	if !slices.Contains(txt.Assumptions, ooxml.AssumeNotes) {
		t.Errorf("assumptions %v lack the notes one", txt.Assumptions)
	}
}

// book is a workbook with formulas, dates, booleans, inline strings and a
// sheet whose name needs quotes.
func book(t testing.TB) []byte {
	data := []string{
		`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c></row>
<row r="2"><c r="A2" t="s"><v>3</v></c><c r="B2"><v>10.5</v></c><c r="C2" s="1"><v>45322</v></c></row>
<row r="3"><c r="A3" t="inlineStr"><is><t>inline</t></is></c><c r="B3"><f>B2*2</f><v>21</v></c><c r="C3" s="2"><v>45322.5</v></c></row>
<row r="5"><c r="A5" t="b"><v>1</v></c><c r="B5" t="str"><f>"a"&amp;"b"</f><v>ab</v></c><c r="C5" t="e"><v>#DIV/0!</v></c><c r="D5" s="3"><v>0.25</v></c></row>`,
		`<row r="2"><c r="B2" t="s"><v>4</v></c></row><row r="4"><c r="C4"><v>7</v></c></row>`,
	}
	return workbook(t, []string{"Name", "Amount", "When", "Ada", "spaced"}, []string{"Data", "My Sheet"}, data)
}

func TestXLSX(t *testing.T) {
	txt := mustExtract(t, ooxml.XLSX(), book(t))
	want1 := "# Data\n\n|  | A | B | C | D |\n| --- | --- | --- | --- | --- |\n| 1 | Name | Amount | When |  |\n| 2 | Ada | 10.5 | 2024-01-31 |  |\n| 3 | inline | 21 | 2024-01-31T12:00:00 |  |\n| 5 | TRUE | ab | #DIV/0! | 0.25 |\n"
	if got := doctest.Part(t, txt, "Data!A1:D5"); got != want1 {
		t.Errorf("sheet Data =\n%s\nwant\n%s", got, want1)
	}
	want2 := "# My Sheet\n\n|  | B | C |\n| --- | --- | --- |\n| 2 | spaced |  |\n| 4 |  | 7 |\n"
	if got := doctest.Part(t, txt, "'My Sheet'!B2:C4"); got != want2 {
		t.Errorf("sheet My Sheet =\n%s\nwant\n%s", got, want2)
	}
	if !slices.Contains(txt.Assumptions, ooxml.AssumeFormulas) || !slices.Contains(txt.Assumptions, ooxml.AssumeNumbers) {
		t.Errorf("assumptions %v lack the formula and number ones", txt.Assumptions)
	}
	if txt.Parts[0].Kind != "sheet" || txt.Parts[1].Index != 2 || txt.Parts[1].Label != "My Sheet" {
		t.Errorf("parts = %+v", txt.Parts)
	}
}

func TestXLSXSelect(t *testing.T) {
	b := book(t)
	sel := ooxml.XLSX().(format.Selector)
	for _, c := range []struct{ expr, frag, body string }{
		{"Data!B2:C3", "Data!B2:C3", "|  | B | C |\n| --- | --- | --- |\n| 2 | 10.5 | 2024-01-31 |\n| 3 | 21 | 2024-01-31T12:00:00 |\n"},
		{"data!$b$2:$c$3", "Data!B2:C3", "| 2 | 10.5 |"},
		{"'My Sheet'!A:C", "'My Sheet'!B2:C4", "| 4 |  | 7 |"},
		{"'My Sheet'", "'My Sheet'!B2:C4", "| 2 | spaced |  |"},
		{"Data!2:3", "Data!A2:D3", "| 3 | inline | 21 |"},
		{"Data!C2", "Data!C2", "| 2 | 2024-01-31 |"},
	} {
		t.Run(c.expr, func(t *testing.T) {
			txt, err := sel.Select(context.Background(), bytes.NewReader(b), int64(len(b)), c.expr, format.Options{})
			if err != nil {
				t.Fatalf("Select(%q): %v", c.expr, err)
			}
			doctest.Check(t, txt)
			if len(txt.Parts) != 1 || txt.Parts[0].Fragment != c.frag || txt.Parts[0].Kind != "range" {
				t.Fatalf("Select(%q) parts = %+v, want one range %s", c.expr, txt.Parts, c.frag)
			}
			if !strings.Contains(txt.Text, c.body) {
				t.Errorf("Select(%q) =\n%s\nwant it to hold %q", c.expr, txt.Text, c.body)
			}
		})
	}
	for _, expr := range []string{"Nope!A1", "Data!A1:ZZZZ9", "Data!H40:H50", "'unclosed!A1", "Data!"} {
		t.Run("ErrNoPart/"+expr, func(t *testing.T) {
			_, err := sel.Select(context.Background(), bytes.NewReader(b), int64(len(b)), expr, format.Options{})
			if !errors.Is(err, format.ErrNoPart) {
				t.Errorf("Select(%q) error = %v, want ErrNoPart", expr, err)
			}
		})
	}
}

func TestInfoSniff(t *testing.T) {
	doc, xl, pp := wordDoc(t, wp("", "x")), book(t), deck(t, []string{sp("title", "x")}, []string{""})
	for _, c := range []struct {
		x    format.Extractor
		yes  []byte
		nots [][]byte
	}{
		{ooxml.DOCX(), doc, [][]byte{xl, pp, []byte("PK\x03\x04junk")}},
		{ooxml.XLSX(), xl, [][]byte{doc, pp}},
		{ooxml.PPTX(), pp, [][]byte{doc, xl}},
	} {
		in := c.x.Info()
		if !in.Sniff(c.yes[:min(len(c.yes), 8192)]) {
			t.Errorf("%s: Sniff refuses its own format", in.Name)
		}
		for _, n := range c.nots {
			if in.Sniff(n[:min(len(n), 8192)]) {
				t.Errorf("%s: Sniff claims another format", in.Name)
			}
		}
		if in.Extractor != ooxml.Extractor || in.Version == "" || len(in.Extensions) == 0 || len(in.MediaTypes) == 0 {
			t.Errorf("%s: Info = %+v", in.Name, in)
		}
	}
}

// TestWrongFormat gives each extractor the others' files: ErrUnsupported,
// not garbage.
func TestWrongFormat(t *testing.T) {
	doc, xl := wordDoc(t, wp("", "x")), book(t)
	if _, err := extract(t, ooxml.XLSX(), doc, format.Limits{}); !errors.Is(err, format.ErrUnsupported) {
		t.Errorf("XLSX of a DOCX: %v, want ErrUnsupported", err)
	}
	if _, err := extract(t, ooxml.PPTX(), xl, format.Limits{}); !errors.Is(err, format.ErrUnsupported) {
		t.Errorf("PPTX of an XLSX: %v, want ErrUnsupported", err)
	}
}

// TestUTF16 reads a document.xml saved as UTF-16 with a byte order mark,
// as the XML of some Office files is.
func TestUTF16(t *testing.T) {
	xml := `<?xml version="1.0" encoding="UTF-16"?><w:document ` + nsW + `><w:body>` + wp("", "Grüße aus UTF-16") + `</w:body></w:document>`
	u := []byte{0xFF, 0xFE}
	for _, r := range xml {
		u = append(u, byte(r), byte(r>>8))
	}
	b := doctest.Zip(t,
		doctest.File{Name: "_rels/.rels", Body: rels("officeDocument", "word/document.xml")},
		doctest.File{Name: "word/document.xml", Body: string(u)})
	txt := mustExtract(t, ooxml.DOCX(), b)
	if got, want := txt.Text, "Grüße aus UTF-16\n"; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
}
