package extract

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// LinesResult is what Lines and Bytes kept of a document.
type LinesResult struct {
	// Data is the kept bytes.
	Data []byte
	// Spans are the contiguous spans returned: 1-based lines for Lines,
	// 0-based byte offsets for Bytes.
	Spans []Range
	// TotalLines counts the lines of the whole document (Lines only).
	TotalLines int
	// Truncated is set when maxBytes cut the selection.
	Truncated bool
	// CutMidLine is set when a single line longer than maxBytes was cut
	// at a character boundary.
	CutMidLine bool
	// Clamped is set when a range reached past the end of the document.
	Clamped bool
	// ReturnedAll is set when the whole document was returned untruncated.
	ReturnedAll bool
}

// drainBuf is the buffer size used to read past the kept part.
const drainBuf = 256 << 10

// Lines reads r to the end and keeps the lines inside ranges (all lines
// when ranges is empty), up to maxBytes (0: unlimited), cut at a line
// boundary. It always consumes r entirely, so a caller hashing the stream
// sees every byte, and it holds only the kept bytes in memory, however long
// the document or its lines.
func Lines(r io.Reader, ranges []Range, maxBytes int64) (*LinesResult, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, drainBuf)
	}
	res := &LinesResult{}
	all := len(ranges) == 0
	if all {
		ranges = []Range{{Start: 1, End: 0}}
	}
	ri := 0 // the current range
	line := 0
	full := false // maxBytes reached: keep nothing more
	lineStarted := false
	lineKept := false
	lineStartLen := 0
	var spanStart, spanEnd int
	closeSpan := func() {
		if spanStart > 0 {
			res.Spans = append(res.Spans, Range{Start: spanStart, End: spanEnd})
			spanStart = 0
		}
	}
	keepLine := func(n int) bool {
		for ri < len(ranges) && ranges[ri].End != 0 && ranges[ri].End < n {
			ri++
		}
		return ri < len(ranges) && ranges[ri].Start <= n
	}
	for {
		// Once nothing more can be kept, count the remaining lines fast.
		if full || ri >= len(ranges) {
			n, err := countLines(br, lineStarted)
			line += n
			if err != nil {
				return nil, err
			}
			break
		}
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			if !lineStarted {
				line++
				lineStarted = true
				lineKept = keepLine(line)
				lineStartLen = len(res.Data)
				if !lineKept {
					closeSpan()
				}
			}
			if lineKept {
				if maxBytes > 0 && int64(len(res.Data)+len(chunk)) > maxBytes {
					res.Truncated = true
					full = true
					if lineStartLen == 0 {
						// One line longer than the cap: cut it at a character boundary.
						res.Data = append(res.Data, validPrefix(chunk[:maxBytes-int64(len(res.Data))])...)
						res.CutMidLine = true
						if spanStart == 0 {
							spanStart = line
						}
						spanEnd = line
					} else {
						// Back to the last line boundary; a line partly kept
						// from earlier chunks leaves the span.
						res.Data = res.Data[:lineStartLen]
						if spanStart != 0 && spanEnd == line {
							spanEnd--
							if spanEnd < spanStart {
								spanStart = 0
							}
						}
					}
				} else {
					res.Data = append(res.Data, chunk...)
					if spanStart != 0 && spanEnd < line-1 {
						closeSpan()
					}
					if spanStart == 0 {
						spanStart = line
					}
					spanEnd = line
				}
			}
			if chunk[len(chunk)-1] == '\n' {
				lineStarted = false
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
	}
	closeSpan()
	res.TotalLines = line
	if !all {
		inside := false
		for _, rg := range ranges {
			if rg.Start <= line {
				inside = true
			}
			if rg.End > line {
				res.Clamped = true
			}
		}
		if !inside {
			return nil, fmt.Errorf("%w: the document has %d lines; the range %s starts past the end", ErrRangeNotFound, line, FormatRanges(ranges))
		}
	}
	res.ReturnedAll = !res.Truncated && (line == 0 || len(res.Spans) == 1 && res.Spans[0].Start == 1 && res.Spans[0].End == line)
	return res, nil
}

// countLines counts the lines left in br, using br's own buffer. started
// says whether the current line has already been counted.
func countLines(br *bufio.Reader, started bool) (int, error) {
	n := 0
	last := byte('\n')
	if started {
		last = 0
	}
	for {
		if br.Buffered() == 0 {
			if _, err := br.Peek(1); err != nil {
				if err == io.EOF {
					break
				}
				return 0, fmt.Errorf("read: %w", err)
			}
		}
		b, _ := br.Peek(br.Buffered())
		n += bytes.Count(b, []byte{'\n'})
		last = b[len(b)-1]
		if _, err := br.Discard(len(b)); err != nil {
			return 0, fmt.Errorf("read: %w", err)
		}
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

// validPrefix cuts b at the last complete UTF-8 character.
func validPrefix(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		if utf8.Valid(b) {
			return b
		}
		b = b[:len(b)-1]
	}
	return b
}

// Bytes reads r to the end and keeps the byte ranges (0-based, inclusive,
// End -1 for an open end), up to maxBytes.
func Bytes(r io.Reader, ranges []Range, maxBytes int64) (*LinesResult, error) {
	res := &LinesResult{}
	buf := make([]byte, drainBuf)
	var off int64
	for {
		m, err := r.Read(buf)
		for _, rg := range ranges {
			lo, hi := int64(rg.Start), int64(rg.End)
			if hi < 0 {
				hi = 1<<62 - 1
			}
			s, e := max(lo, off), min(hi, off+int64(m)-1)
			if s > e {
				continue
			}
			take := buf[s-off : e-off+1]
			if maxBytes > 0 && int64(len(res.Data)+len(take)) > maxBytes {
				take = take[:maxBytes-int64(len(res.Data))]
				res.Truncated = true
			}
			if len(take) == 0 {
				continue
			}
			if n := len(res.Spans); n > 0 && int64(res.Spans[n-1].End)+1 == s {
				res.Spans[n-1].End = int(s) + len(take) - 1
			} else {
				res.Spans = append(res.Spans, Range{Start: int(s), End: int(s) + len(take) - 1})
			}
			res.Data = append(res.Data, take...)
		}
		off += int64(m)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
	}
	if len(ranges) > 0 && int64(ranges[0].Start) >= off && off > 0 || len(ranges) > 0 && off == 0 && ranges[0].Start > 0 {
		return nil, fmt.Errorf("%w: the document has %d bytes; the range starts past the end", ErrRangeNotFound, off)
	}
	for _, rg := range ranges {
		if int64(rg.End) >= off {
			res.Clamped = true
		}
	}
	res.ReturnedAll = !res.Truncated && int64(len(res.Data)) == off
	return res, nil
}
