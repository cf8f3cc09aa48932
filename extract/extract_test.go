package extract_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
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
		{"1-5,20-30", []extract.Range{{1, 5}, {20, 30}}},
		{" 20-30 , 1 - 5 ", []extract.Range{{1, 5}, {20, 30}}},
		{"1-5,3-8,9-9", []extract.Range{{1, 9}}},
		{"5-,1-2", []extract.Range{{1, 2}, {5, 0}}},
		{"3-,5-7", []extract.Range{{3, 0}}},
	}
	for _, tt := range tests {
		t.Run("OK/"+tt.in, func(t *testing.T) {
			got, err := extract.ParseRanges(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseRanges(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
	for _, bad := range []string{"5-2", "0-3", "abc", "", "1-2,", "-", "1--2", "+1-2", "1-x"} {
		t.Run("ErrBadRange/"+bad, func(t *testing.T) {
			if _, err := extract.ParseRanges(bad); !errors.Is(err, extract.ErrBadRange) {
				t.Fatalf("ParseRanges(%q) = %v, want ErrBadRange", bad, err)
			}
		})
	}
}

func FuzzParseRanges(f *testing.F) {
	for _, s := range []string{"1-50", "10-", "-20", "7", "1-5,20-30", "5-2", "0", "1-5,3-8", " 2 - 3 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rs, err := extract.ParseRanges(s)
		if err != nil {
			return
		}
		again, err := extract.ParseRanges(extract.FormatRanges(rs))
		if err != nil {
			t.Fatalf("FormatRanges(%v) = %q does not parse: %v", rs, extract.FormatRanges(rs), err)
		}
		if !cmp.Equal(rs, again) {
			t.Fatalf("round trip of %q: %v → %q → %v", s, rs, extract.FormatRanges(rs), again)
		}
		for i, r := range rs {
			if r.Start < 1 || (r.End != 0 && r.End < r.Start) || (i > 0 && (rs[i-1].End == 0 || r.Start <= rs[i-1].End+1)) {
				t.Fatalf("ranges of %q not sorted, merged and valid: %v", s, rs)
			}
		}
	})
}

// naiveLines selects lines the obvious way, for comparison.
func naiveLines(doc string, rs []extract.Range) string {
	lines := strings.SplitAfter(doc, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var b strings.Builder
	for i, l := range lines {
		n := i + 1
		for _, r := range rs {
			if n >= r.Start && (r.End == 0 || n <= r.End) {
				b.WriteString(l)
				break
			}
		}
	}
	return b.String()
}

func TestLines(t *testing.T) {
	doc := "one\ntwo\nthree\nfour\nfive"
	t.Run("OK", func(t *testing.T) {
		res, err := extract.Lines(strings.NewReader(doc), []extract.Range{{2, 3}, {5, 0}}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if string(res.Data) != "two\nthree\nfive" || res.TotalLines != 5 || res.ReturnedAll {
			t.Errorf("data=%q total=%d all=%v", res.Data, res.TotalLines, res.ReturnedAll)
		}
		if diff := cmp.Diff([]extract.Range{{2, 3}, {5, 5}}, res.Spans); diff != "" {
			t.Errorf("spans (-want +got):\n%s", diff)
		}
	})
	t.Run("All", func(t *testing.T) {
		res, _ := extract.Lines(strings.NewReader(doc), nil, 0)
		if string(res.Data) != doc || !res.ReturnedAll || res.TotalLines != 5 {
			t.Errorf("data=%q all=%v total=%d", res.Data, res.ReturnedAll, res.TotalLines)
		}
	})
	t.Run("Clamped", func(t *testing.T) {
		res, err := extract.Lines(strings.NewReader(doc), []extract.Range{{4, 10}}, 0)
		if err != nil || string(res.Data) != "four\nfive" || !res.Clamped {
			t.Errorf("data=%q clamped=%v err=%v", res.Data, res.Clamped, err)
		}
	})
	t.Run("ErrRangeNotFound", func(t *testing.T) {
		_, err := extract.Lines(strings.NewReader(doc), []extract.Range{{6, 9}}, 0)
		if !errors.Is(err, extract.ErrRangeNotFound) || !strings.Contains(err.Error(), "5 lines") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("MaxBytes", func(t *testing.T) {
		res, _ := extract.Lines(strings.NewReader(doc), nil, 9)
		if string(res.Data) != "one\ntwo\n" || !res.Truncated || res.Spans[0] != (extract.Range{Start: 1, End: 2}) {
			t.Errorf("data=%q truncated=%v spans=%v", res.Data, res.Truncated, res.Spans)
		}
	})
	t.Run("MaxBytesLongLine", func(t *testing.T) {
		res, _ := extract.Lines(strings.NewReader("héllo wörld\nx\n"), nil, 3)
		if string(res.Data) != "h\xc3\xa9" || !res.CutMidLine {
			t.Errorf("data=%q cut=%v", res.Data, res.CutMidLine)
		}
	})
	t.Run("MaxBytesAcrossBufferedLine", func(t *testing.T) {
		long := strings.Repeat("y", 600<<10) + "\n"
		res, _ := extract.Lines(strings.NewReader("a\n"+long+"b\n"), nil, 500<<10)
		if string(res.Data) != "a\n" || res.Spans[0] != (extract.Range{Start: 1, End: 1}) || res.TotalLines != 3 {
			t.Errorf("got %d bytes spans=%v total=%d, want only line 1", len(res.Data), res.Spans, res.TotalLines)
		}
	})
	t.Run("Consumed", func(t *testing.T) {
		r := strings.NewReader(doc)
		extract.Lines(r, []extract.Range{{1, 1}}, 0)
		if r.Len() != 0 {
			t.Errorf("%d bytes left unread: the caller's hash would miss them", r.Len())
		}
	})
}

// zeroText is a reader of n bytes of short text lines, made on the fly.
type zeroText struct{ n, off int64 }

func (z *zeroText) Read(p []byte) (int, error) {
	if z.off >= z.n {
		return 0, io.EOF
	}
	m := int64(len(p))
	if z.n-z.off < m {
		m = z.n - z.off
	}
	for i := range p[:m] {
		if (z.off+int64(i))%64 == 63 {
			p[i] = '\n'
		} else {
			p[i] = 'x'
		}
	}
	z.off += m
	return int(m), nil
}

// repeatByte is an endless reader of one byte.
type repeatByte byte

func (c repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c)
	}
	return len(p), nil
}

func TestLinesBoundedMemory(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := extract.Lines(&zeroText{n: 1 << 30}, []extract.Range{{1, 3}}, 0)
	runtime.ReadMemStats(&after)
	if err != nil || len(res.Data) != 3*64 || res.TotalLines != (1<<30)/64 {
		t.Fatalf("data=%d total=%d err=%v", len(res.Data), res.TotalLines, err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("allocated %d MiB to keep 3 lines of 1 GiB", grew>>20)
	}
	// A 100 MB line outside the range is never buffered.
	r := io.MultiReader(strings.NewReader("first\n"), io.LimitReader(repeatByte('z'), 100<<20), strings.NewReader("\nlast\n"))
	runtime.ReadMemStats(&before)
	res, err = extract.Lines(r, []extract.Range{{3, 3}}, 0)
	runtime.ReadMemStats(&after)
	if err != nil || string(res.Data) != "last\n" {
		t.Fatalf("data=%q err=%v", res.Data, err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("allocated %d MiB around a 100 MB line that is not kept", grew>>20)
	}
}

func FuzzLines(f *testing.F) {
	f.Add("a\nb\nc", "2-3", int64(0))
	f.Add("a\r\nbb\n\nccc", "1,3-", int64(4))
	f.Add("", "1", int64(0))
	f.Fuzz(func(t *testing.T, doc, spec string, maxBytes int64) {
		rs, err := extract.ParseRanges(spec)
		if err != nil {
			return
		}
		res, err := extract.Lines(strings.NewReader(doc), rs, 0)
		if err != nil {
			if !errors.Is(err, extract.ErrRangeNotFound) {
				t.Fatal(err)
			}
			return
		}
		if want := naiveLines(doc, rs); string(res.Data) != want {
			t.Fatalf("Lines(%q, %q) = %q, want %q", doc, spec, res.Data, want)
		}
		if maxBytes > 0 {
			capped, err := extract.Lines(strings.NewReader(doc), rs, maxBytes)
			if err != nil || int64(len(capped.Data)) > maxBytes || !bytes.HasPrefix(res.Data, capped.Data) {
				t.Fatalf("capped at %d: %q (%v), not a prefix of %q", maxBytes, capped.Data, err, res.Data)
			}
		}
	})
}

const guide = `---
title: Guide
---
# Guide

Intro.

## Install

` + "```sh\n# not a heading\n```" + `

### Linux

apt-get install x

Setext heading
--------------

text

## Usage

run it
`

func TestHeadings(t *testing.T) {
	hs := extract.Headings([]byte(guide))
	var got []string
	for _, h := range hs {
		got = append(got, h.Path)
	}
	want := []string{"Guide", "Guide > Install", "Guide > Install > Linux", "Guide > Setext heading", "Guide > Usage"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("headings (-want +got):\n%s", diff)
	}
	if hs[0].StartLine != 4 || hs[1].StartLine != 8 || hs[2].StartLine != 14 || hs[2].EndLine != 17 {
		t.Errorf("lines: %+v", hs)
	}
}

func TestSections(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		rs, err := extract.Sections([]byte(guide), []string{"linux", "Guide > Usage"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]extract.Range{{14, 17}, {23, 25}}, rs); diff != "" {
			t.Errorf("ranges (-want +got):\n%s", diff)
		}
	})
	t.Run("ErrSectionNotFound", func(t *testing.T) {
		_, err := extract.Sections([]byte(guide), []string{"Windows"})
		var snf *extract.SectionNotFoundError
		if !errors.As(err, &snf) || !errors.Is(err, extract.ErrSectionNotFound) || len(snf.Alternatives()) != 5 {
			t.Fatalf("err = %v", err)
		}
	})
}

func FuzzSections(f *testing.F) {
	f.Add(guide, "Install")
	f.Add("# a\n## b\n# c\n", "b")
	f.Add("---\n---\n# x", "x")
	f.Fuzz(func(t *testing.T, doc, sel string) {
		rs, err := extract.Sections([]byte(doc), []string{sel})
		if err != nil {
			return
		}
		total := len(strings.SplitAfter(doc, "\n"))
		for i, r := range rs {
			if r.Start < 1 || r.End < r.Start || r.End > total || (i > 0 && r.Start <= rs[i-1].End) {
				t.Fatalf("bad ranges %v for a %d-line document", rs, total)
			}
		}
	})
}

func TestParseAndSelect(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		format, data, expr string
		want               any
	}{
		{"json", `{"a":{"b":[1,2,3]},"big":12345678901234567}`, ".big", 12345678901234567},
		{"json", `{"a":{"b":[1,2,3]}}`, ".a.b[1]", 2},
		{"yaml", "when: 2025-01-02\nn: 3\non: yes\n", ".when", "2025-01-02T00:00:00Z"},
		{"yaml", "a: [x, y]\n", ".a[]", []any{"x", "y"}},
		{"toml", "[owner]\nname = \"Tom\"\ndob = 1979-05-27T07:32:00Z\n", ".owner.name", "Tom"},
		{"csv", "name,age\nann,3\nbob,4\n", ".[1].name", "bob"},
		{"json", `{"a":1}`, ".missing", nil},
	}
	for _, tt := range tests {
		t.Run("OK/"+tt.format+tt.expr, func(t *testing.T) {
			v, err := extract.Parse([]byte(tt.data), tt.format)
			if err != nil {
				t.Fatal(err)
			}
			got, err := extract.Select(ctx, v, tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, tt := range []struct{ format, data string }{{"json", `{"a":`}, {"json", `{} {}`}, {"yaml", "a: [1\n"}, {"toml", "a = \n"}, {"csv", "a,\"b\n"}} {
		t.Run("ErrParse/"+tt.format, func(t *testing.T) {
			if _, err := extract.Parse([]byte(tt.data), tt.format); !errors.Is(err, extract.ErrParse) {
				t.Fatalf("err = %v, want ErrParse", err)
			}
		})
	}
	t.Run("ErrSelect", func(t *testing.T) {
		for _, expr := range []string{".[", "error(\"boom\")", "undefined_fn"} {
			if _, err := extract.Select(ctx, map[string]any{}, expr); !errors.Is(err, extract.ErrSelect) {
				t.Errorf("Select(%q) = %v, want ErrSelect", expr, err)
			}
		}
	})
	t.Run("ErrNotStructured", func(t *testing.T) {
		if _, err := extract.Parse([]byte("x"), "markdown"); !errors.Is(err, extract.ErrNotStructured) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name, head, want string
	}{
		{"a.json", `{}`, "json"},
		{"a.yml", "a: 1", "yaml"},
		{"README.md", "# x", "markdown"},
		{"user.ts", "interface X {}", "typescript"},
		{"noext", `{"a": 1}`, "json"},
		{"noext", "plain words\n", "text"},
		{"a.txt", "abc\x00def", "binary"},
		{"a.txt", "caf\xe9 au lait", "binary"},
		{"a.txt", "caf\xc3", "text"}, // a character cut by the sniff window
		{"x.png", "\x89PNG\r\n\x1a\n\x00\x00", "binary"},
		{"empty", "", "text"},
	}
	for _, tt := range tests {
		if got := extract.Detect(tt.name, []byte(tt.head)); got != tt.want {
			t.Errorf("Detect(%q, %q) = %s, want %s", tt.name, tt.head, got, tt.want)
		}
	}
}

func BenchmarkLinesDrain(b *testing.B) {
	doc := bytes.Repeat([]byte("a line of text that is about sixty bytes long, more or less\n"), (64<<20)/60)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := extract.Lines(bytes.NewReader(doc), []extract.Range{{1, 10}}, 0); err != nil {
			b.Fatal(err)
		}
	}
}
