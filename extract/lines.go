package extract

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve/intl"
)

// LinesResult is what Lines and Bytes kept of a document.
type LinesResult struct {
	// Data is the kept bytes, line endings included.
	Data []byte
	// Spans are the contiguous spans actually returned, after clamping and
	// truncation: 1-based inclusive line numbers for Lines, 0-based
	// inclusive byte offsets for Bytes.
	Spans []Range
	// TotalLines counts the lines of the whole document.
	TotalLines int
	// Truncated is set when maxBytes cut the selection.
	Truncated bool
	// CutMidLine is set when a single line longer than maxBytes was cut at
	// a character boundary.
	CutMidLine bool
	// Clamped is set when a range reached past the end of the document.
	Clamped bool
	// ReturnedAll is set when the whole document was returned untruncated.
	ReturnedAll bool
}

// bufSize is the size of the buffers used to read and drain documents.
const bufSize = 256 << 10

var drainPool = sync.Pool{New: func() any { b := make([]byte, bufSize); return &b }}

var newline = []byte{'\n'}

// Lines reads r to the end and keeps the lines inside ranges (every line
// when ranges is empty). A line ends with "\n", which is kept ("\r\n" is
// kept as is); a final line without a newline counts; an empty document
// has no lines.
//
// Keeping stops at the line that would make Data exceed maxBytes (0 or
// less: unlimited), so truncation falls on a line boundary, except when the
// first kept line alone exceeds maxBytes: then its first maxBytes bytes are
// kept, cut at a character boundary, and CutMidLine is set.
//
// Lines always consumes r entirely, so that a caller hashing the stream
// sees every byte, and it holds only the kept bytes in memory, however
// long the document or its lines. A range reaching past the end is clamped;
// when every range starts past the end, the error wraps ErrRangeNotFound
// and says how many lines the document has. Invalid ranges (Start < 1,
// End < Start other than 0) give ErrBadRange; ranges need not be sorted.
func Lines(r io.Reader, ranges []Range, maxBytes int64) (*LinesResult, error) {
	return LinesSized(r, ranges, maxBytes, -1)
}

// LinesSized is Lines for a document of a known size (or -1): when the
// whole document is asked for, the data is allocated once at its final
// size instead of grown, which spares the garbage collector on large files.
func LinesSized(r io.Reader, ranges []Range, maxBytes, size int64) (*LinesResult, error) {
	return lines(r, ranges, maxBytes, size, false, false)
}

// LinesPrefix is LinesSized for a caller that already knows the hash of
// the whole document (a cached source hash): it stops reading as soon as
// the result can no longer change — every range served, or maxBytes reached
// with no range left that could reach past the end — and leaves the rest of
// r unread. The result is the one LinesSized gives, except that TotalLines
// is -1 when reading stopped before the end (TotalLines is only reported
// when a range reaches past the end, which a stop rules out).
func LinesPrefix(r io.Reader, ranges []Range, maxBytes, size int64) (*LinesResult, error) {
	return lines(r, ranges, maxBytes, size, true, false)
}

// LinesText is LinesPrefix keeping exactly the first maxBytes bytes of the
// selected lines' text, wherever the cut falls (inside any line, even
// inside a character): the text that a byte range within lines counts
// (big.log:40-#bytes=0-999). CutMidLine is set when the cut fell inside a
// line.
func LinesText(r io.Reader, ranges []Range, maxBytes int64) (*LinesResult, error) {
	return lines(r, ranges, maxBytes, -1, true, true)
}

func lines(r io.Reader, ranges []Range, maxBytes, size int64, stop, exact bool) (*LinesResult, error) {
	all := len(ranges) == 0
	if all {
		ranges = []Range{{Start: 1, End: 0}}
	} else {
		for _, rg := range ranges {
			if rg.Start < 1 || (rg.End != 0 && rg.End < rg.Start) {
				drain(r)
				return nil, fmt.Errorf("%w %d-%d", ErrBadRange, rg.Start, rg.End)
			}
		}
		ranges = MergeLines(ranges)
	}
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, readerSize(r))
	}
	sc := lineScanner{res: &LinesResult{}, ranges: ranges, maxBytes: maxBytes, exact: exact}
	if all && size > 0 {
		if maxBytes > 0 {
			size = min(size, maxBytes)
		}
		sc.res.Data = make([]byte, 0, min(size, 1<<30))
	}
	done, err := sc.scan(br, stop)
	if err != nil {
		return nil, err
	}
	if done {
		return sc.res, nil
	}
	return sc.finish(all)
}

// lineScanner keeps the lines of a document that its ranges select, up
// to maxBytes, in one pass; its methods are the steps of lines.
type lineScanner struct {
	res      *LinesResult
	ranges   []Range
	maxBytes int64
	// exact cuts at maxBytes itself, not at a line boundary (LinesText).
	exact bool

	ri           int  // the current range
	line         int  // the current line number
	full         bool // maxBytes reached: keep nothing more
	lineStarted  bool
	lineKept     bool
	lineStartLen int // len(res.Data) when the current line started
	spanStart    int
	spanEnd      int
}

// scan reads br to its end (or, with stop, until the rest cannot change
// the result: then done is true and the line count is unknown).
func (sc *lineScanner) scan(br *bufio.Reader, stop bool) (done bool, err error) {
	last := sc.ranges[len(sc.ranges)-1]
	for {
		// A caller that knows the hash stops once the rest cannot change
		// the result: every range is behind, or the cap is reached and the
		// last range (open or not) starts at or before this line, so that
		// no range can be clamped or missing.
		if stop && (sc.ri >= len(sc.ranges) || sc.full && last.Start <= sc.line && (last.End == 0 || last.End <= sc.line)) {
			if _, err := br.Peek(1); err == io.EOF {
				return false, nil // at the end after all: the count is exact
			}
			sc.closeSpan()
			sc.res.TotalLines = -1
			sc.res.ReturnedAll = false
			return true, nil
		}
		// Once nothing more can be kept, count the remaining lines fast.
		if sc.full || sc.ri >= len(sc.ranges) {
			n, err := countLines(br, sc.lineStarted)
			sc.line += n
			return false, err
		}
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			sc.chunk(chunk)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("read: %w", err)
		}
	}
}

// chunk takes one piece of a line (a whole line unless the line is longer
// than the read buffer).
func (sc *lineScanner) chunk(chunk []byte) {
	if !sc.lineStarted {
		sc.line++
		sc.lineStarted = true
		sc.lineKept = sc.keepLine(sc.line)
		sc.lineStartLen = len(sc.res.Data)
		if !sc.lineKept {
			sc.closeSpan()
		}
	}
	if sc.lineKept {
		if sc.maxBytes > 0 && int64(len(sc.res.Data)+len(chunk)) > sc.maxBytes {
			sc.overCap(chunk)
		} else {
			sc.res.Data = appendCapped(sc.res.Data, chunk, sc.maxBytes)
			if sc.spanStart != 0 && sc.spanEnd < sc.line-1 {
				sc.closeSpan()
			}
			sc.extendSpan()
		}
	}
	if chunk[len(chunk)-1] == '\n' {
		sc.lineStarted = false
	}
}

// overCap handles the chunk that would pass maxBytes: nothing more is kept.
func (sc *lineScanner) overCap(chunk []byte) {
	res := sc.res
	res.Truncated = true
	sc.full = true
	if sc.exact {
		res.Data = append(res.Data, chunk[:sc.maxBytes-int64(len(res.Data))]...)
		res.CutMidLine = int64(len(res.Data)) > int64(sc.lineStartLen)
		if res.CutMidLine {
			sc.extendSpan()
		}
		return
	}
	if sc.lineStartLen == 0 {
		// The first kept line alone is longer than the cap: cut it at a
		// character boundary.
		res.Data = cutRune(append(res.Data, chunk[:sc.maxBytes-int64(len(res.Data))]...))
		res.CutMidLine = true
		if len(res.Data) > 0 {
			sc.extendSpan()
		}
		return
	}
	// Back to the last line boundary; a line partly kept from earlier
	// chunks leaves the span.
	res.Data = res.Data[:sc.lineStartLen]
	if sc.spanStart != 0 && sc.spanEnd == sc.line {
		sc.spanEnd--
		if sc.spanEnd < sc.spanStart {
			sc.spanStart = 0
		}
	}
}

// extendSpan adds the current line to the open span (or opens one).
func (sc *lineScanner) extendSpan() {
	if sc.spanStart == 0 {
		sc.spanStart = sc.line
	}
	sc.spanEnd = sc.line
}

func (sc *lineScanner) closeSpan() {
	if sc.spanStart > 0 {
		sc.res.Spans = append(sc.res.Spans, Range{Start: sc.spanStart, End: sc.spanEnd})
		sc.spanStart = 0
	}
}

// keepLine says whether line n is in a range, moving past the ranges that
// end before it.
func (sc *lineScanner) keepLine(n int) bool {
	for sc.ri < len(sc.ranges) && sc.ranges[sc.ri].End != 0 && sc.ranges[sc.ri].End < n {
		sc.ri++
	}
	return sc.ri < len(sc.ranges) && sc.ranges[sc.ri].Start <= n
}

// finish closes the last span and checks the ranges against the count.
func (sc *lineScanner) finish(all bool) (*LinesResult, error) {
	sc.closeSpan()
	res, line := sc.res, sc.line
	res.TotalLines = line
	if !all {
		if sc.ranges[0].Start > line {
			return nil, fmt.Errorf("%w: lines %s start past the end of the document, which has %s",
				ErrRangeNotFound, FormatRanges(sc.ranges), intl.Plural(line, "line"))
		}
		last := sc.ranges[len(sc.ranges)-1]
		res.Clamped = last.Start > line || last.End > line
	}
	res.ReturnedAll = !res.Truncated && (line == 0 || len(res.Spans) == 1 && res.Spans[0].Start == 1 && res.Spans[0].End == line)
	return res, nil
}

// appendCapped appends chunk to data, doubling its capacity when it must
// grow but never beyond maxBytes (when positive): fewer and smaller
// allocations than append's growth by a quarter for large slices.
func appendCapped(data, chunk []byte, maxBytes int64) []byte {
	need := len(data) + len(chunk)
	if need > cap(data) {
		c := max(2*cap(data), need, 4096)
		if maxBytes > 0 && int64(c) > maxBytes {
			c = max(int(maxBytes), need)
		}
		grown := make([]byte, len(data), c)
		copy(grown, data)
		data = grown
	}
	return append(data, chunk...)
}

// readerSize sizes the read buffer: no larger than an in-memory document.
func readerSize(r io.Reader) int {
	if l, ok := r.(interface{ Len() int }); ok && l.Len() < bufSize {
		return max(l.Len()+1, 16)
	}
	return bufSize
}

// countLines counts the lines left in br. started says whether the current
// line has already been counted.
func countLines(br *bufio.Reader, started bool) (int, error) {
	n := 0
	last := byte('\n')
	if started {
		last = 0
	}
	// What br holds already.
	if b, _ := br.Peek(br.Buffered()); len(b) > 0 {
		n += bytes.Count(b, newline)
		last = b[len(b)-1]
		if _, err := br.Discard(len(b)); err != nil {
			return 0, fmt.Errorf("read: %w", err)
		}
	}
	// The rest, read straight from the source into a large buffer: a read
	// into a buffer at least as large as br's bypasses br's own buffer.
	if _, err := br.Peek(1); err == nil {
		bp := drainPool.Get().(*[]byte)
		defer drainPool.Put(bp)
		buf := *bp
		if len(buf) < br.Size() {
			buf = make([]byte, br.Size())
		}
		for {
			m, err := br.Read(buf)
			if m > 0 {
				n += bytes.Count(buf[:m], newline)
				last = buf[m-1]
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return 0, fmt.Errorf("read: %w", err)
			}
		}
	} else if err != io.EOF {
		return 0, fmt.Errorf("read: %w", err)
	}
	// A final line without a newline counts; a line already counted that
	// ends here must not count twice.
	if last != '\n' {
		n++
	}
	if started {
		n--
	}
	return n, nil
}

// drain reads r to the end, ignoring errors, so that a caller hashing the
// stream sees every byte even when the request is rejected.
func drain(r io.Reader) {
	bp := drainPool.Get().(*[]byte)
	defer drainPool.Put(bp)
	_, _ = io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, *bp)
}

// cutRune drops an incomplete UTF-8 character at the end of b.
func cutRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}

// Bytes reads r to the end and keeps the byte ranges (0-based offsets,
// inclusive; End -1, or End 0 with Start > 0, runs to the end; every byte
// when ranges is empty), up to maxBytes (0 or less: unlimited). Spans hold
// byte offsets. Like Lines, it always consumes r entirely, holds only the
// kept bytes, counts TotalLines, clamps ranges that reach past the end, and
// fails with ErrRangeNotFound when every range starts past the end.
func Bytes(r io.Reader, ranges []Range, maxBytes int64) (*LinesResult, error) {
	all := len(ranges) == 0
	if all {
		ranges = []Range{{Start: 0, End: -1}}
	} else {
		norm := make([]Range, len(ranges))
		for i, rg := range ranges {
			if rg.End < 0 || (rg.End == 0 && rg.Start > 0) {
				rg.End = -1
			}
			if rg.Start < 0 || (rg.End >= 0 && rg.End < rg.Start) {
				drain(r)
				return nil, fmt.Errorf("%w: bytes %d-%d", ErrBadRange, rg.Start, rg.End)
			}
			norm[i] = rg
		}
		ranges = merge(norm, -1)
	}
	res := &LinesResult{}
	bp := drainPool.Get().(*[]byte)
	defer drainPool.Put(bp)
	buf := *bp
	var off int64
	last := byte('\n')
	ri := 0
	for {
		m, err := r.Read(buf)
		if m > 0 {
			res.TotalLines += bytes.Count(buf[:m], newline)
			last = buf[m-1]
		}
		end := off + int64(m) - 1 // the offset of the last byte read
		for ; m > 0 && ri < len(ranges) && !res.Truncated; ri++ {
			lo, hi := int64(ranges[ri].Start), int64(ranges[ri].End)
			if hi < 0 {
				hi = 1<<62 - 1
			}
			s, e := max(lo, off), min(hi, end)
			if s > end {
				break // this range starts in a later read
			}
			take := buf[s-off : e-off+1]
			if maxBytes > 0 && int64(len(res.Data)+len(take)) > maxBytes {
				take = take[:maxBytes-int64(len(res.Data))]
				res.Truncated = true
			}
			if len(take) > 0 {
				if n := len(res.Spans); n > 0 && int64(res.Spans[n-1].End)+1 == s {
					res.Spans[n-1].End = int(s) + len(take) - 1
				} else {
					res.Spans = append(res.Spans, Range{Start: int(s), End: int(s) + len(take) - 1})
				}
				res.Data = append(res.Data, take...)
			}
			if hi > end {
				break // this range goes on in the next read
			}
		}
		off += int64(m)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
	}
	if last != '\n' {
		res.TotalLines++
	}
	if !all {
		if int64(ranges[0].Start) >= off {
			return nil, fmt.Errorf("%w: bytes %s start past the end of the document, which has %s",
				ErrRangeNotFound, FormatRanges(ranges), intl.Plural(int(off), "byte"))
		}
		lastR := ranges[len(ranges)-1]
		res.Clamped = int64(lastR.Start) >= off || int64(lastR.End) >= off
	}
	res.ReturnedAll = !res.Truncated && int64(len(res.Data)) == off
	return res, nil
}
