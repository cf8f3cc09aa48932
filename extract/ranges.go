package extract

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Range is an inclusive range. For lines, Start and End are 1-based line
// numbers and End 0 means "to the end". For bytes, they are 0-based
// offsets and End -1 means "to the end" (ParseByteRanges produces -1; Bytes
// also reads End 0 with Start > 0 as open).
type Range struct{ Start, End int }

// maxRangeNumber bounds the numbers of a range, so that End+1 never
// overflows.
const maxRangeNumber = 1 << 53

// ParseRanges parses line ranges: "1-50", "10-" (to the end), "-20"
// (= 1-20), "7" (= 7-7), "1-5,20-30"; spaces around commas and dashes are
// tolerated. Lines start at 1. The result is sorted by start, and
// overlapping or adjacent ranges are merged. A malformed range gives an
// error wrapping ErrBadRange.
func ParseRanges(s string) ([]Range, error) {
	return parseRanges(s, 1)
}

// ParseByteRanges parses byte ranges with the syntax of ParseRanges, as
// 0-based inclusive offsets: "START-END", "START-" to the end (End -1),
// "N" (= N-N) and "-N" (= 0-N, the first N+1 bytes). The result is sorted
// and merged.
func ParseByteRanges(s string) ([]Range, error) {
	return parseRanges(s, 0)
}

func parseRanges(s string, first int) ([]Range, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: the range is empty", ErrBadRange)
	}
	open := 0
	if first == 0 {
		open = -1
	}
	var out []Range
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("%w %q: a part between commas is empty", ErrBadRange, s)
		}
		a, b, isRange := strings.Cut(part, "-")
		a, b = strings.TrimSpace(a), strings.TrimSpace(b)
		var r Range
		var err error
		switch {
		case !isRange:
			if r.Start, err = num(a, s); err != nil {
				return nil, err
			}
			r.End = r.Start
		case a == "" && b == "":
			return nil, fmt.Errorf("%w %q: a dash needs a start or an end", ErrBadRange, s)
		case a == "":
			r.Start = first
			if r.End, err = num(b, s); err != nil {
				return nil, err
			}
		case b == "":
			if r.Start, err = num(a, s); err != nil {
				return nil, err
			}
			r.End = open
		default:
			if r.Start, err = num(a, s); err != nil {
				return nil, err
			}
			if r.End, err = num(b, s); err != nil {
				return nil, err
			}
		}
		if r.Start < first {
			return nil, fmt.Errorf("%w %q: %s start at %d", ErrBadRange, s, unit(first), first)
		}
		if r.End != open && r.End < r.Start {
			return nil, fmt.Errorf("%w %q: %d-%d ends before it starts", ErrBadRange, s, r.Start, r.End)
		}
		out = append(out, r)
	}
	return merge(out, open), nil
}

func unit(first int) string {
	if first == 1 {
		return "lines"
	}
	return "byte offsets"
}

func num(s, whole string) (int, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("%w %q: %q is not a number", ErrBadRange, whole, s)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > maxRangeNumber {
		return 0, fmt.Errorf("%w %q: %s is too large", ErrBadRange, whole, s)
	}
	return n, nil
}

// merge sorts ranges and merges overlapping or adjacent ones; open is the
// End value that means "to the end".
func merge(rs []Range, open int) []Range {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Start < rs[j].Start })
	var out []Range
	for _, r := range rs {
		if n := len(out); n > 0 {
			last := &out[n-1]
			if last.End == open || r.Start <= last.End+1 {
				if last.End != open && (r.End == open || r.End > last.End) {
					last.End = r.End
				}
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

// MergeLines returns line ranges (End 0 = to the end) sorted by start, with
// overlapping or adjacent ranges merged. It does not modify rs.
func MergeLines(rs []Range) []Range { return merge(append([]Range(nil), rs...), 0) }

// FormatRanges formats ranges canonically, always as START-END: "1-5,20-30",
// "7-7" for a single line, "10-" for an open end. It formats line ranges
// (End 0 = open) and byte ranges (End -1 = open; Range{0, 0} is "0-0")
// alike, and ParseRanges or ParseByteRanges reads its output back.
func FormatRanges(rs []Range) string {
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(r.Start))
		b.WriteByte('-')
		if r.End > 0 || (r.End == 0 && r.Start == 0) {
			b.WriteString(strconv.Itoa(r.End))
		}
	}
	return b.String()
}
