package odf_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/internal/doctest"
	"github.com/retrieve-dev/retrieve/format/odf"
)

const ns = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"`

func pkg(t testing.TB, mt, body string, extra ...doctest.File) []byte {
	files := []doctest.File{
		{Name: "mimetype", Body: mt, Store: true},
		{Name: "META-INF/manifest.xml", Body: `<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="` + mt + `"/></manifest:manifest>`},
		{Name: "content.xml", Body: `<?xml version="1.0" encoding="UTF-8"?><office:document-content ` + ns + `><office:automatic-styles/><office:body>` + body + `</office:body></office:document-content>`},
	}
	return doctest.Zip(t, append(files, extra...)...)
}

func extract(t testing.TB, x format.Extractor, b []byte, lim format.Limits) (*format.Text, error) {
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

const odtBody = `<office:text><text:sequence-decls><text:sequence-decl text:name="Figure"/></text:sequence-decls>
<text:h text:outline-level="1">Introduction</text:h>
<text:p>First<text:s text:c="3"/>paragraph<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>The note.</text:p></text:note-body></text:note> ends.</text:p>
<text:p><office:annotation><text:p>A REVIEW COMMENT</text:p></office:annotation>Commented<text:tab/>text<text:line-break/>next line</text:p>
<text:p/>
<text:list><text:list-item><text:p>one</text:p><text:list><text:list-item><text:p>nested</text:p></text:list-item></text:list></text:list-item><text:list-item><text:p>two</text:p></text:list-item></text:list>
<text:section text:name="S"><text:h text:outline-level="2">Results</text:h>
<table:table table:name="T"><table:table-column/><table:table-header-rows><table:table-row><table:table-cell><text:p>Name</text:p></table:table-cell><table:table-cell><text:p>Score</text:p></table:table-cell></table:table-row></table:table-header-rows>
<table:table-row><table:table-cell><text:p>Ada</text:p></table:table-cell><table:table-cell office:value-type="float" office:value="10"><text:p>10</text:p></table:table-cell></table:table-row></table:table>
</text:section>
<text:h text:outline-level="1">End</text:h></office:text>`

func TestODT(t *testing.T) {
	txt := mustExtract(t, odf.ODT(), pkg(t, "application/vnd.oasis.opendocument.text", odtBody))
	for frag, want := range map[string]string{
		"para=1":     "# Introduction\n",
		"para=2":     "First paragraph[^1] ends.\n",
		"para=3":     "Commented text\nnext line\n",
		"para=4":     "- one\n",
		"para=5":     "  - nested\n",
		"para=6":     "- two\n",
		"para=7":     "## Results\n",
		"table=1":    "| Name | Score |\n| --- | --- |\n| Ada | 10 |\n",
		"para=8":     "# End\n",
		"footnote=1": "[^1]: The note.\n",
	} {
		if got := doctest.Part(t, txt, frag); got != want {
			t.Errorf("part %s = %q, want %q", frag, got, want)
		}
	}
	if strings.Contains(txt.Text, "REVIEW COMMENT") {
		t.Errorf("an annotation is in the text:\n%s", txt.Text)
	}
	var titles []string
	for _, s := range txt.Sections {
		titles = append(titles, s.Title)
	}
	if want := []string{"Introduction", "Results", "End"}; !slices.Equal(titles, want) {
		t.Errorf("sections = %v, want %v", titles, want)
	}
}

const odsBody = `<office:spreadsheet><table:calculation-settings/>
<table:table table:name="Data"><table:table-column table:number-columns-repeated="4"/>
<table:table-row><table:table-cell office:value-type="string"><text:p>Name</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>When</text:p></table:table-cell></table:table-row>
<table:table-row><table:table-cell office:value-type="string"><text:p>Ada</text:p></table:table-cell><table:table-cell office:value-type="date" office:date-value="2024-01-31"><text:p>31/01/24</text:p></table:table-cell><table:table-cell table:formula="of:=1+1" office:value-type="float" office:value="2"><text:p>2.00</text:p></table:table-cell></table:table-row>
<table:table-row table:number-rows-repeated="2"><table:table-cell table:number-columns-repeated="2"/><table:table-cell office:value-type="boolean" office:boolean-value="true"><text:p>TRUE</text:p></table:table-cell></table:table-row>
<table:table-row table:number-rows-repeated="1048570"><table:table-cell table:number-columns-repeated="1024"/></table:table-row>
</table:table>
<table:table table:name="My Sheet"><table:table-row><table:table-cell office:value-type="time" office:time-value="PT13H45M00S"><text:p>13:45</text:p></table:table-cell></table:table-row></table:table>
</office:spreadsheet>`

func TestODS(t *testing.T) {
	b := pkg(t, "application/vnd.oasis.opendocument.spreadsheet", odsBody)
	txt := mustExtract(t, odf.ODS(), b)
	want := "# Data\n\n|  | A | B | C |\n| --- | --- | --- | --- |\n| 1 | Name | When |  |\n| 2 | Ada | 2024-01-31 | 2 |\n| 3 |  |  | TRUE |\n| 4 |  |  | TRUE |\n"
	if got := doctest.Part(t, txt, "Data!A1:C4"); got != want {
		t.Errorf("sheet Data =\n%s\nwant\n%s", got, want)
	}
	if got := doctest.Part(t, txt, "'My Sheet'!A1"); !strings.Contains(got, "| 1 | 13:45:00 |") {
		t.Errorf("sheet My Sheet = %q", got)
	}
	if !slices.Contains(txt.Assumptions, odf.AssumeFormulas) {
		t.Errorf("assumptions %v lack the formula one", txt.Assumptions)
	}
	sel, err := odf.ODS().(format.Selector).Select(context.Background(), bytes.NewReader(b), int64(len(b)), "data!B:C", format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := sel.Parts[0].Fragment; got != "Data!B1:C4" {
		t.Errorf("Select fragment = %q, want Data!B1:C4", got)
	}
}

func TestODP(t *testing.T) {
	body := `<office:presentation>
<draw:page draw:name="p1"><draw:frame presentation:class="title"><draw:text-box><text:p>Welcome</text:p></draw:text-box></draw:frame>
<draw:frame presentation:class="outline"><draw:text-box><text:list><text:list-item><text:p>Point A</text:p></text:list-item><text:list-item><text:p>Point B</text:p></text:list-item></text:list></draw:text-box></draw:frame>
<draw:frame presentation:class="page-number"><draw:text-box><text:p>1</text:p></draw:text-box></draw:frame>
<presentation:notes><draw:page-thumbnail/><draw:frame presentation:class="notes"><draw:text-box><text:p>Speak slowly.</text:p></draw:text-box></draw:frame></presentation:notes></draw:page>
<draw:page draw:name="p2"><draw:frame><draw:text-box><text:p>Untitled text</text:p></draw:text-box></draw:frame></draw:page>
</office:presentation>`
	txt := mustExtract(t, odf.ODP(), pkg(t, "application/vnd.oasis.opendocument.presentation", body))
	for frag, want := range map[string]string{
		"slide=1": "# Welcome\n\nPoint A\nPoint B\n",
		"notes=1": "Notes:\n\nSpeak slowly.\n",
		"slide=2": "Untitled text\n",
	} {
		if got := doctest.Part(t, txt, frag); got != want {
			t.Errorf("part %s = %q, want %q", frag, got, want)
		}
	}
	if !slices.Contains(txt.Assumptions, odf.AssumeNotes) {
		t.Errorf("assumptions %v lack the notes one", txt.Assumptions)
	}
}

func TestSniff(t *testing.T) {
	odt := pkg(t, "application/vnd.oasis.opendocument.text", "<office:text/>")
	ods := pkg(t, "application/vnd.oasis.opendocument.spreadsheet", "<office:spreadsheet/>")
	tmpl := pkg(t, "application/vnd.oasis.opendocument.text-template", "<office:text/>")
	if !odf.ODT().Info().Sniff(odt) || odf.ODT().Info().Sniff(ods) || odf.ODT().Info().Sniff(tmpl) {
		t.Error("ODT Sniff: want its own mimetype only")
	}
	if !odf.ODS().Info().Sniff(ods) || odf.ODP().Info().Sniff(ods) {
		t.Error("ODS/ODP Sniff: want their own mimetype only")
	}
}

func TestBadInput(t *testing.T) {
	bomb := strings.Repeat(" ", 4<<20)
	deep := "<office:text>" + strings.Repeat("<text:section>", 100) + "<text:p>x</text:p>" + strings.Repeat("</text:section>", 100) + "</office:text>"
	good := pkg(t, "application/vnd.oasis.opendocument.text", "<office:text><text:p>x</text:p></office:text>")
	cases := []struct {
		name string
		doc  []byte
		lim  format.Limits
		want error
	}{
		{"ErrTooLarge/bomb", pkg(t, "application/vnd.oasis.opendocument.text", "<office:text><text:p>"+bomb+"</text:p></office:text>"), format.Limits{MaxInflated: 1 << 20}, format.ErrTooLarge},
		{"ErrTooLarge/depth", pkg(t, "application/vnd.oasis.opendocument.text", deep), format.Limits{}, format.ErrTooLarge},
		{"ErrTooLarge/repeat", pkg(t, "application/vnd.oasis.opendocument.spreadsheet", `<office:spreadsheet><table:table table:name="S"><table:table-row table:number-rows-repeated="1000000"><table:table-cell table:number-columns-repeated="16384" office:value-type="float" office:value="1"/></table:table-row></table:table></office:spreadsheet>`), format.Limits{MaxText: 1 << 20}, format.ErrTooLarge},
		{"ErrEncrypted", doctest.Zip(t,
			doctest.File{Name: "mimetype", Body: "application/vnd.oasis.opendocument.text", Store: true},
			doctest.File{Name: "META-INF/manifest.xml", Body: `<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data/></manifest:file-entry></manifest:manifest>`},
			doctest.File{Name: "content.xml", Body: "binary"}), format.Limits{}, format.ErrEncrypted},
		{"ErrMalformed/truncated", good[:len(good)-30], format.Limits{}, format.ErrMalformed},
		{"ErrMalformed/nocontent", doctest.Zip(t, doctest.File{Name: "mimetype", Body: "application/vnd.oasis.opendocument.text", Store: true}), format.Limits{}, format.ErrMalformed},
		{"ErrUnsupported/body", pkg(t, "application/vnd.oasis.opendocument.text", "<office:chart/>"), format.Limits{}, format.ErrUnsupported},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			txt, err := extract(t, odf.ODT(), c.doc, c.lim)
			if !errors.Is(err, c.want) {
				t.Fatalf("error = %v, want %v", err, c.want)
			}
			if txt != nil {
				t.Errorf("text with an error: %q", txt.Text)
			}
		})
	}
}
