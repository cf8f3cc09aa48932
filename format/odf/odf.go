// Package odf extracts the text of OpenDocument files (ISO/IEC 26300):
// text documents (ODT), spreadsheets (ODS) and presentations (ODP), as
// Markdown cut into addressable parts with the same fragments as their
// Office Open XML counterparts (package ooxml). One reader serves the three:
// it reads content.xml, whichever body it holds, streaming, within
// format.Limits (the zip is read through format/internal/zipdoc: capped
// inflation, capped members, capped nesting). A package whose manifest
// declares encrypted members is format.ErrEncrypted.
//
// Parts and fragments (docs/documents.md, "Office files and e-books"):
//
//   - ODT: one part per non-empty paragraph or heading (Kind "paragraph",
//     Fragment "para=N", N counting paragraphs that hold text in body order,
//     list items included, paragraphs inside tables not) and one per table
//     (Kind "table", Fragment "table=N"). text:h headings are Markdown
//     headings (their outline level) and Sections; list items start with
//     "- ", indented by nesting; notes are marked [^N] where cited and follow
//     the body as parts of Kind "footnote"; annotations (comments) and
//     tracked deletions are left out.
//   - ODS: one part per sheet (Kind "sheet", Fragment the used range,
//     'My Sheet'!A1:C20), cells as a Markdown table with column letters and
//     row numbers; cells give their stored values (office:value, dates as
//     their ISO 8601 office:date-value), formulas their cached values. ODS
//     is a format.Selector like XLSX.
//   - ODP: one part per page (Kind "slide", Fragment "slide=N"), the title
//     frame as a level-1 heading and a Section (untitled and empty slides as
//     in PPTX); speaker notes are a part of
//     Kind "notes", Fragment "notes=N" after their slide, starting "Notes:".
package odf

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/internal/mdtext"
	"github.com/retrieve-dev/retrieve/format/internal/sheet"
	"github.com/retrieve-dev/retrieve/format/internal/zipdoc"
)

// Extractor and Version name this implementation in provenance.metadata.
const (
	Extractor = "retrieve/odf"
	Version   = "1"
)

// Assumptions an extraction states when they apply.
const (
	AssumeFormulas = "formula cells give the values cached by the application that last saved the spreadsheet, not values recomputed now"
	AssumeValues   = "cells give their stored values (office:value; dates and times in ISO 8601), not their displayed formatting"
	AssumeNotes    = "speaker notes are their own parts (notes=N, after slide N), marked \"Notes:\""
	AssumeChanges  = "annotations (comments) and tracked deletions are left out"
)

const (
	mtText  = "application/vnd.oasis.opendocument.text"
	mtSheet = "application/vnd.oasis.opendocument.spreadsheet"
	mtPres  = "application/vnd.oasis.opendocument.presentation"
)

// ODT returns the OpenDocument text extractor.
func ODT() format.Extractor {
	return &reader{info: format.Info{Name: "odt", Extractor: Extractor, Version: Version,
		MediaTypes: []string{mtText}, Extensions: []string{".odt"},
		Sniff: func(h []byte) bool { return zipdoc.SniffMimetype(h, mtText) }}}
}

// ODS returns the OpenDocument spreadsheet extractor; it is also a
// format.Selector.
func ODS() format.Extractor {
	return &spreadsheet{reader{info: format.Info{Name: "ods", Extractor: Extractor, Version: Version,
		MediaTypes: []string{mtSheet}, Extensions: []string{".ods"},
		Sniff: func(h []byte) bool { return zipdoc.SniffMimetype(h, mtSheet) }}}}
}

// ODP returns the OpenDocument presentation extractor.
func ODP() format.Extractor {
	return &reader{info: format.Info{Name: "odp", Extractor: Extractor, Version: Version,
		MediaTypes: []string{mtPres}, Extensions: []string{".odp"},
		Sniff: func(h []byte) bool { return zipdoc.SniffMimetype(h, mtPres) }}}
}

type reader struct{ info format.Info }

// spreadsheet is the ODS reader: ranges are selected only in spreadsheets,
// so only it is a format.Selector (the engine detects the capability by
// type assertion).
type spreadsheet struct{ reader }

var (
	_ format.Extractor = reader{}
	_ format.Selector  = spreadsheet{}
)

// Info describes the OpenDocument type this reader was made for.
func (x reader) Info() format.Info { return x.info }

// Extract reads content.xml, whichever body (text, spreadsheet,
// presentation) it holds.
func (x reader) Extract(ctx context.Context, r io.ReaderAt, size int64, opts format.Options) (*format.Text, error) {
	lim := opts.Limits.WithDefaults()
	doc, err := read(ctx, r, size, lim)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", x.info.Name, zipdoc.Wrap(err))
	}
	if doc.sheets != nil {
		if err := sheet.Book(doc.b, doc.sheets, opts.Limits); err != nil {
			return nil, fmt.Errorf("%s: %w", x.info.Name, err)
		}
	}
	return doc.text(), nil
}

// Select gives the cells of one A1 range of a sheet (package sheet).
func (x spreadsheet) Select(ctx context.Context, r io.ReaderAt, size int64, expr string, opts format.Options) (*format.Text, error) {
	if _, _, _, err := sheet.ParseRef(expr); err != nil {
		return nil, err
	}
	lim := opts.Limits.WithDefaults()
	doc, err := read(ctx, r, size, lim)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", x.info.Name, zipdoc.Wrap(err))
	}
	if doc.sheets == nil {
		return nil, fmt.Errorf("%s: %w: ranges select cells of a spreadsheet, this is a %s", x.info.Name, format.ErrNoPart, doc.body)
	}
	t, err := sheet.Select(doc.sheets, expr, lim)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", x.info.Name, err)
	}
	doc.describe(t)
	return t, nil
}

// document is what was read of content.xml.
type document struct {
	ctx       context.Context
	lim       format.Limits
	b         *mdtext.Builder
	body      string // text, spreadsheet, presentation
	sheets    []*sheet.Sheet
	notes     []string // footnote bodies, in citation order
	formulas  int
	hasNotes  bool
	cellBytes int64
}

func (doc *document) describe(t *format.Text) {
	switch doc.body {
	case "spreadsheet":
		t.Assumptions = append(t.Assumptions, AssumeValues)
		if doc.formulas > 0 {
			t.Assumptions = append(t.Assumptions, AssumeFormulas)
		}
		names := make([]string, 0, len(doc.sheets))
		for _, s := range doc.sheets {
			names = append(names, s.Name)
		}
		t.Metadata["sheets"] = names
	case "presentation":
		if doc.hasNotes {
			t.Assumptions = append(t.Assumptions, AssumeNotes)
		}
	case "text":
		t.Assumptions = append(t.Assumptions, AssumeChanges)
	}
	t.Metadata["body"] = doc.body
}

func (doc *document) text() *format.Text {
	t := doc.b.Text()
	doc.describe(t)
	return t
}

// read opens the package and reads content.xml.
func read(ctx context.Context, r io.ReaderAt, size int64, lim format.Limits) (*document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a, err := zipdoc.Open(ctx, r, size, lim)
	if err != nil {
		return nil, err
	}
	if err := checkPackage(a); err != nil {
		return nil, err
	}
	rc, err := a.Open("content.xml")
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	doc := &document{ctx: ctx, lim: lim, b: mdtext.New(lim)}
	if err := doc.content(zipdoc.NewDecoder(ctx, rc, lim.MaxDepth)); err != nil {
		return nil, err
	}
	if doc.body == "" {
		return nil, fmt.Errorf("%w: content.xml has no office:text, office:spreadsheet or office:presentation body", format.ErrUnsupported)
	}
	if err := doc.footnoteParts(); err != nil {
		return nil, err
	}
	return doc, nil
}

// checkPackage turns away, before content.xml is read, a package that
// cannot be read: one with encrypted members, or without content.xml (a
// styles-only template, or not OpenDocument at all), each with its own
// error.
func checkPackage(a *zipdoc.Archive) error {
	if a.Has("META-INF/manifest.xml") {
		m, err := a.ReadAll("META-INF/manifest.xml")
		if err != nil {
			return err
		}
		if bytes.Contains(m, []byte("encryption-data")) {
			return fmt.Errorf("%w: the package's members are encrypted (a password-protected OpenDocument file)", format.ErrEncrypted)
		}
	}
	if !a.Has("content.xml") {
		if a.Has("mimetype") && a.Has("styles.xml") {
			return fmt.Errorf("%w: the package has styles but no content.xml (a styles-only template)", format.ErrNoText)
		}
		return fmt.Errorf("%w: no content.xml: not an OpenDocument package (a flat .fodt is not supported)", format.ErrMalformed)
	}
	return nil
}

// content walks content.xml and reads the first body it meets (text,
// spreadsheet or presentation, at depth 3), setting doc.body to its kind;
// styles, fonts and scripts are skipped.
func (doc *document) content(d *zipdoc.Decoder) error {
	for {
		t, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("content.xml: %w", err)
		}
		s, ok := t.(xml.StartElement)
		if !ok {
			continue
		}
		switch s.Name.Local {
		case "text":
			if doc.body == "" && d.Depth() == 3 {
				doc.body = "text"
				if err := doc.blocks(d, 0); err != nil {
					return fmt.Errorf("content.xml: %w", err)
				}
			}
		case "spreadsheet":
			if doc.body == "" && d.Depth() == 3 {
				doc.body = "spreadsheet"
				doc.sheets = []*sheet.Sheet{}
				if err := doc.spreadsheet(d); err != nil {
					return fmt.Errorf("content.xml: %w", err)
				}
			}
		case "presentation", "drawing":
			if doc.body == "" && d.Depth() == 3 {
				doc.body = "presentation"
				if err := doc.presentation(d); err != nil {
					return fmt.Errorf("content.xml: %w", err)
				}
			}
		case "automatic-styles", "font-face-decls", "scripts":
			if err := d.Skip(); err != nil {
				return err
			}
		}
	}
}

// footnoteParts writes the footnotes gathered while reading, after the
// body, one part each.
func (doc *document) footnoteParts() error {
	for i, n := range doc.notes {
		num := strconv.Itoa(i + 1)
		if _, err := doc.b.PartIndexed("footnote", i+1, "footnote "+num, "footnote="+num, "[^"+num+"]: "+n); err != nil {
			return err
		}
	}
	return nil
}

// blocks reads the children of a text container (office:text, a section,
// a list item) up to its end, writing paragraphs, headings, lists and
// tables; list is the list nesting depth.
func (doc *document) blocks(d *zipdoc.Decoder, list int) error {
	return d.Children(func(tok xml.Token) error {
		t, ok := tok.(xml.StartElement)
		if !ok {
			return nil
		}
		switch t.Name.Local {
		case "h":
			return doc.paragraph(d, list, outlineLevel(t))
		case "p":
			return doc.paragraph(d, list, 0)
		case "list":
			return doc.blocks(d, list+1)
		case "table":
			return doc.tablePart(d)
		case "section":
			// A hidden section (text:display="none") is not shown: left out.
			if v, _ := zipdoc.Attr(t, "display"); v == "none" {
				return d.Skip()
			}
		case "list-item", "list-header", "index-body", "table-of-content", "alphabetical-index",
			"illustration-index", "user-index", "bibliography", "change", "frame", "text-box", "g":
			// Containers: their children are blocks at the same level.
		case "tracked-changes", "sequence-decls", "variable-decls", "user-field-decls", "forms",
			"index-title-template", "table-of-content-source", "alphabetical-index-source", "annotation":
			return d.Skip()
		}
		return nil
	})
}

// outlineLevel is a text:h's outline level: 1 when absent or not a
// positive number.
func outlineLevel(t xml.StartElement) int {
	if v, ok := zipdoc.Attr(t, "outline-level"); ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return n
		}
	}
	return 1
}

// paragraph writes a text:p (level 0) as a paragraph part, or a text:h
// (level 1 and up) as a section and a Markdown heading; inside a list,
// either is a list item. An empty one writes nothing.
func (doc *document) paragraph(d *zipdoc.Decoder, list, level int) error {
	text, err := doc.inline(d)
	if err != nil {
		return err
	}
	if text == "" {
		return nil
	}
	if list > 0 {
		return doc.item(list, text)
	}
	if level > 0 {
		doc.b.Section(text, level)
		text = mdtext.Heading(level, text)
	}
	_, err = doc.b.Part("paragraph", "paragraph %d", "para=%d", text)
	return err
}

// tablePart writes a table:table as a Markdown table part; a table with
// no text writes nothing.
func (doc *document) tablePart(d *zipdoc.Decoder) error {
	rows, err := doc.table(d)
	if err != nil {
		return err
	}
	if tb := mdtext.Table(rows); tb != "" {
		if _, err := doc.b.Part("table", "table %d", "table=%d", tb); err != nil {
			return err
		}
	}
	return nil
}

// item writes one list item's paragraph.
func (doc *document) item(list int, text string) error {
	_, err := doc.b.Part("paragraph", "paragraph %d", "para=%d", strings.Repeat("  ", list-1)+"- "+text)
	return err
}

// inline reads a paragraph's or heading's text up to its end: spans, links,
// spaces (text:s), tabs, line breaks; a note's body becomes a footnote and
// a [^N] marker; annotations are left out; paragraphs nested in frames add
// their text after a space.
func (doc *document) inline(d *zipdoc.Decoder) (string, error) {
	var sb strings.Builder
	err := d.Children(func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.CharData:
			sb.Write(t)
		case xml.StartElement:
			switch t.Name.Local {
			case "s":
				n := 1
				if v, ok := zipdoc.Attr(t, "c"); ok {
					if c, err := strconv.Atoi(v); err == nil && c > 0 {
						n = min(c, 64)
					}
				}
				sb.WriteString(strings.Repeat(" ", n))
			case "tab":
				sb.WriteByte('\t')
			case "line-break":
				sb.WriteByte('\n')
			case "p", "h":
				sb.WriteByte(' ')
			case "note":
				body, err := doc.note(d)
				if err != nil {
					return err
				}
				doc.notes = append(doc.notes, body)
				sb.WriteString("[^" + strconv.Itoa(len(doc.notes)) + "]")
			case "annotation", "note-citation", "title", "desc":
				if err := d.Skip(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(mdtext.Space(sb.String())), nil
}

// note reads a text:note's body (its citation mark is left to the [^N]
// marker).
func (doc *document) note(d *zipdoc.Decoder) (string, error) {
	var parts []string
	err := d.Children(func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "note-citation":
				if err := d.Skip(); err != nil {
					return err
				}
			case "p", "h":
				s, err := doc.inline(d)
				if err != nil {
					return err
				}
				if s != "" {
					parts = append(parts, s)
				}
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return strings.Join(parts, " "), nil
}

// table reads a text table's rows (header rows included); a cell's
// paragraphs are joined with a space.
func (doc *document) table(d *zipdoc.Decoder) ([][]string, error) {
	var rows [][]string
	var row []string
	var cell []string
	err := d.Children(func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.EndElement:
			switch {
			case t.Name.Local == "table-row":
				rows = append(rows, row)
				row = nil
			case t.Name.Local == "table-cell" || t.Name.Local == "covered-table-cell":
				row = append(row, strings.Join(cell, " "))
				cell = nil
			}
		case xml.StartElement:
			switch t.Name.Local {
			case "p", "h":
				s, err := doc.inline(d)
				if err != nil {
					return err
				}
				if s != "" {
					cell = append(cell, s)
				}
			case "table-columns", "table-column", "annotation":
				if err := d.Skip(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}
