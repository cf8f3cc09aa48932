// Package formattest is the conformance suite every document format passes:
// a format's test calls Run with its extractor and a few sample documents,
// and the suite holds it to the contract of format.Extractor (parts that cut
// the text, citable spans, determinism, part selection, bounded memory,
// typed errors, limits).
package formattest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/format"
)

// Sample is one document of the format under test.
type Sample struct {
	// Name names the sample in subtests ("two-pages.pdf").
	Name string
	// Data is the document's bytes.
	Data []byte
	// Phrase is a phrase the extracted text must contain, verbatim.
	Phrase string
	// Large marks the sample the memory bound is measured on: a generated
	// document of a few MiB (of bytes or of text: a compressed format may be
	// small on disk). Run requires one.
	Large bool
}

// AllocFactor bounds what one extraction allocates in all (garbage
// included, not the peak): at most AllocFactor times the bytes of the input
// plus the text, plus AllocSlack. Measured per byte of input + text: plain
// text 1, CSV 9, Markdown 25 (goldmark's outline), a notebook 32, DOCX 25,
// HTML 38 (readability, then the Markdown converter), PDF 36 with plain
// content streams and 82 with deflated ones (its input is small for its
// text), EPUB 14, ODT 15, ODP 23, PPTX 26, ODS 46, XLSX 52. A format over the bound holds its input many times over, or grows
// with something other than its size.
const (
	AllocFactor = 128
	AllocSlack  = 4 << 20
)

// sentinels are the errors an extractor may return, wrapped.
var sentinels = []error{
	format.ErrUnsupported, format.ErrEncrypted, format.ErrNoText,
	format.ErrTooLarge, format.ErrMalformed, format.ErrNoPart,
}

// Garbage is input no format accepts: NUL bytes and invalid UTF-8.
var Garbage = []byte("\x00\xff\xfe\x00garbage\x00\x80\x81\x82\xc3\x28\xa0\xa1\x00\x00\x00")

// Run holds ex to the contract of format.Extractor on samples.
func Run(t *testing.T, ex format.Extractor, samples []Sample) {
	t.Helper()
	if len(samples) == 0 {
		t.Fatal("formattest.Run: no samples")
	}
	t.Run("Info", func(t *testing.T) { checkInfo(t, ex) })
	large := false
	for _, s := range samples {
		if s.Large {
			large = true
			t.Run("BoundedMemory/"+s.Name, func(t *testing.T) { checkMemory(t, ex, s) })
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			txt := extract(t, ex, s.Data, format.Options{})
			t.Run("Parts", func(t *testing.T) { CheckText(t, txt) })
			t.Run("Phrase", func(t *testing.T) {
				if !strings.Contains(txt.Text, s.Phrase) {
					t.Fatalf("the text does not contain %q:\n%s", s.Phrase, clip(txt.Text))
				}
			})
			t.Run("Quote", func(t *testing.T) { checkQuote(t, txt, s.Phrase) })
			t.Run("Deterministic", func(t *testing.T) {
				again := extract(t, ex, s.Data, format.Options{})
				if got, want := sha256.Sum256([]byte(again.Text)), sha256.Sum256([]byte(txt.Text)); got != want {
					t.Fatalf("a second extraction gave other text: sha256 %x, want %x", got, want)
				}
				if !reflect.DeepEqual(again.Parts, txt.Parts) || !reflect.DeepEqual(again.Sections, txt.Sections) {
					t.Fatal("a second extraction gave other parts or sections")
				}
			})
			t.Run("SelectParts", func(t *testing.T) { checkSelectParts(t, ex, s.Data, txt) })
			t.Run("ErrTruncated", func(t *testing.T) { checkTruncated(t, ex, s.Data) })
			t.Run("ErrCanceled", func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				_, err := call(ex, ctx, s.Data, format.Options{})
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("got %v, want context.Canceled", err)
				}
			})
			t.Run("ErrTooLarge", func(t *testing.T) { checkLimits(t, ex, s.Data) })
		})
	}
	if !large {
		t.Error("formattest.Run: no Large sample: every format proves its memory bound on a generated large document")
	}
	t.Run("ErrGarbage", func(t *testing.T) {
		_, err := call(ex, context.Background(), Garbage, format.Options{})
		if err == nil {
			t.Fatal("garbage input extracted without an error")
		}
		CheckError(t, err)
	})
}

func checkInfo(t *testing.T, ex format.Extractor) {
	in := ex.Info()
	if in.Name == "" || in.Extractor == "" || in.Version == "" {
		t.Fatalf("Info %+v: Name, Extractor and Version must be set (provenance.metadata records them)", in)
	}
	if len(in.Extensions) == 0 && len(in.MediaTypes) == 0 && in.Sniff == nil {
		t.Fatalf("Info %+v: no extension, media type or sniffer selects the format", in)
	}
	for _, e := range in.Extensions {
		if !strings.HasPrefix(e, ".") || e != strings.ToLower(e) {
			t.Errorf("extension %q: want a lower-case name with its dot", e)
		}
	}
	reg := format.NewRegistry(ex)
	if got, ok := reg.Lookup(in.Name); !ok || got != ex {
		t.Errorf("Lookup(%q) does not give the extractor back", in.Name)
	}
	for _, e := range in.Extensions {
		if got, ok := reg.Detect("doc"+e, nil); !ok || got != ex {
			t.Errorf("Detect(doc%s) does not give the extractor", e)
		}
	}
	for _, mt := range in.MediaTypes {
		if got, ok := reg.ForMediaType(mt + "; charset=utf-8"); !ok || got != ex {
			t.Errorf("ForMediaType(%s) does not give the extractor", mt)
		}
	}
}

// CheckText fails t unless txt keeps the invariants of format.Text: valid
// UTF-8; parts inside the text, in order, without overlap, each with a
// unique non-empty fragment and a kind, indexes from 1 and increasing per
// kind; boxes inside their part; sections inside the text and in order.
func CheckText(t testing.TB, txt *format.Text) {
	t.Helper()
	if !utf8.ValidString(txt.Text) {
		t.Fatal("the text is not valid UTF-8")
	}
	if txt.Format != "text" && txt.Format != "markdown" {
		t.Errorf("Format %q, want text or markdown", txt.Format)
	}
	checkParts(t, txt)
	checkSections(t, txt)
	for _, d := range txt.Deductions {
		if d.Reason == "" || d.Amount <= 0 || d.Amount > 1 {
			t.Errorf("deduction %+v: want a reason and an amount in (0,1]", d)
		}
	}
	if len(txt.Deductions) > 0 && len(txt.Assumptions) == 0 {
		t.Error("deductions without an assumption that explains them")
	}
}

// checkParts holds the parts to their contract: in order without overlap,
// inside the text, each with a kind and a unique fragment, indexes from 1
// and increasing among their kind, boxes inside their part. Indexes may
// skip: an index names the part's place in the document, and a place
// without text gives no part (an empty PPTX slide, an EPUB spine item that
// is an image or outside the package), so slide=3 may follow slide=1.
func checkParts(t testing.TB, txt *format.Text) {
	t.Helper()
	seen := map[string]bool{}
	next := map[string]int{}
	prevEnd := 0
	for i, p := range txt.Parts {
		if p.Start < prevEnd || p.End < p.Start || p.End > len(txt.Text) {
			t.Fatalf("part %d (%s) spans [%d,%d): out of order, overlapping or outside the %d-byte text", i, p.Fragment, p.Start, p.End, len(txt.Text))
		}
		prevEnd = p.End
		if p.Fragment == "" || p.Kind == "" {
			t.Errorf("part %d has fragment %q and kind %q: both must be set", i, p.Fragment, p.Kind)
		}
		// A space is allowed: an A1 range quotes a sheet name that has
		// one ('My Sheet'!B2:C4), and the reference keeps it verbatim.
		if strings.ContainsAny(p.Fragment, "\n#") || strings.TrimSpace(p.Fragment) != p.Fragment {
			t.Errorf("part %d: fragment %q has a newline, a '#' or surrounding space", i, p.Fragment)
		}
		if seen[p.Fragment] {
			t.Errorf("part %d: fragment %q is not unique", i, p.Fragment)
		}
		seen[p.Fragment] = true
		if p.Index <= next[p.Kind] {
			t.Errorf("part %d (%s): index %d after %d: indexes count from 1 and increase among their kind", i, p.Fragment, p.Index, next[p.Kind])
		}
		next[p.Kind] = p.Index
		if !utf8.ValidString(txt.Text[p.Start:p.End]) {
			t.Errorf("part %d (%s) cuts a character", i, p.Fragment)
		}
		checkBoxes(t, i, p)
	}
}

// checkBoxes holds a part's boxes inside the part, corners in order.
func checkBoxes(t testing.TB, i int, p format.Part) {
	t.Helper()
	for _, b := range p.Boxes {
		if b.Start < p.Start || b.End > p.End || b.End < b.Start {
			t.Errorf("part %d (%s): box [%d,%d) outside the part [%d,%d)", i, p.Fragment, b.Start, b.End, p.Start, p.End)
		}
		if b.X1 < b.X0 || b.Y1 < b.Y0 {
			t.Errorf("part %d (%s): box %+v has its corners swapped", i, p.Fragment, b)
		}
	}
}

// checkSections holds the outline in order and inside the text.
func checkSections(t testing.TB, txt *format.Text) {
	t.Helper()
	prev := 0
	for i, s := range txt.Sections {
		if s.Title == "" || s.Level < 1 {
			t.Errorf("section %d: title %q level %d", i, s.Title, s.Level)
		}
		if s.Start < prev || s.End < s.Start || s.End > len(txt.Text) {
			t.Fatalf("section %d (%q) spans [%d,%d): out of order or outside the text", i, s.Title, s.Start, s.End)
		}
		prev = s.Start
	}
}

// checkQuote cites a span of every part (or of the text when the format
// has no parts) and finds it again with the engine's quote matcher,
// verbatim and loose.
func checkQuote(t *testing.T, txt *format.Text, phrase string) {
	if _, _, ok := retrieve.FindQuote(txt.Text, phrase, false); !ok {
		t.Fatalf("quote %q not found verbatim", phrase)
	}
	loose := strings.ToUpper(strings.Join(strings.Fields(phrase), "  \n "))
	if _, _, ok := retrieve.FindQuote(txt.Text, loose, true); !ok {
		t.Errorf("quote %q not found loose", loose)
	}
	spans := [][2]int{}
	for _, p := range txt.Parts {
		spans = append(spans, [2]int{p.Start, p.End})
	}
	if len(spans) == 0 {
		spans = append(spans, [2]int{0, len(txt.Text)})
	}
	for _, sp := range spans {
		part := txt.Text[sp[0]:sp[1]]
		q := quotation(part)
		if q == "" {
			continue
		}
		s, e, ok := retrieve.FindQuote(part, q, false)
		if !ok || part[s:e] != q {
			t.Errorf("quotation %q taken from [%d,%d) not found in it", q, sp[0], sp[1])
		}
		if _, _, ok := retrieve.FindQuote(part, strings.ToLower(q), true); !ok {
			t.Errorf("quotation %q taken from [%d,%d) not found loose", q, sp[0], sp[1])
		}
	}
}

// quotation takes up to eight words from the middle of a part's first
// non-empty line.
func quotation(part string) string {
	for _, line := range strings.Split(part, "\n") {
		w := strings.Fields(line)
		if len(w) == 0 {
			continue
		}
		from := len(w) / 4
		to := min(len(w), from+8)
		return strings.Join(w[from:to], " ")
	}
	return ""
}

// checkSelectParts extracts each of (up to) the first three and the last
// part of the main kind alone (through format.SelectParts, as the engine
// selects after an extractor that cannot skip parts) and compares it with
// the whole's, and asks for a part past the last.
func checkSelectParts(t *testing.T, ex format.Extractor, data []byte, whole *format.Text) {
	if len(whole.Parts) == 0 {
		_, err := call(ex, context.Background(), data, format.Options{Parts: []format.Range{{From: 1, To: 1}}})
		if !errors.Is(err, format.ErrNoPart) {
			t.Fatalf("a part of a document without parts: got %v, want ErrNoPart", err)
		}
		return
	}
	main := whole.Parts[0].Kind
	var mains []format.Part
	for _, p := range whole.Parts {
		if p.Kind == main {
			mains = append(mains, p)
		}
	}
	pick := slices.Clip(mains[:min(3, len(mains))]) // append must not overwrite mains
	if len(mains) > 3 {
		pick = append(pick, mains[len(mains)-1])
	}
	for _, p := range pick {
		// An extractor that cannot skip parts returns them all and the
		// caller selects (format.Options.Parts): the suite selects as the
		// engine does.
		one := []format.Range{{From: p.Index, To: p.Index}}
		got, err := format.SelectParts(extract(t, ex, data, format.Options{Parts: one}), one)
		if err != nil {
			t.Fatalf("%s: %v", p.Fragment, err)
		}
		CheckText(t, got)
		found := false
		for _, q := range got.Parts {
			if q.Fragment == p.Fragment {
				found = true
				if g, w := got.Text[q.Start:q.End], whole.Text[p.Start:p.End]; g != w {
					t.Errorf("%s alone: %q, want the whole's %q", p.Fragment, clip(g), clip(w))
				}
			} else if q.Kind == main {
				t.Errorf("%s alone also gave %s", p.Fragment, q.Fragment)
			}
		}
		if !found {
			t.Errorf("%s alone: the part is missing from the result", p.Fragment)
		}
	}
	// Past the last part, and in every gap of the numbering: a place
	// without a part is no part, never an empty text.
	last := mains[len(mains)-1].Index
	have := map[int]bool{}
	for _, p := range mains {
		have[p.Index] = true
	}
	var absent []int
	for i := 1; i < last && len(absent) < 4; i++ {
		if !have[i] {
			absent = append(absent, i)
		}
	}
	for _, i := range append(absent, last+1) {
		one := []format.Range{{From: i, To: i}}
		txt, err := call(ex, context.Background(), data, format.Options{Parts: one})
		if err == nil {
			_, err = format.SelectParts(txt, one)
		}
		if !errors.Is(err, format.ErrNoPart) {
			t.Errorf("%s %d (the last is %d): got %v, want ErrNoPart", main, i, last, err)
		}
	}
}

// checkTruncated extracts prefixes of the document: each either extracts
// text that keeps the invariants or fails with a sentinel error.
func checkTruncated(t *testing.T, ex format.Extractor, data []byte) {
	cuts := map[int]bool{}
	for _, c := range []int{0, 1, len(data) / 3, len(data) / 2, len(data) - 1} {
		if c >= 0 && c < len(data) {
			cuts[c] = true
		}
	}
	for c := range cuts {
		txt, err := call(ex, context.Background(), data[:c], format.Options{})
		if err != nil {
			CheckError(t, err)
			continue
		}
		CheckText(t, txt)
	}
}

func checkLimits(t *testing.T, ex format.Extractor, data []byte) {
	_, err := call(ex, context.Background(), data, format.Options{Limits: format.Limits{MaxInput: int64(len(data) - 1)}})
	if !errors.Is(err, format.ErrTooLarge) {
		t.Errorf("MaxInput %d of a %d-byte document: got %v, want ErrTooLarge", len(data)-1, len(data), err)
	}
	_, err = call(ex, context.Background(), data, format.Options{Limits: format.Limits{MaxText: 1}})
	if !errors.Is(err, format.ErrTooLarge) {
		t.Errorf("MaxText 1: got %v, want ErrTooLarge", err)
	}
}

func checkMemory(t *testing.T, ex format.Extractor, s Sample) {
	var txt *format.Text
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	txt, err := call(ex, context.Background(), s.Data, format.Options{})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatalf("extract the large sample: %v", err)
	}
	if len(s.Data)+len(txt.Text) < 1<<20 {
		t.Fatalf("the large sample is %d bytes giving %d bytes of text: generate at least 1 MiB of either", len(s.Data), len(txt.Text))
	}
	CheckText(t, txt)
	if !strings.Contains(txt.Text, s.Phrase) {
		t.Errorf("the large sample's text does not contain %q", s.Phrase)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	bound := uint64(AllocFactor*(len(s.Data)+len(txt.Text)) + AllocSlack)
	t.Logf("%d input bytes, %d text bytes: %d bytes allocated (%.1f per input+text byte), bound %d", len(s.Data), len(txt.Text), alloc, float64(alloc)/float64(len(s.Data)+len(txt.Text)), bound)
	if alloc > bound {
		t.Errorf("allocated %d bytes, over the bound %d (%d × (input + text) + %d)", alloc, bound, AllocFactor, AllocSlack)
	}
}

// CheckError fails t unless err wraps one of format's sentinel errors:
// untrusted input may be refused, never with an untyped error.
func CheckError(t testing.TB, err error) {
	t.Helper()
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return
		}
	}
	t.Errorf("error %q wraps none of format's sentinel errors", err)
}

// extract runs ex on data and fails t on an error.
func extract(t *testing.T, ex format.Extractor, data []byte, opts format.Options) *format.Text {
	t.Helper()
	txt, err := call(ex, context.Background(), data, opts)
	if err != nil {
		t.Fatalf("extract: %v", err)
	}
	if txt == nil {
		t.Fatal("extract: nil text without an error")
	}
	return txt
}

// call runs ex, turning a panic into an error that names it.
func call(ex format.Extractor, ctx context.Context, data []byte, opts format.Options) (txt *format.Text, err error) {
	defer func() {
		if r := recover(); r != nil {
			txt, err = nil, fmt.Errorf("extractor panicked: %v", r)
		}
	}()
	return ex.Extract(ctx, bytes.NewReader(data), int64(len(data)), opts)
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// FuzzLimits keep a fuzz iteration small: a mutated length field must not
// make one run read or inflate megabytes.
var FuzzLimits = format.Limits{MaxInput: 1 << 20, MaxInflated: 1 << 20, MaxText: 4 << 20, MaxParts: 1000, MaxDepth: 64}

// Fuzz runs ex on fuzzed inputs seeded with seeds: it must never panic, and
// it either fails with a sentinel error or gives text that keeps the
// invariants CheckText checks.
func Fuzz(f *testing.F, ex format.Extractor, seeds ...[]byte) {
	f.Add(Garbage)
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		txt, err := call(ex, context.Background(), data, format.Options{Limits: FuzzLimits})
		if err != nil {
			CheckError(t, err)
			return
		}
		CheckText(t, txt)
	})
}

// ToyMagic starts a file of the made-up "toy" format the tests of a new
// format and of the engine's document handling use: the magic line, then
// leaves (pages) separated by "~~~" lines.
const ToyMagic = "TOY1\n"

// ToySniff recognises the toy format by its magic line.
func ToySniff(head []byte) bool { return bytes.HasPrefix(head, []byte(ToyMagic)) }

// ToyLeaves reads a toy file within the limits and splits it into its
// leaves; a file without the magic line is format.ErrMalformed.
func ToyLeaves(ctx context.Context, r io.ReaderAt, size int64, lim format.Limits) ([]string, error) {
	src, err := format.ReadAll(ctx, r, size, lim)
	if err != nil {
		return nil, err
	}
	body, ok := bytes.CutPrefix(src, []byte(ToyMagic))
	if !ok {
		return nil, fmt.Errorf("%w: no TOY1 header", format.ErrMalformed)
	}
	return strings.Split(string(body), "~~~\n"), nil
}
