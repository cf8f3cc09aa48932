package format_test

import (
	"testing"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/epub"
	"github.com/retrieve-dev/retrieve/format/internal/doctest"
	"github.com/retrieve-dev/retrieve/format/odf"
	"github.com/retrieve-dev/retrieve/format/ooxml"
)

// TestOfficeFormatsRegister registers the office and e-book extractors the
// way format/formats will: names, extensions and media types do not
// collide, and a document is found by extension, media type and head.
func TestOfficeFormatsRegister(t *testing.T) {
	all := []format.Extractor{ooxml.DOCX(), ooxml.PPTX(), ooxml.XLSX(), odf.ODT(), odf.ODS(), odf.ODP(), epub.New()}
	r := format.NewRegistry(all...)
	if got, want := len(r.Names()), 7; got != want {
		t.Fatalf("Names() = %v, want %d formats", r.Names(), want)
	}
	for name, want := range map[string]string{"a.DOCX": "docx", "b.pptx": "pptx", "c.xlsm": "xlsx", "d.odt": "odt", "e.ods": "ods", "f.odp": "odp", "g.epub": "epub"} {
		x, ok := r.Detect(name, []byte("PK\x03\x04"))
		if !ok || x.Info().Name != want {
			t.Errorf("Detect(%q) = %v, want %s", name, ok, want)
		}
	}
	x, ok := r.ForMediaType("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet; charset=binary")
	if !ok || x.Info().Name != "xlsx" {
		t.Errorf("ForMediaType(xlsx) = %v", ok)
	}
	head := doctest.Zip(t, doctest.File{Name: "mimetype", Body: "application/epub+zip", Store: true})
	if x, ok := r.Detect("book.bin", head); !ok || x.Info().Name != "epub" {
		t.Errorf("Detect by head: %v, want epub", ok)
	}
	for _, x := range all {
		if _, ok := x.(format.Selector); ok != (x.Info().Name == "xlsx" || x.Info().Name == "ods") {
			t.Errorf("%s: Selector = %v, want only spreadsheets", x.Info().Name, ok)
		}
	}
}
