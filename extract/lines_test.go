package extract_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/retrieve-dev/retrieve/extract"
)

// naiveLines selects lines the obvious way, for comparison: the selected
// data, its spans and the number of lines of doc.
func naiveLines(doc string, rs []extract.Range) (string, []extract.Range, int) {
	lines := strings.SplitAfter(doc, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var b strings.Builder
	var spans []extract.Range
	for i, l := range lines {
		n := i + 1
		for _, r := range rs {
			if n >= r.Start && (r.End == 0 || n <= r.End) {
				b.WriteString(l)
				if k := len(spans); k > 0 && spans[k-1].End == n-1 {
					spans[k-1].End = n
				} else {
					spans = append(spans, extract.Range{Start: n, End: n})
				}
				break
			}
		}
	}
	return b.String(), spans, len(lines)
}

func TestLines(t *testing.T) {
	const doc = "one\ntwo\nthree\nfour\nfive"
	tests := []struct {
		name     string
		doc      string
		ranges   []extract.Range
		maxBytes int64
		want     extract.LinesResult
	}{
		{"OK/ranges", doc, []extract.Range{{2, 3}, {5, 0}}, 0, extract.LinesResult{
			Data: []byte("two\nthree\nfive"), Spans: []extract.Range{{2, 3}, {5, 5}}, TotalLines: 5}},
		{"OK/all", doc, nil, 0, extract.LinesResult{
			Data: []byte(doc), Spans: []extract.Range{{1, 5}}, TotalLines: 5, ReturnedAll: true}},
		{"OK/all by range", doc + "\n", []extract.Range{{1, 0}}, 0, extract.LinesResult{
			Data: []byte(doc + "\n"), Spans: []extract.Range{{1, 5}}, TotalLines: 5, ReturnedAll: true}},
		{"OK/unsorted overlapping", doc, []extract.Range{{4, 4}, {1, 2}, {2, 2}}, 0, extract.LinesResult{
			Data: []byte("one\ntwo\nfour\n"), Spans: []extract.Range{{1, 2}, {4, 4}}, TotalLines: 5}},
		{"OK/adjacent spans join", doc, []extract.Range{{1, 1}, {2, 2}}, 0, extract.LinesResult{
			Data: []byte("one\ntwo\n"), Spans: []extract.Range{{1, 2}}, TotalLines: 5}},
		{"OK/crlf", "a\r\nb\r\nc\r\n", []extract.Range{{2, 2}}, 0, extract.LinesResult{
			Data: []byte("b\r\n"), Spans: []extract.Range{{2, 2}}, TotalLines: 3}},
		{"OK/empty document", "", nil, 0, extract.LinesResult{ReturnedAll: true}},
		{"OK/clamped", doc, []extract.Range{{4, 10}}, 0, extract.LinesResult{
			Data: []byte("four\nfive"), Spans: []extract.Range{{4, 5}}, TotalLines: 5, Clamped: true}},
		{"OK/one range past the end", doc, []extract.Range{{1, 1}, {9, 9}}, 0, extract.LinesResult{
			Data: []byte("one\n"), Spans: []extract.Range{{1, 1}}, TotalLines: 5, Clamped: true}},
		{"OK/clamped all", doc, []extract.Range{{1, 99}}, 0, extract.LinesResult{
			Data: []byte(doc), Spans: []extract.Range{{1, 5}}, TotalLines: 5, Clamped: true, ReturnedAll: true}},
		{"OK/max bytes", doc, nil, 9, extract.LinesResult{
			Data: []byte("one\ntwo\n"), Spans: []extract.Range{{1, 2}}, TotalLines: 5, Truncated: true}},
		{"OK/max bytes exact", doc, []extract.Range{{1, 2}}, 8, extract.LinesResult{
			Data: []byte("one\ntwo\n"), Spans: []extract.Range{{1, 2}}, TotalLines: 5}},
		{"OK/max bytes across ranges", doc, []extract.Range{{1, 1}, {3, 4}}, 10, extract.LinesResult{
			Data: []byte("one\nthree\n"), Spans: []extract.Range{{1, 1}, {3, 3}}, TotalLines: 5, Truncated: true}},
		{"OK/long first line cut at a character", "héllo wörld\nx\n", nil, 3, extract.LinesResult{
			Data: []byte("h\xc3\xa9"), Spans: []extract.Range{{1, 1}}, TotalLines: 2, Truncated: true, CutMidLine: true}},
		{"OK/long first line cut inside a character", "héllo\nx\n", nil, 2, extract.LinesResult{
			Data: []byte("h"), Spans: []extract.Range{{1, 1}}, TotalLines: 2, Truncated: true, CutMidLine: true}},
		{"OK/long first line cut to nothing", "é\n", nil, 1, extract.LinesResult{
			Data: []byte{}, TotalLines: 1, Truncated: true, CutMidLine: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := extract.Lines(strings.NewReader(tt.doc), tt.ranges, tt.maxBytes)
			if err != nil {
				t.Fatalf("Lines error: %v", err)
			}
			if diff := cmp.Diff(&tt.want, got, cmpBytes); diff != "" {
				t.Errorf("Lines(%q, %v, %d) (-want +got):\n%s", tt.doc, tt.ranges, tt.maxBytes, diff)
			}
		})
	}
	t.Run("ErrRangeNotFound", func(t *testing.T) {
		_, err := extract.Lines(strings.NewReader(doc), []extract.Range{{6, 9}, {12, 0}}, 0)
		if !errors.Is(err, extract.ErrRangeNotFound) || !strings.Contains(err.Error(), "5 lines") {
			t.Fatalf("got error %v, want ErrRangeNotFound saying the document has 5 lines", err)
		}
	})
	t.Run("ErrRangeNotFound/empty document", func(t *testing.T) {
		if _, err := extract.Lines(strings.NewReader(""), []extract.Range{{1, 0}}, 0); !errors.Is(err, extract.ErrRangeNotFound) {
			t.Fatalf("got error %v, want ErrRangeNotFound", err)
		}
	})
	t.Run("ErrBadRange", func(t *testing.T) {
		r := strings.NewReader(doc)
		if _, err := extract.Lines(r, []extract.Range{{0, 3}}, 0); !errors.Is(err, extract.ErrBadRange) {
			t.Fatalf("got error %v, want ErrBadRange", err)
		}
		if r.Len() != 0 {
			t.Errorf("%d bytes left unread after a bad range", r.Len())
		}
	})
	t.Run("OK/long line across buffers", func(t *testing.T) {
		long := strings.Repeat("y", 600<<10) + "\n"
		res, err := extract.Lines(strings.NewReader("a\n"+long+"b\n"), nil, 500<<10)
		if err != nil {
			t.Fatal(err)
		}
		if string(res.Data) != "a\n" || !cmp.Equal(res.Spans, []extract.Range{{1, 1}}) || res.TotalLines != 3 || !res.Truncated {
			t.Errorf("got %d bytes, spans %v, %d lines, truncated %v; want line 1 only of 3, truncated", len(res.Data), res.Spans, res.TotalLines, res.Truncated)
		}
	})
	t.Run("OK/long first line cut across buffers", func(t *testing.T) {
		// A 3-byte character straddles the cut and a bufio buffer boundary.
		long := strings.Repeat("€", 200<<10) + "\n"
		br := bufio.NewReaderSize(strings.NewReader(long), 4096)
		res, err := extract.Lines(br, nil, 100_000)
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Repeat("€", 100_000/3); string(res.Data) != want || !res.CutMidLine || res.TotalLines != 1 {
			t.Errorf("got %d bytes (cut %v, %d lines), want %d bytes of whole characters", len(res.Data), res.CutMidLine, res.TotalLines, len(want))
		}
	})
	t.Run("OK/long kept line", func(t *testing.T) {
		long := strings.Repeat("z", 1<<20) + "\n"
		doc := "a\n" + long + "b"
		res, err := extract.Lines(strings.NewReader(doc), []extract.Range{{2, 3}}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if string(res.Data) != long+"b" || res.TotalLines != 3 {
			t.Errorf("got %d bytes, %d lines; want %d bytes, 3 lines", len(res.Data), res.TotalLines, len(long)+1)
		}
	})
	t.Run("OK/consumed", func(t *testing.T) {
		for _, max := range []int64{0, 5} {
			r := strings.NewReader(doc)
			if _, err := extract.Lines(r, []extract.Range{{1, 1}}, max); err != nil {
				t.Fatal(err)
			}
			if r.Len() != 0 {
				t.Errorf("maxBytes %d: %d bytes left unread; the caller's hash would miss them", max, r.Len())
			}
		}
	})
	t.Run("OK/total lines with small buffer", func(t *testing.T) {
		doc := strings.Repeat("abc\n", 10000) + "tail"
		for _, rs := range [][]extract.Range{{{1, 1}}, {{5000, 5000}}, nil} {
			for _, size := range []int{16, 4096, 1 << 20} {
				res, err := extract.Lines(bufio.NewReaderSize(strings.NewReader(doc), size), rs, 0)
				if err != nil || res.TotalLines != 10001 {
					t.Errorf("ranges %v, buffer %d: TotalLines = %d, %v; want 10001", rs, size, res.TotalLines, err)
				}
			}
		}
	})
}

// cmpBytes compares a nil and an empty Data alike.
var cmpBytes = cmp.Comparer(func(a, b []byte) bool { return bytes.Equal(a, b) })

func TestBytes(t *testing.T) {
	const doc = "0123456789\nabc"
	tests := []struct {
		name     string
		ranges   []extract.Range
		maxBytes int64
		want     extract.LinesResult
	}{
		{"OK/range", []extract.Range{{2, 4}}, 0, extract.LinesResult{
			Data: []byte("234"), Spans: []extract.Range{{2, 4}}, TotalLines: 2}},
		{"OK/several", []extract.Range{{8, 9}, {0, 0}}, 0, extract.LinesResult{
			Data: []byte("089"), Spans: []extract.Range{{0, 0}, {8, 9}}, TotalLines: 2}},
		{"OK/open end", []extract.Range{{11, -1}}, 0, extract.LinesResult{
			Data: []byte("abc"), Spans: []extract.Range{{11, 13}}, TotalLines: 2}},
		{"OK/all", nil, 0, extract.LinesResult{
			Data: []byte(doc), Spans: []extract.Range{{0, 13}}, TotalLines: 2, ReturnedAll: true}},
		{"OK/clamped", []extract.Range{{10, 99}}, 0, extract.LinesResult{
			Data: []byte("\nabc"), Spans: []extract.Range{{10, 13}}, TotalLines: 2, Clamped: true}},
		{"OK/max bytes", []extract.Range{{0, 3}, {5, 8}}, 6, extract.LinesResult{
			Data: []byte("012356"), Spans: []extract.Range{{0, 3}, {5, 6}}, TotalLines: 2, Truncated: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := extract.Bytes(strings.NewReader(doc), tt.ranges, tt.maxBytes)
			if err != nil {
				t.Fatalf("Bytes error: %v", err)
			}
			if diff := cmp.Diff(&tt.want, got, cmpBytes); diff != "" {
				t.Errorf("Bytes(%v, %d) (-want +got):\n%s", tt.ranges, tt.maxBytes, diff)
			}
		})
	}
	t.Run("OK/ranges across reads", func(t *testing.T) {
		doc := strings.Repeat("0123456789", 100_000)
		rs := []extract.Range{{5, 300_000}, {400_000, 400_001}, {999_990, -1}}
		res, err := extract.Bytes(iotestHalf{strings.NewReader(doc)}, rs, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := doc[5:300_001] + doc[400_000:400_002] + doc[999_990:]
		if string(res.Data) != want || !cmp.Equal(res.Spans, []extract.Range{{5, 300_000}, {400_000, 400_001}, {999_990, 999_999}}) {
			t.Errorf("got %d bytes, spans %v; want %d bytes", len(res.Data), res.Spans, len(want))
		}
	})
	t.Run("ErrRangeNotFound", func(t *testing.T) {
		r := strings.NewReader(doc)
		_, err := extract.Bytes(r, []extract.Range{{14, 20}}, 0)
		if !errors.Is(err, extract.ErrRangeNotFound) || !strings.Contains(err.Error(), "14 bytes") || r.Len() != 0 {
			t.Fatalf("got error %v (%d bytes unread), want ErrRangeNotFound saying the document has 14 bytes", err, r.Len())
		}
	})
	t.Run("ErrBadRange", func(t *testing.T) {
		if _, err := extract.Bytes(strings.NewReader(doc), []extract.Range{{5, 2}}, 0); !errors.Is(err, extract.ErrBadRange) {
			t.Fatalf("got error %v, want ErrBadRange", err)
		}
	})
}

// iotestHalf returns at most 4093 bytes per read, so ranges straddle reads.
type iotestHalf struct{ r io.Reader }

func (h iotestHalf) Read(p []byte) (int, error) { return h.r.Read(p[:min(len(p), 4093)]) }

// textStream generates n bytes of 64-byte text lines on the fly.
type textStream struct{ n, off int64 }

var textBlock = bytes.Repeat([]byte(strings.Repeat("x", 63)+"\n"), 4096)

func (s *textStream) Read(p []byte) (int, error) {
	if s.off >= s.n {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), s.n-s.off)]
	m := 0
	for m < len(p) {
		m += copy(p[m:], textBlock[(s.off+int64(m))%int64(len(textBlock)):])
	}
	s.off += int64(m)
	return m, nil
}

// repeatByte is an endless reader of one byte.
type repeatByte byte

func (c repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c)
	}
	return len(p), nil
}

// allocated returns the bytes allocated while f runs.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestLinesBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 2 GiB")
	}
	t.Run("OK/2 GiB stream, lines 1-3", func(t *testing.T) {
		const size = 2 << 30
		var res *extract.LinesResult
		var err error
		start := time.Now()
		grew := allocated(func() { res, err = extract.Lines(&textStream{n: size}, []extract.Range{{1, 3}}, 0) })
		t.Logf("2 GiB in %v", time.Since(start))
		if err != nil || len(res.Data) != 3*64 || res.TotalLines != size/64 {
			t.Fatalf("got %d bytes, %d lines, %v; want 192 bytes, %d lines", len(res.Data), res.TotalLines, err, size/64)
		}
		if grew > 16<<20 {
			t.Errorf("allocated %d MiB to keep 3 lines of 2 GiB, want < 16 MiB", grew>>20)
		}
	})
	t.Run("OK/1 GiB stream, all lines, max 10 MiB", func(t *testing.T) {
		const size = 1 << 30
		var res *extract.LinesResult
		var err error
		grew := allocated(func() { res, err = extract.Lines(&textStream{n: size}, nil, 10<<20) })
		if err != nil || len(res.Data) != 10<<20 || !res.Truncated || res.TotalLines != size/64 {
			t.Fatalf("got %d bytes, truncated %v, %d lines, %v", len(res.Data), res.Truncated, res.TotalLines, err)
		}
		if grew > 48<<20 {
			t.Errorf("allocated %d MiB to keep 10 MiB of 1 GiB", grew>>20)
		}
	})
	t.Run("OK/100 MB line outside the range", func(t *testing.T) {
		var res *extract.LinesResult
		var err error
		r := io.MultiReader(strings.NewReader("first\n"), io.LimitReader(repeatByte('z'), 100<<20), strings.NewReader("\nlast\n"))
		grew := allocated(func() { res, err = extract.Lines(r, []extract.Range{{3, 3}}, 0) })
		if err != nil || string(res.Data) != "last\n" || res.TotalLines != 3 {
			t.Fatalf("got %q, %d lines, %v; want \"last\\n\", 3 lines", res.Data, res.TotalLines, err)
		}
		if grew > 16<<20 {
			t.Errorf("allocated %d MiB around a 100 MB line that is not kept", grew>>20)
		}
	})
	t.Run("OK/bytes of a 1 GiB stream", func(t *testing.T) {
		var res *extract.LinesResult
		var err error
		grew := allocated(func() { res, err = extract.Bytes(&textStream{n: 1 << 30}, []extract.Range{{0, 99}}, 0) })
		if err != nil || len(res.Data) != 100 || res.TotalLines != (1<<30)/64 {
			t.Fatalf("got %d bytes, %d lines, %v", len(res.Data), res.TotalLines, err)
		}
		if grew > 16<<20 {
			t.Errorf("allocated %d MiB to keep 100 bytes of 1 GiB", grew>>20)
		}
	})
}

func FuzzLines(f *testing.F) {
	f.Add("a\nb\nc", "2-3", int64(0))
	f.Add("a\r\nbb\n\nccc", "1,3-", int64(4))
	f.Add("", "1", int64(0))
	f.Add("héllo\nwörld\n", "-1", int64(2))
	f.Add("\n\n\n", "2-9", int64(1))
	f.Fuzz(func(t *testing.T, doc, spec string, maxBytes int64) {
		rs, err := extract.ParseRanges(spec)
		if err != nil {
			return
		}
		want, wantSpans, total := naiveLines(doc, rs)
		for _, size := range []int{16, 4096} {
			res, err := extract.Lines(bufio.NewReaderSize(strings.NewReader(doc), size), rs, 0)
			if rs[0].Start > total {
				if !errors.Is(err, extract.ErrRangeNotFound) {
					t.Fatalf("Lines(%q, %q) error = %v, want ErrRangeNotFound", doc, spec, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Lines(%q, %q) error: %v", doc, spec, err)
			}
			if string(res.Data) != want || res.TotalLines != total || !cmp.Equal(res.Spans, wantSpans) {
				t.Fatalf("Lines(%q, %q) = %q %v %d lines, want %q %v %d lines", doc, spec, res.Data, res.Spans, res.TotalLines, want, wantSpans, total)
			}
		}
		// LinesPrefix, which stops reading early, gives the same result
		// as a full read, capped or not, and never reads past what it needs
		// once every range is behind.
		for _, limit := range []int64{0, maxBytes} {
			full, ferr := extract.LinesSized(strings.NewReader(doc), rs, limit, int64(len(doc)))
			part, perr := extract.LinesPrefix(bufio.NewReaderSize(strings.NewReader(doc), 16), rs, limit, int64(len(doc)))
			if (ferr == nil) != (perr == nil) {
				t.Fatalf("LinesPrefix(%q, %q, %d) error %v, LinesSized %v", doc, spec, limit, perr, ferr)
			}
			if ferr != nil {
				continue
			}
			if part.TotalLines != -1 && part.TotalLines != full.TotalLines {
				t.Fatalf("LinesPrefix(%q, %q, %d) counted %d lines, want %d", doc, spec, limit, part.TotalLines, full.TotalLines)
			}
			part.TotalLines = full.TotalLines
			if !cmp.Equal(part, full) {
				t.Fatalf("LinesPrefix(%q, %q, %d) = %+v, LinesSized = %+v", doc, spec, limit, part, full)
			}
		}
		if maxBytes > 0 {
			capped, err := extract.Lines(strings.NewReader(doc), rs, maxBytes)
			if err != nil || int64(len(capped.Data)) > maxBytes || !strings.HasPrefix(want, string(capped.Data)) {
				t.Fatalf("capped at %d: %q (%v), not a prefix of %q", maxBytes, capped.Data, err, want)
			}
			if capped.Truncated != (int64(len(want)) > maxBytes) {
				t.Fatalf("capped at %d: truncated = %v for %d bytes", maxBytes, capped.Truncated, len(want))
			}
		}
	})
}

// TestLinesPrefixStops shows that a read of the first lines of a large
// document stops after them.
func TestLinesPrefixStops(t *testing.T) {
	doc := strings.Repeat("a line of the document\n", 100000)
	r := &countingReader{r: strings.NewReader(doc)}
	res, err := extract.LinesPrefix(bufio.NewReaderSize(r, 4096), []extract.Range{{Start: 1, End: 50}}, 0, int64(len(doc)))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Spans) != 1 || res.Spans[0] != (extract.Range{Start: 1, End: 50}) || res.ReturnedAll || res.TotalLines != -1 {
		t.Fatalf("got %+v", res)
	}
	if r.n > 8192 {
		t.Fatalf("read %d bytes of %d for 50 lines", r.n, len(doc))
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func BenchmarkLinesDrain(b *testing.B) {
	doc := bytes.Repeat([]byte("a line of text that is about sixty bytes long, more or less\n"), (64<<20)/60)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := extract.Lines(bytes.NewReader(doc), []extract.Range{{1, 10}}, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLinesMaxBytes(b *testing.B) {
	doc := bytes.Repeat([]byte("a line of text that is about sixty bytes long, more or less\n"), (64<<20)/60)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := extract.Lines(bytes.NewReader(doc), nil, 1<<20); err != nil {
			b.Fatal(err)
		}
	}
}

var _ = fmt.Sprint
