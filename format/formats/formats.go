// Package formats is the one list of the document formats the module
// reads: one line per format in All. The engine's registry is Default();
// cmd/retrieve passes it in engine options. Adding a format touches its
// package under format/ (passing format/formattest) and one line here.
package formats

import (
	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/epub"
	"github.com/retrieve-dev/retrieve/format/html"
	"github.com/retrieve-dev/retrieve/format/ipynb"
	"github.com/retrieve-dev/retrieve/format/jsonl"
	"github.com/retrieve-dev/retrieve/format/odf"
	"github.com/retrieve-dev/retrieve/format/ooxml"
	"github.com/retrieve-dev/retrieve/format/pdf"
	"github.com/retrieve-dev/retrieve/format/text"
)

// All returns every built-in format, in the order Detect tries their
// sniffers.
func All() []format.Extractor {
	return []format.Extractor{
		text.Plain(),
		text.Markdown(),
		text.Code(),
		text.JSON(),
		text.YAML(),
		text.TOML(),
		text.CSV(),
		jsonl.New(),
		html.New(),
		ipynb.New(),
		pdf.New(),
		ooxml.DOCX(),
		ooxml.XLSX(),
		ooxml.PPTX(),
		odf.ODT(),
		odf.ODS(),
		odf.ODP(),
		epub.New(),
	}
}

// Default returns a registry of All.
func Default() *format.Registry { return format.NewRegistry(All()...) }
