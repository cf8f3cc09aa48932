// Package ooxml extracts the text of Office Open XML files (ECMA-376):
// Word documents (DOCX), PowerPoint decks (PPTX) and Excel workbooks (XLSX),
// as Markdown cut into addressable parts. It reads the zip package with
// archive/zip and encoding/xml only, streaming each XML part, within
// format.Limits: every member's inflated size and the total are capped,
// nesting is capped, external relationships are never followed, and an
// encrypted file (an OLE compound file holding EncryptionInfo) is
// format.ErrEncrypted.
//
// Parts and fragments (docs/documents.md, "Office files and e-books"):
//
//   - DOCX: one part per non-empty body paragraph (Kind "paragraph",
//     Fragment "para=N", N counting the paragraphs that hold text, in body
//     order, list items and headings included, paragraphs inside tables not)
//     and one per table (Kind "table", Fragment "table=N"). Headings
//     (Heading 1…9 and Title styles, or an outline level) are Markdown
//     headings and Sections; list items start with "- " or "1. ", indented
//     by level; tables are Markdown tables (first row as header). Footnotes
//     and endnotes are marked [^N] where they are cited and follow the body
//     as parts of Kind "footnote" (Fragment "footnote=N"); comments and
//     deleted text are left out; inserted text is kept (changes accepted).
//   - PPTX: one part per slide in presentation order (presentation.xml's
//     sldIdLst, not file names): Kind "slide", Fragment "slide=N", the
//     title placeholder as a level-1 heading and a Section (an untitled
//     slide has no heading line, its Section is "Slide N"; a slide without
//     text has no part); text boxes in document order, tables as Markdown
//     tables. Speaker notes are their own
//     part right after their slide: Kind "notes", Fragment "notes=N" with N
//     the slide's number (so Index is the slide's, not a count of notes),
//     starting with "Notes:".
//   - XLSX: one part per worksheet (Kind "sheet", Fragment the sheet's used
//     range, 'My Sheet'!A1:C20), cells as a Markdown table whose header row
//     holds the column letters and whose first column holds the row numbers.
//     Formulas give their cached values; numbers are the stored values, not
//     formatted; cells whose number format is a date or time are written in
//     ISO 8601. XLSX is a format.Selector: Sheet1!B2:C40, 'My Sheet'!A:C,
//     Sheet1!2:5, or a sheet by name.
package ooxml

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/internal/zipdoc"
)

// Extractor and Version name this implementation in provenance.metadata.
const (
	Extractor = "retrieve/ooxml"
	Version   = "1"
)

// pkg is an opened OOXML package and its main part.
type pkg struct {
	a    *zipdoc.Archive
	main string
	rels map[string]zipdoc.Relationship
}

// open opens the package and finds its main part (the officeDocument
// relationship), checking that its root element is want (document,
// presentation, workbook): a DOCX given as XLSX is ErrUnsupported.
func open(ctx context.Context, r io.ReaderAt, size int64, lim format.Limits, want, kind string) (*pkg, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a, err := zipdoc.Open(ctx, r, size, lim)
	if err != nil {
		return nil, err
	}
	root, err := a.Rels("")
	if err != nil {
		return nil, err
	}
	rel, ok := zipdoc.ByType(root, "/officeDocument")
	if !ok {
		return nil, fmt.Errorf("%w: no officeDocument relationship in _rels/.rels: not an Office Open XML %s", format.ErrMalformed, kind)
	}
	main, ok := a.Member("", rel)
	if !ok {
		return nil, fmt.Errorf("%w: the main part %q is not in the package", format.ErrMalformed, rel.Target)
	}
	got, err := rootElement(ctx, a, main)
	if err != nil {
		return nil, err
	}
	if got != want {
		return nil, fmt.Errorf("%w: the package's main part is a %s, not a %s (%s)", format.ErrUnsupported, got, want, kind)
	}
	rels, err := a.Rels(main)
	if err != nil {
		return nil, err
	}
	return &pkg{a: a, main: main, rels: rels}, nil
}

// rootElement returns the local name of a part's root element.
func rootElement(ctx context.Context, a *zipdoc.Archive, name string) (string, error) {
	rc, err := a.Open(name)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	d := zipdoc.NewDecoder(ctx, rc, a.Limits().MaxDepth)
	for {
		t, err := d.Token()
		if err != nil {
			if err == io.EOF {
				return "", fmt.Errorf("%w: %s is empty", format.ErrMalformed, name)
			}
			return "", fmt.Errorf("%s: %w", name, err)
		}
		if s, ok := t.(xml.StartElement); ok {
			return s.Name.Local, nil
		}
	}
}

// related returns the member of the first relationship of part base whose
// type ends with suffix, or "" when there is none.
func (p *pkg) related(rels map[string]zipdoc.Relationship, base, suffix string) string {
	rel, ok := zipdoc.ByType(rels, suffix)
	if !ok {
		return ""
	}
	name, ok := p.a.Member(base, rel)
	if !ok {
		return ""
	}
	return name
}

// walk streams the tokens of member name to fn until fn returns errStop or
// the part ends.
func (p *pkg) walk(ctx context.Context, name string, fn func(d *zipdoc.Decoder, t xml.Token) error) error {
	rc, err := p.a.Open(name)
	if err != nil {
		return err
	}
	defer rc.Close()
	d := zipdoc.NewDecoder(ctx, rc, p.a.Limits().MaxDepth)
	for {
		t, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := fn(d, t); err != nil {
			if errors.Is(err, errStop) {
				return nil
			}
			return fmt.Errorf("%s: %w", name, err)
		}
	}
}

var errStop = errors.New("stop")

// sniffOOXML reports whether head is a zip whose first members include
// [Content_Types].xml and a member under dir ("word/").
func sniffOOXML(head []byte, dir string) bool {
	if !zipdoc.IsZip(head) {
		return false
	}
	ct, in := false, false
	for _, n := range zipdoc.HeadMembers(head) {
		ct = ct || n == "[Content_Types].xml"
		in = in || strings.HasPrefix(n, dir)
	}
	return ct && in
}

func wrapf(kind string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", kind, zipdoc.Wrap(err))
}
