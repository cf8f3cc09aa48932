package zipdoc_test

import (
	"testing"

	"github.com/retrieve-dev/retrieve/format/internal/zipdoc"
)

func TestResolve(t *testing.T) {
	for _, c := range []struct {
		base, target, want string
		ok                 bool
	}{
		{"", "word/document.xml", "word/document.xml", true},
		{"word/document.xml", "styles.xml", "word/styles.xml", true},
		{"ppt/slides/slide1.xml", "../notesSlides/notesSlide1.xml", "ppt/notesSlides/notesSlide1.xml", true},
		{"word/document.xml", "/customXml/item1.xml", "customXml/item1.xml", true},
		{"OEBPS/content.opf", "text/a.xhtml#frag", "OEBPS/text/a.xhtml", true},
		{"word/document.xml", "../../etc/passwd", "", false},
		{"", "../x", "", false},
		{"word/document.xml", "https://127.0.0.1/x", "", false},
		{"word/document.xml", "file:///etc/passwd", "", false},
		{"word/document.xml", `C:\x`, "", false},
		{"word/document.xml", "//host/share", "", false},
		{"word/document.xml", "", "", false},
	} {
		got, ok := zipdoc.Resolve(c.base, c.target)
		if got != c.want || ok != c.ok {
			t.Errorf("Resolve(%q, %q) = %q %v, want %q %v", c.base, c.target, got, ok, c.want, c.ok)
		}
	}
}
