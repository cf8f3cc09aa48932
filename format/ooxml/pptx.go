package ooxml

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/internal/mdtext"
	"github.com/retrieve-dev/retrieve/format/internal/zipdoc"
)

// PPTX returns the PowerPoint deck extractor.
func PPTX() format.Extractor { return pptx{} }

type pptx struct{}

var _ format.Extractor = pptx{}

// AssumeNotes is stated when a deck has speaker notes.
const AssumeNotes = "speaker notes are their own parts (notes=N, after slide N), marked \"Notes:\""

// Info describes PPTX: extensions, media types, a sniffer of ppt/ members.
func (pptx) Info() format.Info {
	return format.Info{
		Name: "pptx", Extractor: Extractor, Version: Version,
		MediaTypes: []string{"application/vnd.openxmlformats-officedocument.presentationml.presentation", "application/vnd.ms-powerpoint.presentation.macroenabled.12"},
		Extensions: []string{".pptx", ".pptm"},
		Sniff:      func(head []byte) bool { return sniffOOXML(head, "ppt/") },
	}
}

// Extract gives the slides in presentation order, each followed by its notes.
func (pptx) Extract(ctx context.Context, r io.ReaderAt, size int64, opts format.Options) (*format.Text, error) {
	lim := opts.Limits.WithDefaults()
	p, err := open(ctx, r, size, lim, "presentation", "PowerPoint deck")
	if err != nil {
		return nil, wrapf("pptx", err)
	}
	var slides []string
	err = p.walk(ctx, p.main, func(d *zipdoc.Decoder, t xml.Token) error {
		s, ok := t.(xml.StartElement)
		if !ok {
			return nil
		}
		switch s.Name.Local {
		case "sldId":
			id := zipdoc.AttrNS(s, "http://schemas.openxmlformats.org/officeDocument/2006/relationships", "id")
			if id == "" {
				id = zipdoc.AttrNS(s, "http://purl.oclc.org/ooxml/officeDocument/relationships", "id")
			}
			rel, ok := p.rels[id]
			if !ok {
				return fmt.Errorf("%w: slide relationship %q missing", format.ErrMalformed, id)
			}
			name, ok := p.a.Member(p.main, rel)
			if !ok {
				return fmt.Errorf("%w: slide %q is not in the package", format.ErrMalformed, rel.Target)
			}
			if len(slides) >= lim.MaxParts {
				return fmt.Errorf("%w: more than %d slides", format.ErrTooLarge, lim.MaxParts)
			}
			slides = append(slides, name)
		case "sldIdLst":
		case "notesMasterIdLst", "handoutMasterIdLst", "sldMasterIdLst":
			return d.Skip()
		default:
			if len(slides) > 0 {
				return errStop // past the list
			}
		}
		return nil
	})
	if err != nil {
		return nil, wrapf("pptx", err)
	}
	b := mdtext.New(lim)
	notes := 0
	for i, name := range slides {
		n := i + 1
		sl, err := p.readSlide(ctx, name)
		if err != nil {
			return nil, wrapf("pptx", err)
		}
		if block, title := slideBlock(n, sl.title, sl.blocks); block != "" {
			b.Section(title, 1)
			if _, err := b.PartIndexed("slide", n, title, "slide="+strconv.Itoa(n), block); err != nil {
				return nil, wrapf("pptx", err)
			}
		}
		rels, err := p.a.Rels(name)
		if err != nil {
			return nil, wrapf("pptx", err)
		}
		if nm := p.related(rels, name, "/notesSlide"); nm != "" {
			ns, err := p.readSlide(ctx, nm)
			if err != nil {
				return nil, wrapf("pptx", err)
			}
			if len(ns.notes) > 0 {
				notes++
				text := "Notes:\n\n" + strings.Join(ns.notes, "\n")
				if _, err := b.PartIndexed("notes", n, "notes of slide "+strconv.Itoa(n), "notes="+strconv.Itoa(n), text); err != nil {
					return nil, wrapf("pptx", err)
				}
			}
		}
	}
	t := b.Text()
	if notes > 0 {
		t.Assumptions = append(t.Assumptions, AssumeNotes)
	}
	t.Metadata["slides"] = len(slides)
	return t, nil
}

// slideBlock is a slide's Markdown: its title as a level-1 heading, then
// its blocks. An untitled slide has no heading (no words the slide does
// not hold) and is titled "Slide N" only as a section; a slide without
// text has no part (slide=N is then ErrNoPart). The ODP reader shares the
// rule (package odf).
func slideBlock(n int, title string, blocks []string) (block, section string) {
	var sb strings.Builder
	if title != "" {
		sb.WriteString(mdtext.Heading(1, title) + "\n")
	} else {
		title = "Slide " + strconv.Itoa(n)
	}
	for _, x := range blocks {
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(x + "\n")
	}
	return sb.String(), title
}

// slideText is what a slide (or a notes slide) holds.
type slideText struct {
	title  string
	blocks []string
	// notes are the paragraphs of a notes slide's body placeholder.
	notes []string
}

// readSlide reads a slide's shapes in document order: the title
// placeholder's text becomes the title, other text bodies become blocks
// (one line per paragraph), tables Markdown tables. On a notes slide only
// the body placeholder counts (not the slide image or the number).
func (p *pkg) readSlide(ctx context.Context, name string) (*slideText, error) {
	r := &slideReader{sl: &slideText{}}
	err := p.walk(ctx, name, func(d *zipdoc.Decoder, t xml.Token) error {
		switch t := t.(type) {
		case xml.StartElement:
			return r.start(d, t)
		case xml.CharData:
			if r.inT {
				r.para.Write(t)
			}
		case xml.EndElement:
			r.end(d, t)
		}
		return nil
	})
	return r.sl, err
}

// slideReader is readSlide's state while it walks a slide's XML, kept in
// one place so that opening and closing elements are separate steps.
type slideReader struct {
	sl       *slideText
	ph       string // the placeholder type of the current shape
	shape    []string
	para     strings.Builder
	inT      bool
	spDepth  int
	rows     [][]string
	row      []string
	cell     strings.Builder
	tblDepth int
}

// start handles an opening element: it notes where a shape or table
// begins and resets the paragraph, row or cell it opens.
func (r *slideReader) start(d *zipdoc.Decoder, t xml.StartElement) error {
	switch t.Name.Local {
	case "sp":
		if r.spDepth == 0 {
			r.spDepth = d.Depth()
			r.ph, r.shape = "", nil
		}
	case "ph":
		if r.spDepth > 0 {
			r.ph, _ = zipdoc.Attr(t, "type")
			if r.ph == "" {
				r.ph = "body"
			}
		}
	case "tbl":
		if r.tblDepth == 0 {
			r.tblDepth = d.Depth()
			r.rows = nil
		}
	case "tr":
		r.row = nil
	case "tc":
		r.cell.Reset()
	case "p":
		r.para.Reset()
	case "t":
		r.inT = true
	case "br":
		r.para.WriteByte('\n')
	case "Fallback":
		return d.Skip()
	}
	return nil
}

// end handles a closing element: a paragraph goes to its cell or shape, a
// table or shape that closes goes to the slide.
func (r *slideReader) end(d *zipdoc.Decoder, t xml.EndElement) {
	switch t.Name.Local {
	case "t":
		r.inT = false
	case "p":
		r.endPara()
	case "tc":
		r.row = append(r.row, r.cell.String())
	case "tr":
		r.rows = append(r.rows, r.row)
	case "tbl":
		if d.Depth() < r.tblDepth {
			r.tblDepth = 0
			if tb := mdtext.Table(r.rows); tb != "" {
				r.sl.blocks = append(r.sl.blocks, strings.TrimSuffix(tb, "\n"))
			}
		}
	case "sp":
		if d.Depth() < r.spDepth {
			r.spDepth = 0
			r.endShape()
		}
	}
}

// endPara adds a closed paragraph's text to the table cell it is in, or
// else to the current shape.
func (r *slideReader) endPara() {
	s := strings.TrimSpace(mdtext.Space(r.para.String()))
	switch {
	case s == "":
	case r.tblDepth > 0:
		if r.cell.Len() > 0 {
			r.cell.WriteByte(' ')
		}
		r.cell.WriteString(s)
	default:
		r.shape = append(r.shape, s)
	}
}

// endShape files a closed shape's paragraphs by its placeholder type: the
// first title is the slide's title, furniture is dropped, a body is also
// a note.
func (r *slideReader) endShape() {
	sl, shape, ph := r.sl, r.shape, r.ph
	switch {
	case len(shape) == 0:
	case ph == "title" || ph == "ctrTitle":
		if sl.title == "" {
			sl.title = strings.Join(shape, " ")
		} else {
			sl.blocks = append(sl.blocks, strings.Join(shape, "\n"))
		}
	case ph == "sldNum" || ph == "dt" || ph == "ftr" || ph == "hdr" || ph == "sldImg":
		// Slide furniture: the number, date and footer.
	case ph == "body":
		sl.notes = append(sl.notes, shape...)
		sl.blocks = append(sl.blocks, strings.Join(shape, "\n"))
	default:
		sl.blocks = append(sl.blocks, strings.Join(shape, "\n"))
	}
}
