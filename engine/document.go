package engine

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/extract"
	"github.com/retrieve-dev/retrieve/format"
)

// formatTranslations is the table of the format registry's sentinel
// errors (docs/documents.md, "Limits and errors").
var formatTranslations = [...]retrieve.Translation{
	{Sentinel: format.ErrEncrypted, Code: retrieve.CodeUnsupportedFormat, Hint: "the document is encrypted: decrypt it (qpdf --decrypt in.pdf out.pdf, or save it without a password) and retrieve the copy; --format binary returns its bytes"},
	{Sentinel: format.ErrNoText, Code: retrieve.CodeUnsupportedFormat, Hint: "the document has no text layer (a scan): run OCR on it (ocrmypdf in.pdf out.pdf) and retrieve the result; --format binary returns its bytes"},
	{Sentinel: format.ErrUnsupported, Code: retrieve.CodeUnsupportedFormat, Hint: "this variant of the format is not read; --format binary returns its bytes, and alternatives lists the formats with text"},
	{Sentinel: format.ErrTooLarge, Code: retrieve.CodeTooLarge, Hint: "the document is over a documented limit (docs/documents.md); select fewer pages with --pages"},
	{Sentinel: format.ErrMalformed, Code: retrieve.CodeParseFailed, Hint: "the document is damaged or truncated; --format binary returns its bytes and its hash"},
	{Sentinel: format.ErrNoPart, Code: retrieve.CodeInputValidation, Hint: "ask for pages or parts the document has; the message says how many it has"},
}

// documentFormat returns the registered format that extracts doc, when the
// request asks for its text: a document that is not its own text (PDF,
// office files, notebooks, HTML on disk), or the parts of a document that is
// its own text (--pages on JSON Lines). A request for the raw bytes
// (--format binary, --format html), for parsed data (--format json…), or
// a jq --select the format cannot take keeps the stream path.
func (e *Engine) documentFormat(req *retrieve.Request, doc *retrieve.Document, head []byte) (format.Extractor, bool) {
	if e.formats == nil || (doc.Format != "" && doc.Format != "binary") {
		return nil, false
	}
	switch req.Format {
	case "", "text", "markdown":
	default:
		return nil, false
	}
	ex, ok := e.formats.Detect(doc.Name, head)
	if !ok || (ex.Info().Stream && req.Constraints.Pages == "") {
		// A document that is its own text is streamed, unless its parts are
		// asked for (the records of JSON Lines).
		return nil, false
	}
	if req.Constraints.Select != "" {
		if _, ok := ex.(format.Selector); !ok {
			return nil, false
		}
	}
	return ex, true
}

// formatNames lists the formats with text, for an UNSUPPORTED_FORMAT error.
func (e *Engine) formatNames() []string {
	if e.formats == nil {
		return nil
	}
	return e.formats.Names()
}

// documentText reads a document whole (bounded by the format limits'
// MaxInput), extracts its text with ex, and applies the request's
// constraints to the text: --pages through the extractor, then --section
// (its outline) and --lines within what the pages gave.
func (e *Engine) documentText(ctx context.Context, req *retrieve.Request, doc *retrieve.Document, br *bufio.Reader, hasher *streamHasher, sp *spool, ex format.Extractor, out *outcome, drain func(io.Reader)) (*outcome, error) {
	c := req.Constraints
	info := ex.Info()
	lim := e.formatLimits.WithDefaults()
	src, err := readDocument(ctx, doc, br, hasher, sp, lim.MaxInput, info.Name, out, drain)
	if err != nil {
		return nil, err
	}
	kind, pages, err := parsePages(c.Pages)
	if err != nil {
		return nil, err
	}
	txt, err := extractParts(ctx, ex, src, c, lim, pages)
	if err != nil {
		return nil, e.formatError(err, doc, info)
	}
	mainKind, key, err := checkPartKind(doc, info, txt, kind, pages)
	if err != nil {
		return nil, err
	}
	ranges, err := documentLines(txt, c)
	if err != nil {
		return nil, err
	}
	sel, err := e.documentSelect(req, txt.Text, ranges, out)
	if err != nil {
		return nil, err
	}
	out.format = txt.Format
	if !out.byteSpans {
		out.wanted = ranges
	}
	out.spans = sel.Spans
	out.complete = sel.ReturnedAll && len(pages) == 0 && c.Select == ""
	out.truncated = sel.Truncated
	out.cutMidLine = sel.CutMidLine
	e.describeDocument(req, out, sel, txt, info, mainKind)
	base := doc.Locator
	switch {
	case c.Select != "" && len(txt.Parts) == 1 && txt.Parts[0].Fragment != "":
		// A range a Selector names (book.xlsx#Sheet1!B2:C40).
		base += "#" + txt.Parts[0].Fragment
	case c.Select != "" && len(pages) == 0:
		// A selector of the format (CSS on an HTML file): the reference
		// selects it again (page.html#select=article%20h2).
		base += "#select=" + escapeSelect(c.Select)
	case len(pages) > 0:
		base += "#" + key + "=" + formatPages(closeRanges(pages, txt))
	}
	out.partBase = base
	// Lines name what was returned when lines were asked for or max_bytes
	// cut the text; bytes of the parts' text (or of its lines) are cited
	// as such (report.pdf#page=3#bytes=0-99), by references.
	if out.byteSpans {
		out.bytesBase = base
		if ranges != nil {
			out.bytesBase += ":" + extract.FormatRanges(ranges)
		}
	} else {
		out.reference, out.anchors = documentAnchors(doc, txt, base, sel, ranges != nil || sel.Truncated)
	}
	out.dataBytes = sel.Data
	out.data = bytesToString(sel.Data)
	return out, nil
}

// documentSelect selects the lines of a document's text, or with --bytes
// the byte ranges of that text (of the lines' text when lines or sections
// were asked), up to max_bytes.
func (e *Engine) documentSelect(req *retrieve.Request, text string, ranges []extract.Range, out *outcome) (*extract.LinesResult, error) {
	limit := e.maxBytesFor(req)
	if req.Constraints.Bytes == "" {
		return extract.Lines(strings.NewReader(text), ranges, limit)
	}
	br, err := extract.ParseByteRanges(req.Constraints.Bytes)
	if err != nil {
		return nil, err
	}
	var src io.Reader = strings.NewReader(text)
	if ranges != nil {
		lines, err := extract.LinesText(src, ranges, int64(len(text))+1)
		if err != nil {
			return nil, err
		}
		src = bytes.NewReader(lines.Data)
	}
	sel, err := extract.Bytes(src, br, limit)
	if err != nil {
		return nil, err
	}
	if sel.Truncated {
		trimPartialRune(sel)
	}
	out.byteSpans = true
	out.wanted = br
	sel.ReturnedAll = false
	return sel, nil
}

// extractParts extracts the text of src with ex: the range a Selector
// names when --select is given, else the asked parts (all when none), which
// the engine selects itself from an extractor that cannot skip parts.
func extractParts(ctx context.Context, ex format.Extractor, src []byte, c retrieve.Constraints, lim format.Limits, pages []format.Range) (*format.Text, error) {
	opts := format.Options{Limits: lim, Whole: c.Raw}
	open := false
	for _, p := range pages {
		open = open || p.To == 0
	}
	if !open {
		opts.Parts = pages
	}
	var txt *format.Text
	var err error
	if c.Select != "" {
		txt, err = ex.(format.Selector).Select(ctx, bytes.NewReader(src), int64(len(src)), c.Select, opts)
	} else {
		txt, err = ex.Extract(ctx, bytes.NewReader(src), int64(len(src)), opts)
	}
	if err == nil && len(pages) > 0 {
		// An extractor that cannot skip parts returned them all: the
		// caller selects (format.Options.Parts).
		txt, err = format.SelectParts(txt, closeRanges(pages, txt))
	}
	return txt, err
}

// checkPartKind returns the kind of txt's parts and their fragment key, and
// refuses parts asked by another kind (#slide=1 of a PDF) or of a document
// without parts.
func checkPartKind(doc *retrieve.Document, info format.Info, txt *format.Text, kind string, pages []format.Range) (mainKind, key string, err error) {
	if len(txt.Parts) > 0 {
		mainKind, key = txt.Parts[0].Kind, partKey(txt.Parts[0])
	}
	if kind != "" && kind != key && kind != mainKind {
		has := "no parts"
		if mainKind != "" {
			has = mainKind + "s"
		}
		return "", "", retrieve.Errorf(retrieve.CodeInputValidation, "%s has no %ss: its parts are %s", doc.Locator, kind, has).
			WithHint("name its parts as its references do (%s#%s=1), or give --pages numbers alone", doc.Locator, cmpOr(key, "page"))
	}
	if len(pages) > 0 && mainKind == "" {
		return "", "", retrieve.Errorf(retrieve.CodeInputValidation, "%s is a %s document without pages or parts", doc.Locator, info.Name).
			WithHint("use --lines or --section on it")
	}
	return mainKind, key, nil
}

// describeDocument adds what the reader must know of an extraction: what
// was cut or clamped, which extractor made the text and its deductions, and
// the metadata recorded in provenance.
func (e *Engine) describeDocument(req *retrieve.Request, out *outcome, sel *extract.LinesResult, txt *format.Text, info format.Info, mainKind string) {
	if sel.Clamped {
		out.assumptions = append(out.assumptions, fmt.Sprintf("The requested range reaches past the end; the text has %d lines and what exists was returned", sel.TotalLines))
	}
	if sel.Truncated {
		out.assumptions = append(out.assumptions, fmt.Sprintf("The text was truncated at %d bytes (max_bytes)", e.maxBytesFor(req)))
		out.deductions = append(out.deductions, retrieve.Deduction{Reason: "truncated", Amount: 0.1})
	}
	out.assumptions = append(out.assumptions, fmt.Sprintf("The text was extracted from the %s document by %s %s; source_hash covers the document's bytes, hash the returned text", info.Name, info.Extractor, info.Version))
	out.assumptions = append(out.assumptions, txt.Assumptions...)
	for _, d := range txt.Deductions {
		out.deductions = append(out.deductions, retrieve.Deduction{Reason: d.Reason, Amount: d.Amount})
	}
	out.metadata = map[string]any{"extractor": info.Extractor, "extractor_version": info.Version, "document_format": info.Name}
	if len(txt.Metadata) > 0 {
		out.metadata["document"] = txt.Metadata
	}
	if mainKind != "" {
		out.metadata["part_kind"] = mainKind
	}
}

// readDocument reads a document whole, at most max bytes, through the
// hash (and the spool), and sets its size and source hash in out.
func readDocument(ctx context.Context, doc *retrieve.Document, br *bufio.Reader, hasher *streamHasher, sp *spool, max int64, name string, out *outcome, drain func(io.Reader)) ([]byte, error) {
	src, err := io.ReadAll(io.LimitReader(br, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", doc.Locator, err)
	}
	if int64(len(src)) > max {
		drain(br)
		return nil, retrieve.Errorf(retrieve.CodeTooLarge, "%s is over the %d-byte limit of a %s document", doc.Locator, max, name).
			WithHint("documents are read whole to extract their text (docs/documents.md); --format binary returns the bytes")
	}
	if hasher == nil {
		out.origSize, out.sourceHash = doc.Size, doc.BodyHash
	} else {
		if err := hasher.readFrom(ctxReader{ctx, doc.Body}, spoolWriter(sp)); err != nil {
			return nil, fmt.Errorf("read %s: %w", doc.Locator, err)
		}
		out.origSize, out.sourceHash = hasher.n, hasher.sum()
	}
	if doc.SourceHash != "" {
		out.sourceHash = doc.SourceHash
	}
	return src, nil
}

// documentLines returns the line ranges of the text that --section and
// --lines select (nil: all of it).
func documentLines(txt *format.Text, c retrieve.Constraints) ([]extract.Range, error) {
	var ranges []extract.Range
	if len(c.Sections) > 0 {
		starts := lineStarts(txt.Text)
		hs := make([]extract.Heading, len(txt.Sections))
		for i, s := range txt.Sections {
			hs[i] = extract.Heading{Title: s.Title, Level: s.Level, StartLine: lineAt(starts, s.Start), EndLine: lineAt(starts, max(s.Start, s.End-1))}
		}
		extract.Outline(hs)
		var err error
		if ranges, err = extract.SelectHeadings(hs, c.Sections); err != nil {
			return nil, err
		}
	}
	if c.Lines != "" {
		lines, err := extract.ParseRanges(c.Lines)
		if err != nil {
			return nil, err
		}
		if ranges == nil {
			return lines, nil
		}
		if ranges = intersect(ranges, lines); len(ranges) == 0 {
			return nil, retrieve.Errorf(retrieve.CodeSectionNotFound, "no selected section lies within lines %s", c.Lines).
				WithHint("widen --lines or drop it")
		}
	}
	return ranges, nil
}

// documentAnchors returns the reference and the evidence anchors of the
// text returned from a document: the reference is base (the locator and
// the pages asked for) with the lines when lines were selected; the anchors
// name each returned line span (base:START-END) and each part it touches
// by its fragment, with the box of the returned text on a page
// (report.pdf#page=3&box=72,540,300,552, PDF points).
func documentAnchors(doc *retrieve.Document, txt *format.Text, base string, sel *extract.LinesResult, lines bool) (string, []string) {
	ref := base
	var anchors []string
	if lines && doc.Spans && len(sel.Spans) > 0 {
		ref += ":" + extract.FormatRanges(sel.Spans)
		for _, s := range sel.Spans {
			anchors = append(anchors, fmt.Sprintf("%s:%d-%d", base, s.Start, s.End))
		}
	}
	starts := lineStarts(txt.Text)
	var parts []string
	for _, s := range sel.Spans {
		from := starts[min(s.Start, len(starts))-1]
		to := len(txt.Text)
		if s.End > 0 && s.End < len(starts) {
			to = starts[s.End]
		}
		for _, p := range txt.Parts {
			if p.End <= from || p.Start >= to {
				continue
			}
			a := doc.Locator + "#" + p.Fragment
			if box, ok := unionBox(p.Boxes, from, to); ok {
				a += "&box=" + box
			}
			parts = append(parts, a)
		}
	}
	const maxPartAnchors = 20
	if len(parts) > maxPartAnchors {
		parts = nil
	}
	anchors = append(anchors, parts...)
	if len(anchors) == 0 {
		anchors = []string{ref}
	}
	return ref, anchors
}

// unionBox is the box around the boxes of a part that overlap [from, to),
// as x0,y0,x1,y1 in PDF points.
func unionBox(boxes []format.Box, from, to int) (string, bool) {
	var u format.Box
	n := 0
	for _, b := range boxes {
		if b.End <= from || b.Start >= to {
			continue
		}
		if n == 0 {
			u = b
		} else {
			u.X0, u.Y0, u.X1, u.Y1 = min(u.X0, b.X0), min(u.Y0, b.Y0), max(u.X1, b.X1), max(u.Y1, b.Y1)
		}
		n++
	}
	if n == 0 {
		return "", false
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return f(round2(u.X0)) + "," + f(round2(u.Y0)) + "," + f(round2(u.X1)) + "," + f(round2(u.Y1)), true
}

func round2(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 2, 64), 64)
	return r
}

// lineStarts returns the byte offset of each line of text.
func lineStarts(text string) []int {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' && i+1 < len(text) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineAt is the 1-based line of byte offset off.
func lineAt(starts []int, off int) int {
	return sort.Search(len(starts), func(i int) bool { return starts[i] > off })
}

// formatError translates an extractor's error to the contract's.
func (e *Engine) formatError(err error, doc *retrieve.Document, info format.Info) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	wrapped := fmt.Errorf("%s (%s): %w", doc.Locator, info.Name, err)
	ae, ok := retrieve.Translate(wrapped, formatTranslations[:])
	if !ok {
		return retrieve.Errorf(retrieve.CodeParseFailed, "%s: the %s extractor failed", doc.Locator, info.Name).WithErr(err).
			WithHint("--format binary returns the document's bytes and its hash")
	}
	if ae.Code == retrieve.CodeUnsupportedFormat {
		ae.Alternatives = e.formatNames()
	}
	return ae
}

// partKey is the name a part's fragment gives its kind ("para" of
// "para=12"), or its Kind when the fragment has another form (a sheet range).
func partKey(p format.Part) string {
	if k, v, ok := strings.Cut(p.Fragment, "="); ok && k != "" && strings.Trim(v, "0123456789") == "" {
		return k
	}
	return p.Kind
}

// parsePages reads --pages: "3", "3-4,7", or "page=3-4" naming the kind of
// part. Open ranges ("5-") have To 0.
func parsePages(s string) (kind string, rs []format.Range, err error) {
	if s == "" {
		return "", nil, nil
	}
	if k, v, ok := strings.Cut(s, "="); ok {
		kind, s = k, v
	}
	lines, err := extract.ParseRanges(s)
	if err != nil {
		return "", nil, retrieve.Errorf(retrieve.CodeInputValidation, "pages %q: %v", s, err).
			WithHint("pages look like 3, 3-4, 1,5-7 or 5- (from 5 to the last), optionally naming the part: slide=2")
	}
	for _, l := range lines {
		rs = append(rs, format.Range{From: l.Start, To: l.End})
	}
	return kind, rs, nil
}

// closeRanges sets the open ends of rs to the last part of txt's main kind.
func closeRanges(rs []format.Range, txt *format.Text) []format.Range {
	last := 0
	if len(txt.Parts) > 0 {
		for _, p := range txt.Parts {
			if p.Kind == txt.Parts[0].Kind {
				last = max(last, p.Index)
			}
		}
	}
	out := make([]format.Range, len(rs))
	for i, r := range rs {
		if r.To == 0 {
			r.To = max(last, r.From)
		}
		out[i] = r
	}
	return out
}

// formatPages writes ranges as a fragment's value: 3, 3-4, 1,5-7.
func formatPages(rs []format.Range) string {
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(r.From))
		if r.To != r.From {
			b.WriteString("-" + strconv.Itoa(r.To))
		}
	}
	return b.String()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// fragmentForm is a document fragment a reference may end with: a part
// ("page=3", "slide=2-4", "cell=1,3"), optionally with an anchor's box
// ("&box=…", ignored), a byte span ("bytes=0-99", the byte anchors), a
// jq selection ("select=.a%5B%5D", escapeSelect) or a sheet range
// ("Sheet1!B2:C40").
var fragmentForm = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:select=([^#]+)|([a-z]+)=([0-9]+(?:-[0-9]*)?(?:,[0-9]+(?:-[0-9]*)?)*)(?:&box=[0-9.,\-]+)?|([^#!&]+![A-Za-z]{1,3}[0-9]+(?::[A-Za-z]{1,3}[0-9]+)?))$`)
})

// documentFragment finds the document fragment that ends p: the index of
// its '#' and the submatches of fragmentForm, or nil.
func documentFragment(p string) (int, []string) {
	i := strings.LastIndexByte(p, '#')
	if i <= 0 {
		return 0, nil
	}
	return i, fragmentForm().FindStringSubmatch(p[i+1:])
}

// withoutFragment is p without the document fragment that ends it.
func withoutFragment(p string) string {
	if i, m := documentFragment(p); m != nil {
		return p[:i]
	}
	return p
}

// splitReferenceFragment moves a document fragment of a file, git or web
// reference (report.pdf#page=3, book.xlsx#Sheet1!B2:C40, a.txt#bytes=0-9)
// into the request's constraints, so that every citation reference of a
// document round-trips. A '#' that starts no such fragment stays part of
// the path.
func splitReferenceFragment(req *retrieve.Request) error {
	ref := retrieve.ParseReference(req.Target)
	switch ref.Scheme {
	case "file", "git", "web":
	default:
		return nil
	}
	i, m := documentFragment(ref.Path)
	if m == nil {
		return nil
	}
	set := func(field *string, name, v string) error {
		if *field != "" && *field != v {
			return retrieve.Errorf(retrieve.CodeInputValidation, "target %q already names %s %s, and %s was given too", req.Target, name, v, *field).
				WithHint("give it once, either in the reference or as a constraint")
		}
		*field = v
		return nil
	}
	var err error
	switch {
	case m[1] != "":
		sel, uerr := url.PathUnescape(m[1])
		if uerr != nil {
			return retrieve.Errorf(retrieve.CodeInputValidation, "target %q: the select fragment is not percent-encoded: %v", req.Target, uerr).
				WithHint("write the jq expression percent-encoded after #select= (a citation's reference already is), or pass it with --select")
		}
		err = set(&req.Constraints.Select, "the selection", sel)
	case m[2] == "lines" && ref.Scheme == "web":
		// Lines of a page's text (https://h/p#lines=3-9): a URL takes no
		// line suffix, a port would read as one.
		err = set(&req.Constraints.Lines, "lines", m[3])
	case m[4] != "":
		err = set(&req.Constraints.Select, "the range", m[4])
	case m[2] == "bytes":
		err = set(&req.Constraints.Bytes, "bytes", m[3])
	case m[2] == "pages":
		err = setLinkPages(req, m[3])
	case m[2] == "lines" && ref.Scheme == "web":
		// The lines of a page's text, before bytes of them
		// (https://h/p#lines=40-#bytes=0-999): a URL takes no :LINES.
		err = set(&req.Constraints.Lines, "lines", m[3])
	default:
		if req.Constraints.Pages == m[3] {
			req.Constraints.Pages = "" // --pages 3 with #page=3: the same parts
		}
		err = set(&req.Constraints.Pages, "the parts", m[2]+"="+m[3])
	}
	if err != nil {
		return err
	}
	ref.Path = ref.Path[:i]
	req.Target = ref.String()
	return nil
}

// setLinkPages sets the api source's count of Link pages from a
// reference's #pages=N fragment.
func setLinkPages(req *retrieve.Request, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return retrieve.Errorf(retrieve.CodeInputValidation, "target %q: #pages= takes a count of Link pages, not %q", req.Target, v).
			WithHint("write the number of pages the api source follows: https://h/items#pages=3")
	}
	if req.Web.Pages != 0 && req.Web.Pages != n {
		return retrieve.Errorf(retrieve.CodeInputValidation, "target %q already names %d pages, and %d was given too", req.Target, n, req.Web.Pages).
			WithHint("give it once, either in the reference or as pages")
	}
	req.Web.Pages = n
	if req.Constraints.Pages == v {
		req.Constraints.Pages = "" // --pages 3 sets both
	}
	return nil
}

// decodeUnicode decodes text whose byte order mark says UTF-16 or UTF-32
// to UTF-8 as it is read (the hashes still cover the bytes as stored), and
// says so. br is returned as is for any other text.
func (e *Engine) decodeUnicode(br *bufio.Reader, head []byte, out *outcome) (*bufio.Reader, []byte, error) {
	name, n := extract.UnicodeBOM(head)
	if name == "" || name == extract.UTF8 {
		return br, head, nil
	}
	if _, err := br.Discard(n); err != nil {
		return nil, nil, fmt.Errorf("read: %w", err)
	}
	dec := bufio.NewReaderSize(extract.DecodeUnicode(br, name), 64<<10)
	head, _ = dec.Peek(8192)
	out.assumptions = append(out.assumptions, fmt.Sprintf("The bytes are %s text (byte order mark), decoded to UTF-8; source_hash covers the bytes as stored, hash the UTF-8 returned", name))
	out.metadata = map[string]any{"encoding": name}
	return dec, head, nil
}

// notADocument refuses what only a document can give, for data no format
// of the registry extracts: --pages, and the text of binary data (a NUL
// byte in its head, or a type such as PDF or ZIP) that --format text would
// otherwise return as mojibake.
func (e *Engine) notADocument(req *retrieve.Request, doc *retrieve.Document, detected string, head []byte) error {
	if req.Constraints.Pages != "" {
		return retrieve.Errorf(retrieve.CodeInputValidation, "--pages applies to documents with pages or parts; %s is not one", doc.Locator).
			WithHint("use --lines or --section; docs/documents.md lists the formats and their parts")
	}
	if detected == "binary" && req.Format == "text" && extract.IsBinaryData(head) {
		ae := retrieve.Errorf(retrieve.CodeUnsupportedFormat, "%s is binary data and no format of the registry extracts its text", doc.Locator).
			WithHint("the formats with text are listed in alternatives (docs/documents.md); --format binary returns the bytes as base64, and without --format the hash is given")
		ae.Alternatives = e.formatNames()
		return ae
	}
	return nil
}

// pagesOfData refuses a document's pages asked of structured data (api
// responses, SQL rows…), which have none; the CLI's --pages N also sets the
// api source's count (web.pages), which that source has read.
func pagesOfData(req *retrieve.Request) error {
	p := req.Constraints.Pages
	if p == "" || (req.Web.Pages > 0 && p == strconv.Itoa(req.Web.Pages)) {
		return nil
	}
	return retrieve.Errorf(retrieve.CodeInputValidation, "pages %q selects parts of a document; %s is structured data", p, req.Target).
		WithHint("use --select on data; for the api source's Link pages give a count (--pages 3, web.pages over MCP and HTTP)")
}

// escapeSelect percent-encodes a jq expression for a reference's
// "#select=" fragment: every byte but letters, digits and "-_.~$&+=@" is
// escaped, ':' and '#' included, so that the fragment never reads as a
// line suffix or a second fragment.
func escapeSelect(jq string) string {
	return strings.ReplaceAll(url.PathEscape(jq), ":", "%3A")
}
