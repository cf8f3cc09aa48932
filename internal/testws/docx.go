package testws

import (
	"bytes"
	"html"
)

// MinimalDOCX writes a DOCX of one paragraph per text, for tests of
// documents (format/ooxml has its own builders for its finer cases).
func MinimalDOCX(paragraphs ...string) []byte {
	var body bytes.Buffer
	for _, p := range paragraphs {
		body.WriteString(`<w:p><w:r><w:t xml:space="preserve">` + html.EscapeString(p) + `</w:t></w:r></w:p>`)
	}
	return zipOf(
		member{name: "[Content_Types].xml", body: `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		member{name: "_rels/.rels", body: relsOf("officeDocument", "word/document.xml")},
		member{name: "word/document.xml", body: `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + body.String() + `</w:body></w:document>`},
	)
}
