package extract

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Range is an inclusive range: 1-based line numbers for lines, 0-based
// offsets for bytes. End 0 means "to the end" (for lines; for bytes an open
// end is -1).
type Range struct{ Start, End int }

// ParseRanges parses line ranges: "1-50", "10-" (to the end), "-20"
// (= 1-20), "7" (= 7-7), "1-5,20-30". Lines start at 1. The result is
// sorted and overlapping or adjacent ranges are merged.
func ParseRanges(s string) ([]Range, error) {
	return parseRanges(s, 1)
}

// ParseByteRanges parses byte ranges with the same syntax: 0-based offsets,
// inclusive; "START-" runs to the end (End -1), "-N" is 0-N.
func ParseByteRanges(s string) ([]Range, error) {
	return parseRanges(s, 0)
}

func parseRanges(s string, first int) ([]Range, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: empty range", ErrBadRange)
	}
	open := 0
	if first == 0 {
		open = -1
	}
	var out []Range
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("%w: %q has an empty part", ErrBadRange, s)
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
			return nil, fmt.Errorf("%w: %q has a bare dash", ErrBadRange, s)
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
			return nil, fmt.Errorf("%w: %q: %s start at %d", ErrBadRange, s, unit(first), first)
		}
		if r.End != open && r.End < r.Start {
			return nil, fmt.Errorf("%w: %q: %d-%d ends before it starts", ErrBadRange, s, r.Start, r.End)
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
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("%w: %q: %q is not a number", ErrBadRange, whole, s)
	}
	return n, nil
}

// merge sorts ranges and merges overlapping or adjacent ones.
func merge(rs []Range, open int) []Range {
	sort.Slice(rs, func(i, j int) bool { return rs[i].Start < rs[j].Start })
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

// MergeLines sorts and merges line ranges (End 0 = to the end).
func MergeLines(rs []Range) []Range { return merge(append([]Range(nil), rs...), 0) }

// FormatRanges formats line ranges canonically: "1-5,20-30", "10-" for an
// open end, "7-7" for one line.
func FormatRanges(rs []Range) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		if r.End <= 0 {
			parts[i] = fmt.Sprintf("%d-", r.Start)
		} else {
			parts[i] = fmt.Sprintf("%d-%d", r.Start, r.End)
		}
	}
	return strings.Join(parts, ",")
}
