package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/extract"
)

// outcome is what extraction produced, before it is turned into a Result.
type outcome struct {
	data      any
	dataBytes []byte // the bytes the hash covers
	format    string
	spans     []extract.Range
	byteSpans bool
	// wanted are the line ranges asked for (nil: the whole document), and
	// cutMidLine says a single line was cut: together they give the
	// reference of the next part of a truncated read.
	wanted     []extract.Range
	cutMidLine bool
	complete   bool
	truncated  bool
	origSize   int64
	sourceHash string
	streamHash string // hash of the bytes streamed, the snapshot's key
	anchors    []string
	reference  string
	// selected is the jq expression that selected the data, and
	// selectedLines the lines it ran on when lines or sections were asked:
	// the reference carries them (path#select=…:LINES).
	selected      string
	selectedLines string
	// partBase is the reference of the parts of a document that were
	// returned (report.pdf#page=3), what a next part's lines follow.
	partBase string
	// bytesBase is the reference of the lines whose text byte spans count
	// in (big.log:40-, the byte fragment follows: big.log:40-#bytes=0-99);
	// "" when they count in the whole document.
	bytesBase string
	// metadata goes to provenance.metadata (the extractor of a document).
	metadata    map[string]any
	assumptions []string
	deductions  []retrieve.Deduction
	// budget is what a server's message budget did (Fit); nil without one.
	// budgetCut says that extraction already stopped at the budget's cap.
	budget    *retrieve.BudgetReport
	budgetCut bool
}

// kept says what the ledger may keep of one retrieval's source bytes.
type kept struct {
	// snapshot is the hash of the bytes streamed, the snapshot's key; ""
	// when there is none to keep.
	snapshot string
	// refused is Document.NoStore: why the source forbids keeping the
	// bytes; the entry then records the citation without the data.
	refused string
	// facts are the document's, recorded with the entry.
	facts facts
}

func (e *Engine) build(ctx context.Context, req, fetchReq *retrieve.Request, kind string, doc *retrieve.Document, started time.Time, sp *spool, fit *Fit) (*retrieve.Result, kept, error) {
	var out *outcome
	var err error
	if doc.Body != nil {
		out, err = e.extractBody(ctx, fetchReq, doc, sp, fit)
	} else {
		out, err = e.extractData(ctx, fetchReq, doc)
	}
	if err != nil {
		return nil, kept{}, err
	}
	if fit != nil && fit.Share != nil && sp != nil && out.streamHash != "" && doc.NoStore == "" {
		e.storeEarly(ctx, sp, out.streamHash, out.origSize)
	}
	envelope := func(o outcome, cut bool, dataBytes int64) int64 {
		return e.envelope(req, fetchReq, kind, doc, o, cut, dataBytes, fit, started)
	}
	if err := fitOutcome(out, fit, envelope); err != nil {
		if !fitRows(doc, out, fit) {
			return nil, kept{}, err
		}
	}
	nameCut(doc, out)
	res, err := e.cite(req, fetchReq, kind, doc, out, started)
	if err != nil {
		return nil, kept{}, err
	}
	if doc.NoStore != "" {
		res.Assumptions = append(res.Assumptions, "Not kept: the source says "+doc.NoStore+"; no snapshot and no copy of the data are stored, so it cannot be served again from the ledger")
		return res, kept{refused: doc.NoStore, facts: factsOf(doc)}, nil
	}
	if sp == nil {
		return res, kept{facts: factsOf(doc)}, nil
	}
	return res, kept{snapshot: out.streamHash, facts: factsOf(doc)}, nil
}

// nameCut makes the references of a budget-cut outcome name what is left.
func nameCut(doc *retrieve.Document, out *outcome) {
	if out.budget != nil && out.budget.Cut && out.partBase != "" && !out.byteSpans {
		// The document's lines were named before the budget cut them:
		// references names what is left.
		out.reference, out.anchors = "", nil
	}
	cutLineAsBytes(doc, out)
}

// envelope is what the result of o weighs around its data (Fit.Envelope),
// whole or cut, with dataBytes the data's share reported: o is cited with
// empty data and, cut, as a cut that keeps all but its last line (or byte)
// — the widest numbers a cut can name — with the budget's assumption and
// deduction and its original size as the size returned. A whole result
// weighs exactly what it will; a cut one never less.
func (e *Engine) envelope(req, fetchReq *retrieve.Request, kind string, doc *retrieve.Document, o outcome, cut bool, dataBytes int64, fit *Fit, started time.Time) int64 {
	o.assumptions = slices.Clone(o.assumptions)
	o.deductions = slices.Clone(o.deductions)
	o.budget = &retrieve.BudgetReport{MessageBytes: fit.MessageBytes, DataBytes: dataBytes}
	returned := int64(len(o.dataBytes))
	endsLine := len(o.dataBytes) == 0 || o.dataBytes[len(o.dataBytes)-1] == '\n'
	if _, text := o.data.(string); cut && text {
		returned, endsLine = max(o.origSize, returned), false
		markCut(&o, fit)
		switch {
		case o.byteSpans || o.format == "binary":
			o.spans = keepBytes(o.spans, max(len(o.dataBytes)-1, 1))
		default:
			lines := 0
			for _, s := range o.spans {
				lines += s.End - s.Start + 1
			}
			if lines <= 1 {
				o.cutMidLine = true
			}
			o.spans = keepLines(o.spans, max(lines-1, 1))
		}
		nameCut(doc, &o)
	}
	o.data, o.dataBytes = "", []byte{}
	res, err := e.cite(req, fetchReq, kind, doc, &o, started)
	if err != nil {
		return 0
	}
	res.Extraction.ReturnedSize = &returned
	return fit.Envelope(res, endsLine)
}

func (e *Engine) maxBytesFor(req *retrieve.Request) int64 {
	if req.Constraints.MaxBytes > 0 {
		return req.Constraints.MaxBytes
	}
	return e.maxBytes
}

// extractBody streams the document once: every byte goes through the
// source hash, and only the selected bytes are kept.
func (e *Engine) extractBody(ctx context.Context, req *retrieve.Request, doc *retrieve.Document, sp *spool, fit *Fit) (out *outcome, err error) {
	// A body whose hash the source knows is read only as far as extraction
	// needs, unless its bytes must be kept as a snapshot that the store
	// does not hold yet.
	known := doc.BodyHash != "" && doc.Size >= 0 && (sp == nil || e.hasSnapshot(ctx, doc.BodyHash))
	if known {
		if sp != nil {
			sp.known = true
		}
		return e.extractKnown(ctx, req, doc, fit)
	}
	hasher := newStreamHasher(doc.Size)
	defer hasher.close()
	var sink io.Writer = hasher
	if sp != nil {
		sp.expect(doc.Size)
		sink = io.MultiWriter(hasher, sp)
	}
	bufSize := 256 << 10
	if doc.Size >= 0 && doc.Size < int64(bufSize) {
		bufSize = max(int(doc.Size)+1, 8192) // room for the 8 KiB sniff
	}
	br, base := getReader(io.TeeReader(ctxReader{ctx, doc.Body}, sink), bufSize)
	defer func() {
		putReader(br, base, req, out, err)
		if out != nil {
			out.streamHash = hasher.sum()
			if doc.Hashed != nil && hasher.n == doc.Size {
				doc.Hashed(out.streamHash)
			}
		}
	}()
	return e.extractText(ctx, req, doc, br, hasher, sp, fit)
}

// extractKnown extracts from a body whose hash the source knows: the
// reader stops as soon as the selection is made.
func (e *Engine) extractKnown(ctx context.Context, req *retrieve.Request, doc *retrieve.Document, fit *Fit) (*outcome, error) {
	bufSize := 64 << 10
	if doc.Size < int64(bufSize) {
		bufSize = max(int(doc.Size)+1, 8192)
	}
	br, base := getReader(ctxReader{ctx, doc.Body}, bufSize)
	out, err := e.extractText(ctx, req, doc, br, nil, nil, fit)
	putReader(br, base, req, out, err)
	if out != nil {
		out.streamHash = doc.BodyHash
	}
	return out, err
}

// readers are the read buffers of extractions, by size: 8 KiB (a small
// file's whole body fits) to 256 KiB, doubling. A small read that keeps
// none of the buffer's bytes (putReader) allocates no buffer.
var readers [6]sync.Pool

// readerClass is the class of readers whose buffers hold size bytes, -1
// for none.
func readerClass(size int) int {
	class := 0
	for c := 8192; c < size; c <<= 1 {
		class++
	}
	if class >= len(readers) {
		return -1
	}
	return class
}

// getReader is bufio.NewReaderSize(r, size), its buffer perhaps a
// pooled one (of at least size bytes), and the address of the buffer's
// first byte (0 for a buffer that is not pooled).
func getReader(r io.Reader, size int) (*bufio.Reader, uintptr) {
	class := readerClass(size)
	if class < 0 {
		return bufio.NewReaderSize(r, size), 0
	}
	br, ok := readers[class].Get().(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(nil, 8192<<class)
	}
	// A fresh reader's first fill starts at the buffer's first byte.
	br.Reset(bytes.NewReader([]byte{0}))
	b, _ := br.Peek(1)
	br.Reset(r)
	if len(b) == 0 {
		return br, 0
	}
	return br, uintptr(unsafe.Pointer(&b[0]))
}

// putReader gives br (whose buffer starts at base) back for another
// extraction when nothing of the outcome can hold its bytes: plain text
// (the lines are copied out of the buffer, extract.appendCapped), no
// document extractor or jq selection, and data that does not point into
// the buffer. Anything else leaves br to the garbage collector, as before
// the pool.
func putReader(br *bufio.Reader, base uintptr, req *retrieve.Request, out *outcome, err error) {
	class := readerClass(br.Size())
	if base == 0 || class < 0 || br.Size() != 8192<<class || err != nil || out == nil || out.metadata != nil || out.selected != "" ||
		req.Format != "" || req.Constraints.Select != "" || len(req.Constraints.Sections) > 0 {
		return
	}
	s, ok := out.data.(string)
	if !ok && out.data != nil {
		return
	}
	in := func(p *byte) bool {
		q := uintptr(unsafe.Pointer(p))
		return p != nil && q >= base && q < base+uintptr(br.Size())
	}
	if in(unsafe.StringData(s)) || (cap(out.dataBytes) > 0 && in(unsafe.SliceData(out.dataBytes))) {
		return
	}
	br.Reset(nil)
	readers[class].Put(br)
}

// hasSnapshot reports whether the store holds hash (false when it cannot say).
func (e *Engine) hasSnapshot(ctx context.Context, hash string) bool {
	ok, err := e.store.HasSnapshot(ctx, hash)
	return err == nil && ok
}

// extractText runs the extraction stages over br: sniff the format, select
// (lines, byte ranges, sections, symbols), hash the rest, then parse
// structured data or keep the text. Without a hasher, the body's hash is
// doc.BodyHash and the stages read only what they need; otherwise hasher
// (and sp, when not nil) sees every byte. A message budget (fit) caps what
// is kept as well: no more raw bytes than the budget could ever hold, so
// that a ranged read of a large file keeps kilobytes, not max_bytes;
// fitOutcome then cuts what still costs too much once encoded.
func (e *Engine) extractText(ctx context.Context, req *retrieve.Request, doc *retrieve.Document, br *bufio.Reader, hasher *streamHasher, sp *spool, fit *Fit) (*outcome, error) {
	c := req.Constraints
	drain := drain
	if hasher == nil {
		drain = func(io.Reader) {}
	}
	out := &outcome{}
	head, err := skipBOM(br, out)
	if err != nil {
		return nil, err
	}
	if br, head, err = e.decodeUnicode(br, head, out); err != nil {
		return nil, err
	}
	if ex, ok := e.documentFormat(req, doc, head); ok {
		return e.documentText(ctx, req, doc, br, hasher, sp, ex, out, drain)
	}
	detected := doc.Format
	if detected == "" {
		detected = extract.Detect(doc.Name, head)
	}
	out.format = detected
	if err := e.notADocument(req, doc, detected, head); err != nil {
		drain(br)
		return nil, err
	}
	structured := req.Format == "json" || req.Format == "yaml" || req.Format == "toml" || req.Format == "csv" || c.Select != ""
	// A byte range of binary data is selected as a text file's is (its
	// hash is of those bytes), and returned as base64 with --format binary.
	if detected == "binary" && req.Format != "text" && (c.Bytes == "" || structured || len(c.Sections) > 0) {
		if c.Lines != "" || len(c.Sections) > 0 || c.Select != "" || structured {
			drain(br)
			return nil, retrieve.Errorf(retrieve.CodeUnsupportedFormat, "%s is binary data; --lines, --section and --select apply to text", doc.Locator).
				WithHint("retrieve it whole (its hash is always given), or with --format binary for base64 data, or --format text to read it as repaired text")
		}
		return e.binary(req, doc, br, hasher, out, drain, fit)
	}
	if structured && c.Select != "" {
		if out, done, err := e.selectStream(ctx, req, doc, br, hasher, sp, detected, out); done {
			return out, err
		}
	}
	limit := e.maxBytesFor(req)
	byBudget := false
	if c := fit.rawCap(); c > 0 && c < limit {
		limit, byBudget = c, true
	}
	if structured {
		limit, byBudget = e.parseLimit, false
	}
	sel, err := e.selectText(ctx, req, doc, br, detected, limit, out)
	if err != nil {
		drain(br)
		return nil, err
	}
	if err := hashRest(ctx, doc, br, hasher, sp, out); err != nil {
		return nil, err
	}
	out.spans = sel.Spans
	out.complete = sel.ReturnedAll
	if sel.Clamped {
		out.assumptions = append(out.assumptions, fmt.Sprintf("The requested range reaches past the end; the document has %d lines and what exists was returned", sel.TotalLines))
	}
	if structured {
		return e.structuredText(req, doc, detected, sel, out)
	}
	return textStage(req, sel, limit, byBudget, out), nil
}

// skipBOM drops a UTF-8 byte order mark from the start of br (saying so in
// out) and returns the first 8 KiB that follow, to sniff the format from.
func skipBOM(br *bufio.Reader, out *outcome) ([]byte, error) {
	head, _ := br.Peek(8192)
	if bytes.HasPrefix(head, []byte(extract.BOM)) {
		if _, err := br.Discard(len(extract.BOM)); err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
		head = head[len(extract.BOM):]
		out.assumptions = append(out.assumptions, "A UTF-8 byte order mark was removed from the start of the data")
	}
	return head, nil
}

// selectText is the text stage: it selects the symbols, sections, byte
// ranges or lines the request names from br, keeping at most limit bytes.
func (e *Engine) selectText(ctx context.Context, req *retrieve.Request, doc *retrieve.Document, br *bufio.Reader, detected string, limit int64, out *outcome) (*extract.LinesResult, error) {
	c := req.Constraints
	switch {
	case len(c.Sections) > 0 && e.isCode(detected):
		return e.symbols(ctx, req, doc, br, detected, limit, out)
	case len(c.Sections) > 0:
		return e.sections(req, doc, br, detected, limit, out)
	case c.Bytes != "":
		ranges, err := extract.ParseByteRanges(c.Bytes)
		if err != nil {
			return nil, err
		}
		out.byteSpans = true
		out.wanted = ranges
		var src io.Reader = br
		if c.Lines != "" {
			if src, err = e.linesText(doc, br, c.Lines, ranges, limit, out); err != nil {
				return nil, err
			}
		}
		sel, err := extract.Bytes(src, ranges, limit)
		if err == nil && sel.Truncated {
			trimPartialRune(sel)
		}
		return sel, err
	}
	var ranges []extract.Range
	if c.Lines != "" {
		var err error
		if ranges, err = extract.ParseRanges(c.Lines); err != nil {
			return nil, err
		}
	}
	out.wanted = ranges
	// Extraction reads only what the selection needs; the rest, when the
	// hash needs it, is read by hashRest straight into the hasher's chunks
	// (and the snapshot's), not through br: one copy fewer per byte of a
	// large file.
	return extract.LinesPrefix(br, ranges, limit, doc.Size)
}

// linesText is the text of the lines that byte ranges within lines count
// in (big.log:40-#bytes=0-999, --lines 40- --bytes 0-999): the selected
// lines read only as far as the byte ranges reach (one byte more, to tell
// a cut). The reference then names those lines before its byte fragment.
func (e *Engine) linesText(doc *retrieve.Document, br *bufio.Reader, lines string, ranges []extract.Range, limit int64, out *outcome) (io.Reader, error) {
	if !byteReferences(doc) {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "--lines and --bytes cannot be combined on %s: its references have no byte form", doc.Locator).
			WithHint("use one of them")
	}
	lr, err := extract.ParseRanges(lines)
	if err != nil {
		return nil, err
	}
	var need int64
	for _, r := range ranges {
		if r.End < 0 || (r.End == 0 && r.Start > 0) {
			need = max(need, int64(r.Start)+limit+1)
		} else {
			need = max(need, int64(r.End)+2)
		}
	}
	if need > e.parseLimit {
		return nil, retrieve.Errorf(retrieve.CodeTooLarge, "bytes %s of lines %s of %s reach past the %d-byte limit for a selection", extract.FormatRanges(ranges), lines, doc.Locator, e.parseLimit).
			WithHint("ask for bytes of the whole file instead (--bytes without --lines)")
	}
	sel, err := extract.LinesText(br, lr, need)
	if err != nil {
		return nil, err
	}
	out.bytesBase = doc.Locator + ":" + extract.FormatRanges(lr)
	if !doc.Spans {
		out.bytesBase = doc.Locator + "#lines=" + extract.FormatRanges(lr) // a URL
	}
	return bytes.NewReader(sel.Data), nil
}

// hashRest completes the source hash once the selection is made: every
// byte the extractor left is read straight into the hasher (and sp), past
// the extraction buffer; without a hasher the source's known hash stands.
// It notes a source that changed size while it was read.
func hashRest(ctx context.Context, doc *retrieve.Document, br *bufio.Reader, hasher *streamHasher, sp *spool, out *outcome) error {
	if hasher == nil {
		out.origSize = doc.Size
		out.sourceHash = doc.BodyHash
	} else {
		if _, err := br.Discard(br.Buffered()); err != nil {
			return fmt.Errorf("read: %w", err)
		}
		if err := hasher.readFrom(ctxReader{ctx, doc.Body}, spoolWriter(sp)); err != nil {
			return fmt.Errorf("read %s: %w", doc.Locator, err)
		}
		out.origSize = hasher.n
		out.sourceHash = hasher.sum()
	}
	if doc.SourceHash != "" {
		out.sourceHash = doc.SourceHash
	}
	if doc.Size >= 0 && out.origSize != doc.Size && doc.SourceHash == "" {
		out.assumptions = append(out.assumptions, fmt.Sprintf("The source changed size while it was read (%d bytes expected, %d read)", doc.Size, out.origSize))
		out.deductions = append(out.deductions, retrieve.Deduction{Reason: "the source changed while it was read", Amount: 0.2})
	}
	return nil
}

// textStage keeps the selected text as the data: it says where a cut fell,
// and treats invalid UTF-8 as binary data unless the request asks for text,
// which is then repaired.
// A cut at the message budget's cap (byBudget) is reported by fitOutcome,
// not as max_bytes.
func textStage(req *retrieve.Request, sel *extract.LinesResult, limit int64, byBudget bool, out *outcome) *outcome {
	out.truncated = sel.Truncated
	out.cutMidLine = sel.CutMidLine
	if sel.Truncated && byBudget {
		out.budgetCut = true
		out.complete = false
	} else if sel.Truncated {
		out.complete = false
		msg := fmt.Sprintf("The data was truncated at %d bytes (max_bytes) at a line boundary", limit)
		if sel.CutMidLine {
			msg = fmt.Sprintf("The data was truncated at %d bytes (max_bytes) inside a line, at a character boundary", limit)
		}
		out.assumptions = append(out.assumptions, msg)
		out.deductions = append(out.deductions, retrieve.Deduction{Reason: "truncated", Amount: 0.1})
	}
	data := sel.Data
	if out.format == "binary" && req.Format != "text" {
		// A byte range of binary data: the hash covers the bytes selected.
		out.dataBytes = data
		out.data = nil
		if req.Format == "binary" {
			out.data = base64.StdEncoding.EncodeToString(data)
		} else {
			out.assumptions = append(out.assumptions, "Binary data is not returned (data is null); the hash covers the selected bytes; pass --format binary for base64")
		}
		return out
	}
	if !utf8.Valid(data) {
		if req.Format != "text" {
			out.format = "binary"
			out.dataBytes = data
			out.data = nil
			out.assumptions = append(out.assumptions, "The data is not valid UTF-8 and is treated as binary: data is null; pass --format text to read it repaired, or --format binary for base64")
			return out
		}
		data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
		out.assumptions = append(out.assumptions, "Invalid UTF-8 sequences were replaced with U+FFFD (--format text)")
		out.deductions = append(out.deductions, retrieve.Deduction{Reason: "encoding repaired", Amount: 0.1})
	}
	if req.Format == "text" && out.format != "text" && extract.IsStructured(out.format) {
		out.format = "text"
	}
	out.dataBytes = data
	// The string shares the bytes instead of copying up to max_bytes again:
	// data is never written after this point (the hash, the anchors and the
	// result only read it).
	out.data = bytesToString(data)
	return out
}

// bytesToString views b as a string without a copy; b must never be
// modified afterwards.
func bytesToString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func (e *Engine) sections(req *retrieve.Request, doc *retrieve.Document, br *bufio.Reader, format string, limit int64, out *outcome) (*extract.LinesResult, error) {
	if format != "markdown" {
		return nil, retrieve.Errorf(retrieve.CodeUnsupportedFormat, "--section applies to markdown headings; %s is %s", doc.Locator, format).
			WithHint("use --lines for this file; on source code (go, typescript, javascript, python, java, rust, c, cpp, csharp, ruby) --section names symbols")
	}
	src, err := io.ReadAll(io.LimitReader(br, e.parseLimit+1))
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	if int64(len(src)) > e.parseLimit {
		return nil, retrieve.Errorf(retrieve.CodeTooLarge, "%s is larger than the %d-byte limit for section selection", doc.Locator, e.parseLimit).
			WithHint("use --lines instead")
	}
	ranges, err := extract.Sections(src, req.Constraints.Sections)
	if err != nil {
		return nil, err
	}
	if req.Constraints.Lines != "" {
		lines, err := extract.ParseRanges(req.Constraints.Lines)
		if err != nil {
			return nil, err
		}
		ranges = intersect(ranges, lines)
		if len(ranges) == 0 {
			return nil, retrieve.Errorf(retrieve.CodeSectionNotFound, "no selected section lies within lines %s", req.Constraints.Lines).
				WithHint("widen --lines or drop it")
		}
	}
	out.wanted = ranges
	return extract.Lines(bytes.NewReader(src), ranges, limit)
}

// intersect returns the parts of a that lie inside b (both sorted, merged).
func intersect(a, b []extract.Range) []extract.Range {
	var out []extract.Range
	for _, x := range a {
		for _, y := range b {
			start := max(x.Start, y.Start)
			end := minEnd(x.End, y.End)
			if end == 0 || start <= end {
				out = append(out, extract.Range{Start: start, End: end})
			}
		}
	}
	return out
}

func minEnd(a, b int) int {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	default:
		return min(a, b)
	}
}

// structuredText parses the selected text (and runs a --select on it),
// within the parse limit and, for a jq expression, the select limit.
func (e *Engine) structuredText(req *retrieve.Request, doc *retrieve.Document, detected string, sel *extract.LinesResult, out *outcome) (*outcome, error) {
	if sel.Truncated {
		return nil, retrieve.Errorf(retrieve.CodeTooLarge, "%s is larger than the %d-byte limit for structured parsing", doc.Locator, e.parseLimit).
			WithHint("narrow it with --lines first, or retrieve it as text")
	}
	if expr := req.Constraints.Select; expr != "" {
		if err := e.checkSelectSize(doc, int64(len(sel.Data)), expr); err != nil {
			return nil, err
		}
	}
	return e.structuredStage(req, detected, sel.Data, out)
}

// parseFormat is the format structured data is parsed in: a structured
// document's own whatever --format asks (--format only asks for parsed
// data); other text in the format asked.
func parseFormat(req *retrieve.Request, detected string) string {
	if f := req.Format; !extract.IsStructured(detected) && extract.IsStructured(f) {
		return f
	}
	return detected
}

// selectStream selects a plain jq path (.[1000], .a.b) from JSON, JSON
// Lines or CSV while it is read, without parsing the document whole: the
// memory it takes is that of the selected value, whatever the document's
// size (docs/CONTRACT.md, "Max bytes"). Another expression over a whole
// document larger than the select limit is refused before it is read.
// done is false when the selection neither streams nor is refused; nothing
// was read then.
func (e *Engine) selectStream(ctx context.Context, req *retrieve.Request, doc *retrieve.Document, br *bufio.Reader, hasher *streamHasher, sp *spool, detected string, out *outcome) (*outcome, bool, error) {
	c := req.Constraints
	if c.Lines != "" || c.Bytes != "" || len(c.Sections) > 0 {
		return nil, false, nil // the text selected first is checked once read
	}
	format := parseFormat(req, detected)
	path, ok := extract.SelectPath(c.Select)
	if format != "json" && format != "jsonl" && format != "csv" || !ok {
		if err := e.checkSelectSize(doc, doc.Size, c.Select); err != nil {
			if hasher != nil {
				drain(br) // the hash covers every byte
			}
			return nil, true, err
		}
		return nil, false, nil
	}
	v, err := extract.SelectStream(br, format, path, req.Constraints.Select)
	if err != nil {
		if hasher != nil {
			drain(br) // the hash covers every byte
		}
		return nil, true, err
	}
	if err := hashRest(ctx, doc, br, hasher, sp, out); err != nil {
		return nil, true, err
	}
	out.format = format
	if format == "jsonl" {
		out.format = "json"
	}
	out.complete = false
	out.selected = req.Constraints.Select
	out, err = e.finishStructured(req, v, out)
	return out, true, err
}

// checkSelectSize refuses up front a jq expression that is not a plain
// path over structured text larger than the select limit: parsing it
// whole and running jq would take more time and memory than a selection
// is given.
func (e *Engine) checkSelectSize(doc *retrieve.Document, size int64, expr string) error {
	if size <= e.selectLimit {
		return nil
	}
	return retrieve.Errorf(retrieve.CodeTooLarge, "%s is %d bytes, over the %d-byte limit (select_max_input) for a jq expression that is not a plain path such as .[1000] or .a.b: %q would parse all of it", doc.Locator, size, e.selectLimit, expr).
		WithHint("select a plain path first (.[1000], .items[3].name: streamed at any size), narrow it with --lines, or raise select_max_input in .retrieve/config.yaml")
}

func (e *Engine) structuredStage(req *retrieve.Request, detected string, text []byte, out *outcome) (*outcome, error) {
	format := parseFormat(req, detected)
	if !extract.IsStructured(format) {
		return nil, fmt.Errorf("%w: the data is %s", extract.ErrNotStructured, detected)
	}
	v, err := extract.Parse(text, format)
	if err != nil {
		return nil, err
	}
	out.format = format
	if format == "jsonl" {
		out.format = "json" // the array of the records
	}
	if sel := req.Constraints.Select; sel != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if v, err = extract.Select(ctx, v, sel); err != nil {
			return nil, err
		}
		out.complete = false
		out.selected = sel
		if c := req.Constraints; (c.Lines != "" || len(c.Sections) > 0) && len(out.spans) > 0 {
			out.selectedLines = extract.FormatRanges(out.spans)
		}
		out.spans = nil
	}
	return e.finishStructured(req, v, out)
}

func (e *Engine) finishStructured(req *retrieve.Request, v any, out *outcome) (*outcome, error) {
	b, err := retrieve.CanonicalJSON(v)
	if err != nil {
		return nil, err
	}
	if limit := e.maxBytesFor(req); int64(len(b)) > limit {
		return nil, retrieve.Errorf(retrieve.CodeTooLarge, "the selected data is %d bytes as JSON, over max_bytes %d", len(b), limit).
			WithHint("narrow it with --select, or raise --max-bytes")
	}
	out.data = v
	out.dataBytes = b
	return out, nil
}

func (e *Engine) binary(req *retrieve.Request, doc *retrieve.Document, br *bufio.Reader, hasher *streamHasher, out *outcome, drain func(io.Reader), fit *Fit) (*outcome, error) {
	out.format = "binary"
	if req.Format == "binary" {
		limit := e.maxBytesFor(req)
		byBudget := false
		if c := fit.rawCap(); c > 0 && c < limit {
			limit, byBudget = c, true
		}
		b, err := io.ReadAll(io.LimitReader(br, limit))
		if err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
		var rest int64
		if hasher == nil {
			if _, err := br.Peek(1); err == nil {
				rest = 1 // more follows: left unread, the hash is known
			}
		} else {
			rest, _ = io.Copy(io.Discard, br)
		}
		out.dataBytes = b
		out.data = base64.StdEncoding.EncodeToString(b)
		out.truncated = rest > 0
		out.complete = rest == 0
		if out.truncated && byBudget {
			out.budgetCut = true
		} else if out.truncated {
			out.assumptions = append(out.assumptions, fmt.Sprintf("The binary data was truncated at %d bytes (max_bytes)", limit))
			out.deductions = append(out.deductions, retrieve.Deduction{Reason: "truncated", Amount: 0.1})
		}
		out.byteSpans = true
		out.spans = []extract.Range{{Start: 0, End: len(b) - 1}}
	} else {
		drain(br)
		out.data = nil
		out.complete = true
		out.assumptions = append(out.assumptions, "Binary data is not returned (data is null); the hashes cover the whole content; pass --format binary for base64")
	}
	if hasher == nil {
		out.origSize, out.sourceHash = doc.Size, doc.BodyHash
	} else {
		out.origSize, out.sourceHash = hasher.n, hasher.sum()
	}
	if doc.SourceHash != "" {
		out.sourceHash = doc.SourceHash
	}
	if out.dataBytes == nil && out.data == nil {
		// Nothing returned: the citation hash is that of the whole content.
		out.reference = doc.Locator
	}
	return out, nil
}

func (e *Engine) extractData(ctx context.Context, req *retrieve.Request, doc *retrieve.Document) (*outcome, error) {
	if err := pagesOfData(req); err != nil {
		return nil, err
	}
	out := &outcome{format: doc.Format, complete: !doc.Incomplete, anchors: doc.Anchors, truncated: doc.Incomplete}
	if out.format == "" {
		out.format = "json"
	}
	v := doc.Data
	full, err := retrieve.CanonicalJSON(v)
	if err != nil {
		return nil, err
	}
	out.origSize = int64(len(full))
	out.sourceHash = retrieve.HashBytes(full)
	if doc.SourceHash != "" {
		out.sourceHash = doc.SourceHash
	}
	if sel := req.Constraints.Select; sel != "" {
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if v, err = extract.Select(sctx, v, sel); err != nil {
			return nil, err
		}
		out.complete = false
		out.selected = sel
	}
	return e.finishStructured(req, v, out)
}

func drain(r io.Reader) { _, _ = io.Copy(io.Discard, r) }

// spoolWriter is sp as an io.Writer, or nil: never a typed nil.
func spoolWriter(sp *spool) io.Writer {
	if sp == nil {
		return nil
	}
	return sp
}

// ctxReader stops reading when the context is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// nextReference is the reference of the part that follows a read cut by
// max_bytes: the lines asked for after the last line returned, on the same
// document ("big.log:1201-", "big.log:1201-5000,6000-6100"). It is nil when
// nothing was cut, or when the cut cannot be named by lines (byte ranges,
// a single line longer than max_bytes, sources without line references).
func nextReference(doc *retrieve.Document, out *outcome) *string {
	if doc.Next != "" && doc.Incomplete {
		ref := doc.Next
		if out.selected != "" {
			ref += "#select=" + escapeSelect(out.selected)
		}
		return &ref
	}
	if out.truncated && out.byteSpans && len(out.spans) > 0 && byteReferences(doc) {
		return nextBytes(doc, out)
	}
	if !out.truncated || out.cutMidLine || out.byteSpans || len(out.spans) == 0 {
		return nil
	}
	if !doc.Spans {
		// A web page's lines continue as its lines fragment (#lines=N-).
		if rest := restLines(out); rest != nil && doc.TextFragments && linesFragment(doc, out.spans, out) != doc.Locator {
			ref := linesFragment(doc, rest, out)
			return &ref
		}
		return nil
	}
	rest := restLines(out)
	if rest == nil {
		return nil
	}
	base := doc.Locator
	if out.partBase != "" {
		base = out.partBase
	}
	ref := base + ":" + extract.FormatRanges(rest)
	return &ref
}

// restLines are the line ranges asked for after the last line returned
// (the whole document's when none were asked), nil when none are left.
func restLines(out *outcome) []extract.Range {
	last := out.spans[len(out.spans)-1].End
	wanted := out.wanted
	if len(wanted) == 0 {
		wanted = []extract.Range{{Start: 1, End: 0}}
	}
	var rest []extract.Range
	for _, r := range wanted {
		if r.End != 0 && r.End <= last {
			continue
		}
		rest = append(rest, extract.Range{Start: max(r.Start, last+1), End: r.End})
	}
	return rest
}

// nextBytes is the reference of the bytes asked for after the last byte
// returned ("min.js#bytes=36672-"), or nil when none are left.
func nextBytes(doc *retrieve.Document, out *outcome) *string {
	last := out.spans[len(out.spans)-1].End
	wanted := out.wanted
	if len(wanted) == 0 {
		wanted = []extract.Range{{Start: 0, End: -1}}
	}
	var rest []extract.Range
	for _, r := range wanted {
		if r.End >= 0 && r.End <= last {
			continue
		}
		rest = append(rest, extract.Range{Start: max(r.Start, last+1), End: r.End})
	}
	if len(rest) == 0 {
		return nil
	}
	ref := out.byteBase(doc) + "#bytes=" + extract.FormatRanges(rest)
	return &ref
}

// byteBase is what a byte fragment of out follows: the lines whose text
// the bytes count in, or the document.
func (out *outcome) byteBase(doc *retrieve.Document) string {
	if out.bytesBase != "" {
		return out.bytesBase
	}
	return doc.Locator
}

// byteReferences says whether doc's references can carry a byte fragment
// (#bytes=): the fragment is taken apart for files, git revisions and URLs
// (splitReferenceFragment), not for the other sources' forms.
func byteReferences(doc *retrieve.Document) bool {
	switch retrieve.ParseReference(doc.Locator).Scheme {
	case "file", "git", "web":
		return true
	}
	return false
}

// cutLineAsBytes turns a whole-document read cut inside its first line (a
// minified script, one-line JSON) into the byte span it returned, so that
// its reference re-retrieves exactly those bytes and its next part starts
// at the following byte: a line number cannot name part of a line.
//
// A cut inside the first line of a line range that does not start at the
// document's first line (lines 40-, a section, the next part of an earlier
// cut) is cited in bytes of the text of those lines:
// big.log:40-#bytes=0-36671, next big.log:40-#bytes=36672-.
func cutLineAsBytes(doc *retrieve.Document, out *outcome) {
	if cutTextAsBytes(doc, out) {
		return
	}
	if !out.truncated || !out.cutMidLine || out.byteSpans ||
		len(out.spans) != 1 || out.spans[0].Start != out.spans[0].End || len(out.dataBytes) == 0 {
		return
	}
	// A document's parts (report.pdf#page=3) are what its lines follow.
	whole := out.wanted == nil && out.spans[0].Start == 1
	switch {
	case whole && out.partBase != "":
		out.bytesBase = out.partBase
	case whole:
	case !doc.Spans || !byteReferences(doc) || len(out.wanted) == 0:
		return
	case out.partBase != "":
		out.bytesBase = out.partBase + ":" + extract.FormatRanges(out.wanted)
	default:
		out.bytesBase = doc.Locator + ":" + extract.FormatRanges(out.wanted)
	}
	out.wanted = nil
	out.reference, out.anchors = "", nil
	out.byteSpans = true
	out.spans = []extract.Range{{Start: 0, End: len(out.dataBytes) - 1}}
}

// cutTextAsBytes cites a cut read of a whole document whose references
// have no line form (a web page's Markdown, an API response read as text)
// in bytes of its text, which a URL's #bytes= fragment names: the data is
// a prefix of the text, https://h/p#bytes=0-16383, and next is the rest,
// https://h/p#bytes=16384-. A selection the source made (a CSS selector)
// keeps its reference: a byte fragment would count in the whole page.
//
// Lines or sections of such a text are named by a #lines= fragment before
// the bytes: https://h/p#lines=40-55#bytes=0-999 (a web page's lines are
// otherwise cited as text fragments, which cannot name a part of them).
func cutTextAsBytes(doc *retrieve.Document, out *outcome) bool {
	if _, text := out.data.(string); !text || !out.truncated || out.byteSpans || doc.Spans || out.partBase != "" || out.selected != "" ||
		doc.AppliedFilters["select"] != nil || len(out.dataBytes) == 0 || out.format == "binary" || !byteReferences(doc) {
		return false
	}
	if out.wanted != nil {
		out.bytesBase = doc.Locator + "#lines=" + extract.FormatRanges(out.wanted)
		out.wanted = nil
	}
	out.byteSpans = true
	out.spans = []extract.Range{{Start: 0, End: len(out.dataBytes) - 1}}
	return true
}

// trimPartialRune drops the start of a UTF-8 character that a byte limit
// cut off the end of sel's data, so that a cut byte range stays text and
// the next part starts on a character.
func trimPartialRune(sel *extract.LinesResult) {
	d := sel.Data
	if utf8.Valid(d) || len(sel.Spans) == 0 {
		return
	}
	for k := 1; k <= utf8.UTFMax-1 && k < len(d); k++ {
		if utf8.Valid(d[:len(d)-k]) {
			last := &sel.Spans[len(sel.Spans)-1]
			if last.End-last.Start+1 <= k {
				return
			}
			last.End -= k
			sel.Data = d[:len(d)-k]
			return
		}
	}
}
