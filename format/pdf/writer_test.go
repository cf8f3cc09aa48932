package pdf_test

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
)

// pdfFile is a tiny PDF writer for the tests: objects are written in order
// with a correct cross-reference table (unless a test breaks it).
type pdfFile struct {
	objs    []string // object bodies; object n is objs[n-1]
	trailer string   // extra trailer entries
	version string
}

func (f *pdfFile) add(body string) int {
	f.objs = append(f.objs, body)
	return len(f.objs)
}

// reserve allocates an object number to fill in later.
func (f *pdfFile) reserve() int { return f.add("null") }

func (f *pdfFile) set(n int, body string) { f.objs[n-1] = body }

func deflate(b []byte) []byte {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func (f *pdfFile) stream(dict string, data []byte, compress bool) int {
	if compress {
		data = deflate(data)
		dict += " /Filter /FlateDecode"
	}
	return f.add(fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data))
}

// bytes writes the file; offsets of the xref table are exact.
func (f *pdfFile) bytes(root int) []byte {
	var b bytes.Buffer
	v := f.version
	if v == "" {
		v = "1.7"
	}
	fmt.Fprintf(&b, "%%PDF-%s\n%%\xe2\xe3\xcf\xd3\n", v)
	offs := make([]int, len(f.objs))
	for i, o := range f.objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	x := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(f.objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R %s >>\nstartxref\n%d\n%%%%EOF\n", len(f.objs)+1, root, f.trailer, x)
	return b.Bytes()
}

// textOp is one line of text drawn at x, y in Helvetica of size.
type textOp struct {
	x, y, size float64
	text       string
}

func esc(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`)
	return r.Replace(s)
}

func content(ops []textOp) []byte {
	var b bytes.Buffer
	for _, o := range ops {
		size := o.size
		if size == 0 {
			size = 10
		}
		fmt.Fprintf(&b, "BT /F1 %g Tf %g %g Td (%s) Tj ET\n", size, o.x, o.y, esc(o.text))
	}
	return b.Bytes()
}

// doc builds a PDF whose pages draw the given lines with the standard
// Helvetica font (widths from its AFM metrics, as a reader must know them).
func doc(pages ...[]textOp) *pdfFile {
	f := &pdfFile{}
	catalog := f.reserve()
	pagesObj := f.reserve()
	font := f.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	var kids []string
	for _, p := range pages {
		c := f.stream("", content(p), true)
		pg := f.add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", pagesObj, font, c))
		kids = append(kids, fmt.Sprintf("%d 0 R", pg))
	}
	f.set(pagesObj, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids)))
	f.set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesObj))
	return f
}

// lines lays out text lines top-down from y at x with a 12 pt leading.
func lines(x, y float64, texts ...string) []textOp {
	var out []textOp
	for i, t := range texts {
		out = append(out, textOp{x: x, y: y - float64(i)*12, text: t})
	}
	return out
}
