// Package format is the registry of document formats: one text extractor per
// format (PDF, office files, notebooks…), registered by media type, file
// extension and magic bytes, each turning a document's bytes into UTF-8 text
// cut into addressable parts (pages, slides, sheets, paragraphs, cells) so
// that a citation can name the part it came from and be re-retrieved.
//
// It is a leaf package: the standard library only. Each format is its own
// package under format/ and one line in format/formats; every format passes
// format/formattest.
package format

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"sync"
)

// Sentinel errors a format returns (wrapped with context). The engine
// translates them to the contract's codes: ErrUnsupported →
// UNSUPPORTED_FORMAT, ErrEncrypted → UNSUPPORTED_FORMAT with a hint,
// ErrNoText → UNSUPPORTED_FORMAT (a scan without a text layer), ErrTooLarge →
// TOO_LARGE, ErrMalformed → PARSE_FAILED, ErrNoPart → INPUT_VALIDATION_FAILED
// (a page, slide or range the document does not have).
var (
	ErrUnsupported = errors.New("format: unsupported document")
	ErrEncrypted   = errors.New("format: the document is encrypted")
	ErrNoText      = errors.New("format: the document has no text layer")
	ErrTooLarge    = errors.New("format: the document is over a limit")
	ErrMalformed   = errors.New("format: malformed document")
	ErrNoPart      = errors.New("format: no such part")
)

// Limits bound what one extraction may cost; a document over any of them is
// refused with ErrTooLarge (never cut silently). Zero fields take the
// defaults of DefaultLimits.
type Limits struct {
	// MaxInput is the largest document, in bytes, an extractor reads.
	MaxInput int64
	// MaxText is the most text, in bytes, an extraction produces.
	MaxText int64
	// MaxInflated is the most bytes any one compressed part (a zip member,
	// a PDF stream) may inflate to.
	MaxInflated int64
	// MaxParts is the most parts (pages, slides, sheets…) a document may have.
	MaxParts int
	// MaxDepth is the deepest nesting of objects (PDF object graphs, XML
	// elements) an extractor follows.
	MaxDepth int
}

// DefaultLimits are the documented limits (docs/CONTRACT.md, docs/SECURITY.md).
var DefaultLimits = Limits{
	MaxInput:    256 << 20,
	MaxText:     64 << 20,
	MaxInflated: 256 << 20,
	MaxParts:    10000,
	MaxDepth:    64,
}

// WithDefaults returns l with every zero field set from DefaultLimits.
func (l Limits) WithDefaults() Limits {
	if l.MaxInput <= 0 {
		l.MaxInput = DefaultLimits.MaxInput
	}
	if l.MaxText <= 0 {
		l.MaxText = DefaultLimits.MaxText
	}
	if l.MaxInflated <= 0 {
		l.MaxInflated = DefaultLimits.MaxInflated
	}
	if l.MaxParts <= 0 {
		l.MaxParts = DefaultLimits.MaxParts
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultLimits.MaxDepth
	}
	return l
}

// Options are what the caller asks of one extraction.
type Options struct {
	// Limits bound the cost; zero fields take DefaultLimits.
	Limits Limits
	// Parts, when not empty, are the only parts to extract, by their 1-based
	// index among the document's parts of the main kind (pages of a PDF,
	// slides of a deck). An extractor that can skip the others does (a PDF
	// page is parsed only when asked); one that cannot extracts all and the
	// caller selects. A document without parts (plain text, Markdown)
	// refuses any with ErrNoPart, as does an index past the last part.
	Parts []Range
	// Whole asks for the whole document where the format otherwise picks
	// its main content by a heuristic (HTML: readability); it is --raw.
	Whole bool
}

// Range is an inclusive 1-based range of part indexes.
type Range struct{ From, To int }

// Text is what an extraction gives: the document's text and how it is cut.
type Text struct {
	// Text is the extracted UTF-8 text, parts in document order, each part
	// ending with a newline.
	Text string
	// Format is what Text is: "markdown" (headings, tables as Markdown) or
	// "text".
	Format string
	// Parts cut Text into the document's addressable parts, in order and
	// without overlap. Every part has a Fragment that re-retrieves it.
	Parts []Part
	// Sections are the document's outline (PDF bookmarks, DOCX headings,
	// EPUB chapters), in order; --section selects by title.
	Sections []Section
	// Assumptions are facts the reader must know (speaker notes marked,
	// formulas give cached values, reading order from a layout pass).
	Assumptions []string
	// Deductions lower the confidence of what was extracted, each with an
	// assumption that explains it (layout heuristics).
	Deductions []Deduction
	// Metadata goes to provenance.metadata (page count, producer, …).
	Metadata map[string]any
}

// Part is one addressable part of a document.
type Part struct {
	// Kind names what the part is: page, slide, notes, sheet, paragraph,
	// table, chapter, cell.
	Kind string
	// Index is the part's 1-based position among the parts of its Kind.
	Index int
	// Label is a human name for it ("3", "Sheet1", "Introduction").
	Label string
	// Fragment is the part's fragment identifier, the part of a reference
	// after "#": "page=3" (RFC 8118), "slide=2", "Sheet1!A1:D20",
	// "cell=4". A reference <locator>#<Fragment> retrieves exactly Text[Start:End].
	Fragment string
	// Start and End are byte offsets of the part in Text.
	Start, End int
	// Boxes place spans of the part's text on the page, when the format has
	// geometry (PDF).
	Boxes []Box
}

// Box is a span of Text placed on a page: PDF user-space points (1/72 inch,
// origin at the bottom left of the page's media box, y up).
type Box struct {
	// Start and End are byte offsets in Text.
	Start, End int
	// X0, Y0, X1, Y1 are the lower-left and upper-right corners.
	X0, Y0, X1, Y1 float64
}

// Section is one entry of a document's outline.
type Section struct {
	Title string
	// Level is the depth, 1 for top-level entries.
	Level int
	// Start and End are byte offsets in Text (End is where the next section
	// of the same or a higher level starts).
	Start, End int
}

// Deduction lowers confidence by Amount (0..1) for Reason.
type Deduction struct {
	Reason string
	Amount float64
}

// Info describes a format.
type Info struct {
	// Name is the format's name as it shows in retrieved.format before
	// extraction and in the error that lists supported formats: pdf, docx.
	Name string
	// Extractor and Version name the implementation; both are recorded in
	// provenance.metadata so that a verification knows what extracted.
	Extractor, Version string
	// MediaTypes and Extensions (with the dot, lower case) select the format.
	MediaTypes []string
	Extensions []string
	// Sniff, when not nil, recognises the format from the first bytes of a
	// document (up to 8 KiB) whatever its name.
	Sniff func(head []byte) bool
	// Stream reports that the document is its own text (plain text,
	// Markdown, code, JSON, CSV…): the engine streams it through its line,
	// section and structured stages instead of reading it whole to extract
	// it. Its extractor still validates and cuts the text for other callers.
	Stream bool
}

// Extractor turns a document of one format into Text. Extract must be safe
// for concurrent use, read nothing but r (no file, no network: an external
// link in a document is never followed), honour ctx, and stay within
// opts.Limits, returning one of the sentinel errors above (wrapped) when it
// cannot.
type Extractor interface {
	Info() Info
	Extract(ctx context.Context, r io.ReaderAt, size int64, opts Options) (*Text, error)
}

// Selector is an optional interface of an Extractor whose documents have
// addressable ranges finer than parts: a spreadsheet's A1 ranges
// (Sheet1!B2:C40, 'My Sheet'!A:C, a whole sheet by name). Select returns
// just what expr names, as one part whose Fragment is the normalized form of
// expr (a reference <locator>#<Fragment> selects it again); an expr the
// document does not have is ErrNoPart. An Extractor without it supports
// only whole parts, selected by Fragment from Extract's Text.
type Selector interface {
	Select(ctx context.Context, r io.ReaderAt, size int64, expr string, opts Options) (*Text, error)
}

// Registry holds formats by name, extension, media type and magic.
type Registry struct {
	mu     sync.RWMutex
	byName map[string]Extractor
	byExt  map[string]Extractor
	byType map[string]Extractor
	order  []Extractor
}

// NewRegistry returns a registry holding fs.
func NewRegistry(fs ...Extractor) *Registry {
	r := &Registry{byName: map[string]Extractor{}, byExt: map[string]Extractor{}, byType: map[string]Extractor{}}
	for _, f := range fs {
		r.Register(f)
	}
	return r
}

// Register adds f. It panics when f's name, an extension or a media type is
// already registered: the list is written once, in format/formats.
func (r *Registry) Register(f Extractor) {
	r.mu.Lock()
	defer r.mu.Unlock()
	in := f.Info()
	if in.Name == "" {
		panic("format: register a format without a name")
	}
	if _, dup := r.byName[in.Name]; dup {
		panic(fmt.Sprintf("format: %s registered twice", in.Name))
	}
	r.byName[in.Name] = f
	for _, e := range in.Extensions {
		e = strings.ToLower(e)
		if _, dup := r.byExt[e]; dup {
			panic(fmt.Sprintf("format: extension %s registered twice", e))
		}
		r.byExt[e] = f
	}
	for _, t := range in.MediaTypes {
		if _, dup := r.byType[t]; dup {
			panic(fmt.Sprintf("format: media type %s registered twice", t))
		}
		r.byType[t] = f
	}
	r.order = append(r.order, f)
}

// Lookup returns the format named name.
func (r *Registry) Lookup(name string) (Extractor, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	f, ok := r.byName[name]
	return f, ok
}

// ForMediaType returns the format of a media type ("application/pdf";
// parameters are ignored).
func (r *Registry) ForMediaType(mediaType string) (Extractor, bool) {
	mt, _, _ := strings.Cut(mediaType, ";")
	r.mu.RLock()
	defer r.mu.RUnlock()
	f, ok := r.byType[strings.ToLower(strings.TrimSpace(mt))]
	return f, ok
}

// Detect returns the format of a document from its magic bytes, then its
// name's extension; ok is false when no registered format claims it.
func (r *Registry) Detect(name string, head []byte) (Extractor, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, f := range r.order {
		if s := f.Info().Sniff; s != nil && s(head) {
			return f, true
		}
	}
	f, ok := r.byExt[strings.ToLower(path.Ext(name))]
	return f, ok
}

// Names lists the registered formats, sorted: the list an
// UNSUPPORTED_FORMAT error gives.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.byName))
	for n := range r.byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ReadAll reads a whole document of size bytes from r for an extractor that
// needs it in memory, refusing one over lim.MaxInput with ErrTooLarge
// before reading a byte, and honouring ctx.
func ReadAll(ctx context.Context, r io.ReaderAt, size int64, lim Limits) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lim = lim.WithDefaults()
	if size < 0 {
		return nil, fmt.Errorf("%w: unknown size", ErrMalformed)
	}
	if size > lim.MaxInput {
		return nil, fmt.Errorf("%w: the document is %d bytes, over the %d-byte input limit", ErrTooLarge, size, lim.MaxInput)
	}
	b := make([]byte, size)
	n, err := r.ReadAt(b, 0)
	if err != nil && !(errors.Is(err, io.EOF) && int64(n) == size) {
		return nil, fmt.Errorf("read the document: %w", err)
	}
	return b, nil
}

// CheckText refuses n bytes of extracted text over l.MaxText with
// ErrTooLarge.
func (l Limits) CheckText(n int) error {
	if max := l.WithDefaults().MaxText; int64(n) > max {
		return fmt.Errorf("%w: the text is over the %d-byte text limit", ErrTooLarge, max)
	}
	return nil
}

// SelectParts returns the parts of t that ranges name, by their index among
// the parts of the main kind (the first part's kind), with the parts of
// other kinds that lie between them (a slide's notes follow their slide):
// the text, parts, boxes and sections are cut and rebased to the new text.
// It is how an extractor that cannot skip parts honours Options.Parts. An
// index past the last part, or any index of a document without parts, is
// ErrNoPart.
func SelectParts(t *Text, ranges []Range) (*Text, error) {
	if len(ranges) == 0 {
		return t, nil
	}
	if len(t.Parts) == 0 {
		return nil, fmt.Errorf("%w: the document has no parts", ErrNoPart)
	}
	main := t.Parts[0].Kind
	last := 0
	for _, p := range t.Parts {
		if p.Kind == main {
			last = max(last, p.Index)
		}
	}
	for _, r := range ranges {
		if r.From < 1 || r.To < r.From {
			return nil, fmt.Errorf("%w: %s range %d-%d", ErrNoPart, main, r.From, r.To)
		}
		if r.To > last {
			return nil, fmt.Errorf("%w: %s %d asked, the document has %d", ErrNoPart, main, r.To, last)
		}
	}
	in := func(i int) bool {
		for _, r := range ranges {
			if i >= r.From && i <= r.To {
				return true
			}
		}
		return false
	}
	out := &Text{Format: t.Format, Assumptions: t.Assumptions, Deductions: t.Deductions, Metadata: t.Metadata}
	var b strings.Builder
	keep := false
	for _, p := range t.Parts {
		if p.Kind == main {
			keep = in(p.Index)
		}
		if !keep {
			continue
		}
		shift := b.Len() - p.Start
		b.WriteString(t.Text[p.Start:p.End])
		q := p
		q.Start, q.End = p.Start+shift, p.End+shift
		q.Boxes = nil
		for _, bx := range p.Boxes {
			bx.Start += shift
			bx.End += shift
			q.Boxes = append(q.Boxes, bx)
		}
		out.Parts = append(out.Parts, q)
		for _, s := range t.Sections {
			if s.Start >= p.Start && s.Start < p.End {
				s.Start += shift
				s.End = min(s.End, p.End) + shift
				out.Sections = append(out.Sections, s)
			}
		}
	}
	if len(out.Parts) == 0 {
		// Every range fell in a gap of the numbering (an empty slide, an
		// EPUB spine item without text): no part, never an empty text.
		return nil, fmt.Errorf("%w: no %s in %v", ErrNoPart, main, ranges)
	}
	out.Text = b.String()
	return out, nil
}
