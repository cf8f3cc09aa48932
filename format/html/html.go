package html

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/text"
)

// Version is the version of the HTML extractor, recorded in provenance.
const Version = "1"

// Assumptions and the deduction of a readability conversion: the web
// source and the html format say the same.
const (
	ReadabilityAssumption = "The main content was chosen by readability (a heuristic) and converted to Markdown; --raw gives the whole page, --format html the HTML"
	FallbackAssumption    = "No main content was found by readability; the whole page was converted to Markdown"
	WholeAssumption       = "The whole page was converted to Markdown (--raw)"
	// HeuristicDeduction is what a readability choice costs in confidence.
	HeuristicDeduction = 0.05
)

// Format is HTML as a document format: an HTML file becomes Markdown, the
// same as a web page, its headings the sections.
type Format struct{}

var (
	_ format.Extractor = Format{}
	_ format.Selector  = Format{}
)

// New returns the HTML format.
func New() Format { return Format{} }

// Info describes the format.
func (Format) Info() format.Info {
	return format.Info{
		Name: "html", Extractor: "retrieve/format/html", Version: Version,
		MediaTypes: []string{"text/html", "application/xhtml+xml"},
		Extensions: []string{".html", ".htm", ".xhtml"},
	}
}

// Extract converts the document to Markdown: its main content by
// readability, or the whole page with opts.Whole.
func (f Format) Extract(ctx context.Context, r io.ReaderAt, size int64, opts format.Options) (*format.Text, error) {
	return f.convert(ctx, r, size, "", opts)
}

// Select converts the elements a CSS selector matches; none matched is
// ErrNoPart, a selector that does not parse ErrMalformed. Unlike a
// spreadsheet's range, a CSS selection has no fragment form: the text has no
// part, and the selector stays in the result's applied filters, as for a
// web page.
func (f Format) Select(ctx context.Context, r io.ReaderAt, size int64, expr string, opts format.Options) (*format.Text, error) {
	if expr == "" {
		return nil, fmt.Errorf("%w: an empty CSS selector", format.ErrMalformed)
	}
	return f.convert(ctx, r, size, expr, opts)
}

func (Format) convert(ctx context.Context, r io.ReaderAt, size int64, selector string, opts format.Options) (*format.Text, error) {
	src, err := format.ReadAll(ctx, r, size, opts.Limits)
	if err != nil {
		return nil, err
	}
	if len(opts.Parts) > 0 {
		return nil, fmt.Errorf("%w: an HTML document has no parts; cite it by lines or --section", format.ErrNoPart)
	}
	if bytes.IndexByte(src, 0) >= 0 {
		return nil, fmt.Errorf("%w: NUL bytes: not HTML text", format.ErrUnsupported)
	}
	b, enc, err := Decode(src, "")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", format.ErrMalformed, err)
	}
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("%w: the bytes are not text in any encoding the page declares", format.ErrUnsupported)
	}
	page, err := Convert(b, nil, opts.Whole, selector)
	if err != nil {
		var se *ErrSelector
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%w: %v", format.ErrMalformed, err)
		}
		return nil, fmt.Errorf("%w: convert to Markdown: %v", format.ErrMalformed, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := opts.Limits.CheckText(len(page.Markdown)); err != nil {
		return nil, err
	}
	t := &format.Text{Text: page.Markdown, Format: "markdown", Metadata: page.Meta}
	if t.Metadata == nil {
		t.Metadata = map[string]any{}
	}
	if enc != "" {
		t.Metadata["encoding"] = enc
		t.Assumptions = append(t.Assumptions, fmt.Sprintf("Converted from %s to UTF-8", enc))
	}
	conv := page.Mode
	switch {
	case page.Mode == "select":
		t.Metadata["matches"] = page.Matches
		t.Assumptions = append(t.Assumptions, fmt.Sprintf("The CSS selector %q matched %d element(s), converted to Markdown", selector, page.Matches))
		if page.Matches == 0 {
			return nil, fmt.Errorf("%w: the CSS selector %q matched nothing", format.ErrNoPart, selector)
		}
	case page.Mode == "raw":
		t.Assumptions = append(t.Assumptions, WholeAssumption)
	case page.Fallback:
		conv = "readability-fallback"
		t.Assumptions = append(t.Assumptions, FallbackAssumption)
		t.Deductions = append(t.Deductions, format.Deduction{Reason: "heuristic extraction", Amount: HeuristicDeduction})
	default:
		t.Assumptions = append(t.Assumptions, ReadabilityAssumption)
		t.Deductions = append(t.Deductions, format.Deduction{Reason: "heuristic extraction", Amount: HeuristicDeduction})
	}
	t.Metadata["conversion"] = conv
	t.Sections = text.MarkdownSections([]byte(t.Text))
	return t, nil
}
