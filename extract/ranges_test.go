package extract_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retrieve-dev/retrieve/extract"
)

func TestParseRanges(t *testing.T) {
	tests := []struct {
		in   string
		want []extract.Range
	}{
		{"1-50", []extract.Range{{1, 50}}},
		{"10-", []extract.Range{{10, 0}}},
		{"-20", []extract.Range{{1, 20}}},
		{"7", []extract.Range{{7, 7}}},
		{"007", []extract.Range{{7, 7}}},
		{"1-5,20-30", []extract.Range{{1, 5}, {20, 30}}},
		{" 20-30 , 1 - 5 ", []extract.Range{{1, 5}, {20, 30}}},
		{"1-5,3-8,9-9", []extract.Range{{1, 9}}},
		{"1-5,6-8", []extract.Range{{1, 8}}},
		{"5-,1-2", []extract.Range{{1, 2}, {5, 0}}},
		{"3-,5-7", []extract.Range{{3, 0}}},
		{"5-7,3-", []extract.Range{{3, 0}}},
	}
	for _, tt := range tests {
		t.Run("OK/"+tt.in, func(t *testing.T) {
			got, err := extract.ParseRanges(tt.in)
			if err != nil {
				t.Fatalf("ParseRanges(%q) error: %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseRanges(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
	for _, bad := range []string{"5-2", "0-3", "0", "abc", "", "  ", "1-2,", ",1", "1,,2", "-", "1--2", "+1-2", "1-x", "1 2", "1-2-3", "99999999999999999999", "1e3"} {
		t.Run("ErrBadRange/"+bad, func(t *testing.T) {
			got, err := extract.ParseRanges(bad)
			if !errors.Is(err, extract.ErrBadRange) {
				t.Fatalf("ParseRanges(%q) = %v, %v; want ErrBadRange", bad, got, err)
			}
		})
	}
}

func TestParseByteRanges(t *testing.T) {
	tests := []struct {
		in   string
		want []extract.Range
	}{
		{"0-9", []extract.Range{{0, 9}}},
		{"0", []extract.Range{{0, 0}}},
		{"-9", []extract.Range{{0, 9}}},
		{"100-", []extract.Range{{100, -1}}},
		{"10-19,0-9", []extract.Range{{0, 19}}},
	}
	for _, tt := range tests {
		t.Run("OK/"+tt.in, func(t *testing.T) {
			got, err := extract.ParseByteRanges(tt.in)
			if err != nil {
				t.Fatalf("ParseByteRanges(%q) error: %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseByteRanges(%q) (-want +got):\n%s", tt.in, diff)
			}
			again, err := extract.ParseByteRanges(extract.FormatRanges(got))
			if err != nil || !cmp.Equal(got, again) {
				t.Errorf("round trip of %v: %q gives %v, %v", got, extract.FormatRanges(got), again, err)
			}
		})
	}
	for _, bad := range []string{"9-0", "x", "", "-"} {
		t.Run("ErrBadRange/"+bad, func(t *testing.T) {
			if _, err := extract.ParseByteRanges(bad); !errors.Is(err, extract.ErrBadRange) {
				t.Fatalf("ParseByteRanges(%q) error = %v, want ErrBadRange", bad, err)
			}
		})
	}
}

func TestFormatRanges(t *testing.T) {
	tests := []struct {
		in   []extract.Range
		want string
	}{
		{[]extract.Range{{1, 5}, {20, 30}}, "1-5,20-30"},
		{[]extract.Range{{7, 7}}, "7-7"},
		{[]extract.Range{{10, 0}}, "10-"},
		{[]extract.Range{{0, 0}}, "0-0"},
		{[]extract.Range{{4, -1}}, "4-"},
		{nil, ""},
	}
	for _, tt := range tests {
		t.Run("OK/"+tt.want, func(t *testing.T) {
			if got := extract.FormatRanges(tt.in); got != tt.want {
				t.Errorf("FormatRanges(%v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestMergeLines(t *testing.T) {
	in := []extract.Range{{20, 30}, {1, 5}, {4, 10}}
	want := []extract.Range{{1, 10}, {20, 30}}
	if got := extract.MergeLines(in); !cmp.Equal(got, want) {
		t.Errorf("MergeLines(%v) = %v, want %v", in, got, want)
	}
	if in[0] != (extract.Range{20, 30}) {
		t.Errorf("MergeLines modified its argument: %v", in)
	}
}

func FuzzParseRanges(f *testing.F) {
	for _, s := range []string{"1-50", "10-", "-20", "7", "1-5,20-30", "5-2", "0", "1-5,3-8", " 2 - 3 ", "3-,1-2", "9007199254740992-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range []struct {
			parse func(string) ([]extract.Range, error)
			first int
			open  int
		}{{extract.ParseRanges, 1, 0}, {extract.ParseByteRanges, 0, -1}} {
			rs, err := p.parse(s)
			if err != nil {
				if !errors.Is(err, extract.ErrBadRange) {
					t.Fatalf("parse(%q) error %v does not wrap ErrBadRange", s, err)
				}
				continue
			}
			again, err := p.parse(extract.FormatRanges(rs))
			if err != nil {
				t.Fatalf("FormatRanges(%v) = %q does not parse: %v", rs, extract.FormatRanges(rs), err)
			}
			if !cmp.Equal(rs, again) {
				t.Fatalf("round trip of %q: %v → %q → %v", s, rs, extract.FormatRanges(rs), again)
			}
			for i, r := range rs {
				if r.Start < p.first || (r.End != p.open && r.End < r.Start) || (i > 0 && (rs[i-1].End == p.open || r.Start <= rs[i-1].End+1)) {
					t.Fatalf("ranges of %q not sorted, merged and valid: %v", s, rs)
				}
			}
		}
	})
}
