package epub_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/epub"
	"github.com/retrieve-dev/retrieve/format/internal/doctest"
)

func xhtml(title, body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>` + title + `</title><link rel="stylesheet" href="http://127.0.0.1:1/x.css"/></head><body>` + body + `</body></html>`
}

// book builds an EPUB 3 whose spine is cover (an image page), ch1, notes
// (non-linear), ch2 — in that order, file names in another order.
func book(t testing.TB, extra ...doctest.File) []byte {
	files := []doctest.File{
		{Name: "mimetype", Body: "application/epub+zip", Store: true},
		{Name: "META-INF/container.xml", Body: `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`},
		{Name: "OEBPS/content.opf", Body: `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata/><manifest>
<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
<item id="cover" href="cover.xhtml" media-type="application/xhtml+xml"/>
<item id="c1" href="text/b%20chapter.xhtml" media-type="application/xhtml+xml"/>
<item id="c2" href="text/a.xhtml" media-type="application/xhtml+xml"/>
<item id="notes" href="text/notes.xhtml" media-type="application/xhtml+xml"/>
<item id="evil" href="../../etc/passwd" media-type="application/xhtml+xml"/>
<item id="remote" href="http://127.0.0.1:1/remote.xhtml" media-type="application/xhtml+xml"/>
</manifest><spine><itemref idref="cover"/><itemref idref="c1"/><itemref idref="notes" linear="no"/><itemref idref="evil"/><itemref idref="remote"/><itemref idref="c2"/></spine></package>`},
		{Name: "OEBPS/nav.xhtml", Body: xhtml("Contents", `<nav epub:type="toc"><ol><li><a href="text/b%20chapter.xhtml#start">The Beginning</a></li><li><a href="text/a.xhtml">The End</a></li></ol></nav>`)},
		{Name: "OEBPS/cover.xhtml", Body: xhtml("Cover", `<div><img src="cover.png" alt="Cover"/></div>`)},
		{Name: "OEBPS/text/b chapter.xhtml", Body: xhtml("One", `<h1 id="start">Chapter One</h1><p>It was a   dark
and stormy <em>night</em>; the <a href="http://127.0.0.1:1/">rain</a> fell.</p><ul><li>first</li><li>second<ol><li>inner</li></ol></li></ul>
<table><thead><tr><th>Who</th><th>What</th></tr></thead><tbody><tr><td>Ada</td><td>math</td></tr></tbody></table><pre>  code
  block</pre><script>alert("no")</script>`)},
		{Name: "OEBPS/text/notes.xhtml", Body: xhtml("Notes", `<p>A note.</p>`)},
		{Name: "OEBPS/text/a.xhtml", Body: xhtml("Two", `<section><h2>Later</h2><p>The end.</p></section>`)},
		{Name: "etc/passwd", Body: "root:x:0:0"},
	}
	return doctest.Zip(t, append(files, extra...)...)
}

func extract(b []byte, lim format.Limits) (*format.Text, error) {
	return epub.New().Extract(context.Background(), bytes.NewReader(b), int64(len(b)), format.Options{Limits: lim})
}

func TestEPUB(t *testing.T) {
	txt, err := extract(book(t), format.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	doctest.Check(t, txt)
	want1 := "# Chapter One\n\nIt was a dark and stormy night; the rain fell.\n\n- first\n\n- second\n\n  1. inner\n\n| Who | What |\n| --- | --- |\n| Ada | math |\n\n```\n  code\n  block\n```\n"
	if got := doctest.Part(t, txt, "chapter=2"); got != want1 {
		t.Errorf("chapter 2 =\n%q\nwant\n%q", got, want1)
	}
	if got := doctest.Part(t, txt, "chapter=3"); got != "A note.\n" {
		t.Errorf("chapter 3 = %q", got)
	}
	if got := doctest.Part(t, txt, "chapter=6"); got != "## Later\n\nThe end.\n" {
		t.Errorf("chapter 6 = %q", got)
	}
	for _, no := range []string{"root:x", "alert", "Cover"} {
		if strings.Contains(txt.Text, no) {
			t.Errorf("text holds %q:\n%s", no, txt.Text)
		}
	}
	var titles []string
	for _, s := range txt.Sections {
		titles = append(titles, s.Title)
	}
	if got, want := strings.Join(titles, "|"), "The Beginning|Notes|The End"; got != want {
		t.Errorf("sections = %s, want %s (nav labels, then <title>)", got, want)
	}
	if len(txt.Parts) != 3 || txt.Parts[0].Index != 2 || txt.Parts[0].Kind != "chapter" {
		t.Errorf("parts = %+v", txt.Parts)
	}
}

func TestNCX(t *testing.T) {
	b := doctest.Zip(t,
		doctest.File{Name: "mimetype", Body: "application/epub+zip", Store: true},
		doctest.File{Name: "META-INF/container.xml", Body: `<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="content.opf"/></rootfiles></container>`},
		doctest.File{Name: "content.opf", Body: `<package xmlns="http://www.idpf.org/2007/opf" version="2.0"><manifest><item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/><item id="a" href="a.html" media-type="application/xhtml+xml"/></manifest><spine toc="ncx"><itemref idref="a"/></spine></package>`},
		doctest.File{Name: "toc.ncx", Body: `<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/"><navMap><navPoint id="p1"><navLabel><text>Only &amp; Chapter</text></navLabel><content src="a.html"/></navPoint></navMap></ncx>`},
		doctest.File{Name: "a.html", Body: `<html><body><p>Text &mdash; with an entity</p></body></html>`},
	)
	txt, err := extract(b, format.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(txt.Sections) != 1 || txt.Sections[0].Title != "Only & Chapter" {
		t.Errorf("sections = %+v, want the NCX label", txt.Sections)
	}
	if got, want := txt.Text, "Text — with an entity\n"; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
}

func TestSniff(t *testing.T) {
	in := epub.New().Info()
	if !in.Sniff(book(t)) {
		t.Error("Sniff refuses an EPUB")
	}
	if in.Sniff(doctest.Zip(t, doctest.File{Name: "mimetype", Body: "application/epub+zipx", Store: true})) {
		t.Error("Sniff claims another mimetype")
	}
}

func TestBadInput(t *testing.T) {
	deep := xhtml("x", strings.Repeat("<div>", 200)+"deep"+strings.Repeat("</div>", 200))
	bomb := "<p>" + strings.Repeat(" ", 4<<20) + "</p>"
	good := book(t)
	// one builds a minimal book whose single chapter is body.
	one := func(body string) []byte {
		return doctest.Zip(t,
			doctest.File{Name: "META-INF/container.xml", Body: `<container><rootfiles><rootfile full-path="c.opf"/></rootfiles></container>`},
			doctest.File{Name: "c.opf", Body: `<package><manifest><item id="a" href="a.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="a"/></spine></package>`},
			doctest.File{Name: "a.xhtml", Body: body})
	}
	drm := book(t, doctest.File{Name: "META-INF/encryption.xml", Body: `<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">
<enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.idpf.org/2008/embedding"/><enc:CipherData><enc:CipherReference URI="OEBPS/font.otf"/></enc:CipherData></enc:EncryptedData>
<enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/><enc:CipherData><enc:CipherReference URI="OEBPS/text/a.xhtml"/></enc:CipherData></enc:EncryptedData></encryption>`})
	cases := []struct {
		name string
		doc  []byte
		lim  format.Limits
		want error
	}{
		{"ErrTooLarge/bomb", one(bomb), format.Limits{MaxInflated: 1 << 20}, format.ErrTooLarge},
		{"ErrTooLarge/depth", one(deep), format.Limits{}, format.ErrTooLarge},
		{"ErrTooLarge/text", good, format.Limits{MaxText: 50}, format.ErrTooLarge},
		{"ErrEncrypted", drm, format.Limits{}, format.ErrEncrypted},
		{"ErrNoText", one("<p>   </p>"), format.Limits{}, format.ErrNoText},
		{"ErrMalformed/truncated", good[:len(good)/2], format.Limits{}, format.ErrMalformed},
		{"ErrMalformed/nocontainer", doctest.Zip(t, doctest.File{Name: "mimetype", Body: "application/epub+zip", Store: true}), format.Limits{}, format.ErrMalformed},
		{"ErrMalformed/climb", doctest.Zip(t,
			doctest.File{Name: "META-INF/container.xml", Body: `<container><rootfiles><rootfile full-path="../../content.opf"/></rootfiles></container>`}), format.Limits{}, format.ErrMalformed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			txt, err := extract(c.doc, c.lim)
			if !errors.Is(err, c.want) {
				t.Fatalf("error = %v, want %v", err, c.want)
			}
			if txt != nil {
				t.Errorf("text with an error: %q", txt.Text)
			}
		})
	}
}
