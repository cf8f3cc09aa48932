package ooxml_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/format/internal/doctest"
)

const (
	nsW   = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	nsRel = `http://schemas.openxmlformats.org/officeDocument/2006/relationships`
	nsP   = `xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	nsX   = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
)

func rels(items ...string) string {
	var sb strings.Builder
	sb.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`)
	for i := 0; i+1 < len(items); i += 2 {
		mode := ""
		target := items[i+1]
		if strings.HasPrefix(target, "!") {
			target, mode = target[1:], ` TargetMode="External"`
		}
		fmt.Fprintf(&sb, `<Relationship Id="rId%d" Type="%s/%s" Target="%s"%s/>`, i/2+1, nsRel, items[i], target, mode)
	}
	sb.WriteString(`</Relationships>`)
	return sb.String()
}

const contentTypes = `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>`

// wordDoc builds a DOCX whose body is body (w:body's inner XML).
func wordDoc(t testing.TB, body string, extra ...doctest.File) []byte {
	files := []doctest.File{
		{Name: "[Content_Types].xml", Body: contentTypes},
		{Name: "_rels/.rels", Body: rels("officeDocument", "word/document.xml")},
		{Name: "word/_rels/document.xml.rels", Body: rels("styles", "styles.xml", "numbering", "numbering.xml", "footnotes", "footnotes.xml", "hyperlink", "!https://example.invalid/x", "comments", "comments.xml")},
		{Name: "word/document.xml", Body: `<?xml version="1.0" encoding="UTF-8"?><w:document ` + nsW + `><w:body>` + body + `<w:sectPr/></w:body></w:document>`},
		{Name: "word/styles.xml", Body: `<w:styles ` + nsW + `>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/></w:style>
<w:style w:type="paragraph" w:styleId="MyChapter"><w:name w:val="My Chapter"/><w:basedOn w:val="Heading1"/></w:style>
<w:style w:type="paragraph" w:styleId="Normal"><w:name w:val="Normal"/><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr></w:style>
</w:styles>`},
		{Name: "word/numbering.xml", Body: `<w:numbering ` + nsW + `>
<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl><w:lvl w:ilvl="1"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum>
<w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>
</w:numbering>`},
		{Name: "word/footnotes.xml", Body: `<w:footnotes ` + nsW + `><w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote><w:footnote w:id="1"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t xml:space="preserve"> A footnote's text.</w:t></w:r></w:p></w:footnote></w:footnotes>`},
		{Name: "word/comments.xml", Body: `<w:comments ` + nsW + `><w:comment w:id="0"><w:p><w:r><w:t>SECRET REVIEW COMMENT</w:t></w:r></w:p></w:comment></w:comments>`},
	}
	return doctest.Zip(t, append(files, extra...)...)
}

func wp(style, text string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p>` + ppr + `<w:r><w:t xml:space="preserve">` + text + `</w:t></w:r></w:p>`
}

func wli(num, lvl int, text string) string {
	return fmt.Sprintf(`<w:p><w:pPr><w:numPr><w:ilvl w:val="%d"/><w:numId w:val="%d"/></w:numPr></w:pPr><w:r><w:t>%s</w:t></w:r></w:p>`, lvl, num, text)
}

func wtable(rows ...[]string) string {
	var sb strings.Builder
	sb.WriteString(`<w:tbl><w:tblPr><w:tblW w:w="0"/></w:tblPr><w:tblGrid><w:gridCol/></w:tblGrid>`)
	for _, r := range rows {
		sb.WriteString(`<w:tr>`)
		for _, c := range r {
			sb.WriteString(`<w:tc><w:tcPr/>` + wp("", c) + `</w:tc>`)
		}
		sb.WriteString(`</w:tr>`)
	}
	sb.WriteString(`</w:tbl>`)
	return sb.String()
}

// deck builds a PPTX of slides (each a p:spTree inner XML) with notes for
// the slides whose notes are not empty; the slide files are numbered in the
// reverse of the presentation order, which must not matter.
func deck(t testing.TB, slides []string, notes []string) []byte {
	n := len(slides)
	var ids, relItems []string
	files := []doctest.File{
		{Name: "[Content_Types].xml", Body: contentTypes},
		{Name: "_rels/.rels", Body: rels("officeDocument", "ppt/presentation.xml")},
	}
	for i := range slides {
		file := n - i // slide 1 is in slideN.xml
		relItems = append(relItems, "slide", fmt.Sprintf("slides/slide%d.xml", file))
		ids = append(ids, fmt.Sprintf(`<p:sldId id="%d" r:id="rId%d"/>`, 256+i, i+1))
		files = append(files, doctest.File{Name: fmt.Sprintf("ppt/slides/slide%d.xml", file), Body: `<p:sld ` + nsP + `><p:cSld><p:spTree>` + slides[i] + `</p:spTree></p:cSld></p:sld>`})
		if notes[i] != "" {
			files = append(files,
				doctest.File{Name: fmt.Sprintf("ppt/slides/_rels/slide%d.xml.rels", file), Body: rels("notesSlide", fmt.Sprintf("../notesSlides/notesSlide%d.xml", file))},
				doctest.File{Name: fmt.Sprintf("ppt/notesSlides/notesSlide%d.xml", file), Body: `<p:notes ` + nsP + `><p:cSld><p:spTree>` +
					`<p:sp><p:nvSpPr><p:nvPr><p:ph type="sldImg"/></p:nvPr></p:nvSpPr></p:sp>` +
					sp("body", notes[i]) + sp("sldNum", "7") + `</p:spTree></p:cSld></p:notes>`})
		}
	}
	files = append(files,
		doctest.File{Name: "ppt/presentation.xml", Body: `<p:presentation ` + nsP + `><p:sldMasterIdLst><p:sldMasterId id="1" r:id="rId99"/></p:sldMasterIdLst><p:sldIdLst>` + strings.Join(ids, "") + `</p:sldIdLst><p:sldSz cx="1" cy="1"/></p:presentation>`},
		doctest.File{Name: "ppt/_rels/presentation.xml.rels", Body: rels(relItems...)},
	)
	return doctest.Zip(t, files...)
}

// sp is a shape with placeholder type ph ("" for a text box) holding one
// paragraph per line of text.
func sp(ph, text string) string {
	nv := `<p:nvSpPr><p:cNvPr id="1" name="x"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr>`
	if ph != "" {
		nv = `<p:nvSpPr><p:cNvPr id="1" name="x"/><p:cNvSpPr/><p:nvPr><p:ph type="` + ph + `"/></p:nvPr></p:nvSpPr>`
	}
	var sb strings.Builder
	for _, line := range strings.Split(text, "\n") {
		sb.WriteString(`<a:p><a:r><a:rPr lang="en"/><a:t>` + line + `</a:t></a:r></a:p>`)
	}
	return `<p:sp>` + nv + `<p:spPr/><p:txBody><a:bodyPr/>` + sb.String() + `</p:txBody></p:sp>`
}

// workbook builds an XLSX of sheets (name → sheetData inner XML) with a
// shared string table and styles where style 1 is a date (numFmtId 14),
// style 2 a custom date-time, style 3 a percentage.
func workbook(t testing.TB, shared []string, names []string, data []string) []byte {
	var sheets, relItems []string
	files := []doctest.File{
		{Name: "[Content_Types].xml", Body: contentTypes},
		{Name: "_rels/.rels", Body: rels("officeDocument", "xl/workbook.xml")},
	}
	for i, name := range names {
		relItems = append(relItems, "worksheet", fmt.Sprintf("worksheets/sheet%d.xml", i+1))
		sheets = append(sheets, fmt.Sprintf(`<sheet name="%s" sheetId="%d" r:id="rId%d"/>`, name, i+1, i+1))
		files = append(files, doctest.File{Name: fmt.Sprintf("xl/worksheets/sheet%d.xml", i+1), Body: `<worksheet ` + nsX + `><dimension ref="A1:Z999"/><sheetData>` + data[i] + `</sheetData></worksheet>`})
	}
	relItems = append(relItems, "sharedStrings", "sharedStrings.xml", "styles", "styles.xml")
	var ss strings.Builder
	for _, s := range shared {
		ss.WriteString(`<si><t xml:space="preserve">` + s + `</t></si>`)
	}
	files = append(files,
		doctest.File{Name: "xl/workbook.xml", Body: `<workbook ` + nsX + `><workbookPr/><sheets>` + strings.Join(sheets, "") + `</sheets></workbook>`},
		doctest.File{Name: "xl/_rels/workbook.xml.rels", Body: rels(relItems...)},
		doctest.File{Name: "xl/sharedStrings.xml", Body: `<sst ` + nsX + `>` + ss.String() + `</sst>`},
		doctest.File{Name: "xl/styles.xml", Body: `<styleSheet ` + nsX + `><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy\-mm\-dd&quot; at &quot;hh:mm"/></numFmts><cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/><xf numFmtId="164" applyNumberFormat="1"/><xf numFmtId="10" applyNumberFormat="1"/></cellXfs></styleSheet>`},
	)
	return doctest.Zip(t, files...)
}
