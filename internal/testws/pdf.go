package testws

import (
	"fmt"
	"strings"
)

// MinimalPDF writes a PDF of Helvetica text, a page per text and a line
// per line of it, for
// tests of documents (the format/pdf package has its own writer for its
// finer cases).
func MinimalPDF(pages ...string) []byte {
	var objs []string
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	font := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	var contents []int
	for _, p := range pages {
		stream := "BT /F1 12 Tf 14 TL 72 700 Td (" + strings.ReplaceAll(p, "\n", ") Tj T* (") + ") Tj ET"
		contents = append(contents, add(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream)))
	}
	parent := len(objs) + len(pages) + 1
	var kids []string
	for _, c := range contents {
		kids = append(kids, fmt.Sprintf("%d 0 R", add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", parent, font, c))))
	}
	add(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids)))
	root := add(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", parent))
	var b strings.Builder
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, root, xref)
	return []byte(b.String())
}
