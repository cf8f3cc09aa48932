package testws

import (
	"archive/zip"
	"bytes"
	"fmt"
	"hash/crc32"
	"html"
	"io"
	"strings"
)

// The minimal office and e-book packages below are for tests outside
// format/ (the CLI, the engine, the docs' examples); format's packages have
// their own builders for their finer cases.

const (
	nsOOXMLRel     = `http://schemas.openxmlformats.org/officeDocument/2006/relationships`
	ooxmlTypes     = `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/></Types>`
	nsPresentation = `xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	nsODF          = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"`
)

// member is one file of a zip package; stored ones are written without
// compression (an OpenDocument or EPUB mimetype must be).
type member struct {
	name, body string
	store      bool
}

// zipOf writes the members, in order, into a zip.
func zipOf(members ...member) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, m := range members {
		h := &zip.FileHeader{Name: m.name, Method: zip.Deflate}
		if m.store {
			h = &zip.FileHeader{Name: m.name, Method: zip.Store, CRC32: crc32.ChecksumIEEE([]byte(m.body)),
				CompressedSize64: uint64(len(m.body)), UncompressedSize64: uint64(len(m.body))}
		}
		var w io.Writer
		var err error
		if m.store {
			w, err = zw.CreateRaw(h)
		} else {
			w, err = zw.CreateHeader(h)
		}
		if err != nil {
			panic(err)
		}
		if _, err := w.Write([]byte(m.body)); err != nil {
			panic(err)
		}
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// relsOf writes a relationships part: pairs of type and target.
func relsOf(items ...string) string {
	var sb strings.Builder
	sb.WriteString(`<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`)
	for i := 0; i+1 < len(items); i += 2 {
		fmt.Fprintf(&sb, `<Relationship Id="rId%d" Type="%s/%s" Target="%s"/>`, i/2+1, nsOOXMLRel, items[i], items[i+1])
	}
	return sb.String() + `</Relationships>`
}

// MinimalXLSX writes a workbook of one sheet named sheet whose rows start
// at A1; a cell that parses as a number is a number, any other an inline
// string.
func MinimalXLSX(sheet string, rows ...[]string) []byte {
	var data strings.Builder
	for r, row := range rows {
		fmt.Fprintf(&data, `<row r="%d">`, r+1)
		for c, v := range row {
			ref := fmt.Sprintf("%c%d", 'A'+c, r+1)
			if isNumber(v) {
				fmt.Fprintf(&data, `<c r="%s"><v>%s</v></c>`, ref, v)
			} else {
				fmt.Fprintf(&data, `<c r="%s" t="inlineStr"><is><t>%s</t></is></c>`, ref, html.EscapeString(v))
			}
		}
		data.WriteString(`</row>`)
	}
	const ns = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	return zipOf(
		member{name: "[Content_Types].xml", body: ooxmlTypes},
		member{name: "_rels/.rels", body: relsOf("officeDocument", "xl/workbook.xml")},
		member{name: "xl/workbook.xml", body: `<workbook ` + ns + `><sheets><sheet name="` + html.EscapeString(sheet) + `" sheetId="1" r:id="rId1"/></sheets></workbook>`},
		member{name: "xl/_rels/workbook.xml.rels", body: relsOf("worksheet", "worksheets/sheet1.xml")},
		member{name: "xl/worksheets/sheet1.xml", body: `<worksheet ` + ns + `><sheetData>` + data.String() + `</sheetData></worksheet>`},
	)
}

func isNumber(s string) bool {
	var f float64
	_, err := fmt.Sscanf(s, "%g", &f)
	return err == nil && fmt.Sprint(f) == s
}

// MinimalPPTX writes a deck of one slide per text: the first line of a
// text is the slide's title, the rest its body.
func MinimalPPTX(slides ...string) []byte {
	shape := func(ph, text string) string {
		nv := `<p:nvPr/>`
		if ph != "" {
			nv = `<p:nvPr><p:ph type="` + ph + `"/></p:nvPr>`
		}
		var paras strings.Builder
		for _, line := range strings.Split(text, "\n") {
			paras.WriteString(`<a:p><a:r><a:t>` + html.EscapeString(line) + `</a:t></a:r></a:p>`)
		}
		return `<p:sp><p:nvSpPr><p:cNvPr id="1" name="s"/><p:cNvSpPr/>` + nv + `</p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/>` + paras.String() + `</p:txBody></p:sp>`
	}
	members := []member{{name: "[Content_Types].xml", body: ooxmlTypes}, {name: "_rels/.rels", body: relsOf("officeDocument", "ppt/presentation.xml")}}
	var ids, rels []string
	for i, s := range slides {
		title, body, _ := strings.Cut(s, "\n")
		tree := shape("title", title)
		if body != "" {
			tree += shape("", body)
		}
		ids = append(ids, fmt.Sprintf(`<p:sldId id="%d" r:id="rId%d"/>`, 256+i, i+1))
		rels = append(rels, "slide", fmt.Sprintf("slides/slide%d.xml", i+1))
		members = append(members, member{name: fmt.Sprintf("ppt/slides/slide%d.xml", i+1), body: `<p:sld ` + nsPresentation + `><p:cSld><p:spTree>` + tree + `</p:spTree></p:cSld></p:sld>`})
	}
	return zipOf(append(members,
		member{name: "ppt/presentation.xml", body: `<p:presentation ` + nsPresentation + `><p:sldIdLst>` + strings.Join(ids, "") + `</p:sldIdLst></p:presentation>`},
		member{name: "ppt/_rels/presentation.xml.rels", body: relsOf(rels...)})...)
}

// MinimalODS writes an OpenDocument spreadsheet of one table named sheet
// whose rows start at A1, every cell a string or (when it parses as one)
// a number.
func MinimalODS(sheet string, rows ...[]string) []byte {
	const mt = "application/vnd.oasis.opendocument.spreadsheet"
	var body strings.Builder
	body.WriteString(`<office:spreadsheet><table:table table:name="` + html.EscapeString(sheet) + `">`)
	for _, row := range rows {
		body.WriteString(`<table:table-row>`)
		for _, v := range row {
			if isNumber(v) {
				fmt.Fprintf(&body, `<table:table-cell office:value-type="float" office:value="%s"><text:p>%s</text:p></table:table-cell>`, v, v)
			} else {
				fmt.Fprintf(&body, `<table:table-cell office:value-type="string"><text:p>%s</text:p></table:table-cell>`, html.EscapeString(v))
			}
		}
		body.WriteString(`</table:table-row>`)
	}
	body.WriteString(`</table:table></office:spreadsheet>`)
	return zipOf(
		member{name: "mimetype", body: mt, store: true},
		member{name: "META-INF/manifest.xml", body: `<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="` + mt + `"/></manifest:manifest>`},
		member{name: "content.xml", body: `<?xml version="1.0" encoding="UTF-8"?><office:document-content ` + nsODF + `><office:body>` + body.String() + `</office:body></office:document-content>`},
	)
}

// MinimalEPUB writes an EPUB 3 of one chapter per text: the first line of
// a text is the chapter's heading, each further line a paragraph.
func MinimalEPUB(chapters ...string) []byte {
	members := []member{
		{name: "mimetype", body: "application/epub+zip", store: true},
		{name: "META-INF/container.xml", body: `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`},
	}
	var manifest, spine strings.Builder
	for i, c := range chapters {
		lines := strings.Split(c, "\n")
		var body strings.Builder
		body.WriteString("<h1>" + html.EscapeString(lines[0]) + "</h1>")
		for _, l := range lines[1:] {
			body.WriteString("<p>" + html.EscapeString(l) + "</p>")
		}
		fmt.Fprintf(&manifest, `<item id="c%d" href="c%d.xhtml" media-type="application/xhtml+xml"/>`, i+1, i+1)
		fmt.Fprintf(&spine, `<itemref idref="c%d"/>`, i+1)
		members = append(members, member{name: fmt.Sprintf("c%d.xhtml", i+1), body: `<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>` + html.EscapeString(lines[0]) + `</title></head><body>` + body.String() + `</body></html>`})
	}
	return zipOf(append(members, member{name: "content.opf", body: `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata/><manifest>` + manifest.String() + `</manifest><spine>` + spine.String() + `</spine></package>`})...)
}
