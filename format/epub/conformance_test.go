package epub_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/format/epub"
	"github.com/retrieve-dev/retrieve/format/formattest"
	"github.com/retrieve-dev/retrieve/format/internal/doctest"
)

// large is an EPUB of chapters chapters, each a heading and paragraphs of
// prose.
func large(t testing.TB, chapters int) []byte {
	var manifest, spine strings.Builder
	files := []doctest.File{
		{Name: "mimetype", Body: "application/epub+zip", Store: true},
		{Name: "META-INF/container.xml", Body: `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`},
	}
	for c := range chapters {
		var body strings.Builder
		fmt.Fprintf(&body, "<h1>Chapter %d</h1>", c)
		for p := range 20 {
			fmt.Fprintf(&body, "<p>Paragraph %d of chapter %d of the generated book, with enough words to weigh on the scale of a mebibyte, and more words so that it carries a few hundred bytes.</p>", p, c)
		}
		fmt.Fprintf(&manifest, `<item id="c%d" href="c%d.xhtml" media-type="application/xhtml+xml"/>`, c, c)
		fmt.Fprintf(&spine, `<itemref idref="c%d"/>`, c)
		files = append(files, doctest.File{Name: fmt.Sprintf("c%d.xhtml", c), Body: xhtml(fmt.Sprintf("C%d", c), body.String())})
	}
	files = append(files, doctest.File{Name: "content.opf", Body: `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata/><manifest>` + manifest.String() + `</manifest><spine>` + spine.String() + `</spine></package>`})
	return doctest.Zip(t, files...)
}

// TestConformance holds the EPUB extractor to the suite every format
// passes (format/formattest).
func TestConformance(t *testing.T) {
	formattest.Run(t, epub.New(), []formattest.Sample{
		{Name: "book.epub", Data: book(t), Phrase: "It was a dark and stormy night; the rain fell."},
		{Name: "large.epub", Data: large(t, 300), Phrase: "Paragraph 7 of chapter 3 of the generated book", Large: true},
	})
}
