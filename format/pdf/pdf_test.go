package pdf_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/pdf"
)

func extract(t *testing.T, b []byte, opts format.Options) (*format.Text, error) {
	t.Helper()
	return pdf.New().Extract(context.Background(), bytes.NewReader(b), int64(len(b)), opts)
}

func mustExtract(t *testing.T, b []byte, opts format.Options) *format.Text {
	t.Helper()
	got, err := extract(t, b, opts)
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	return got
}

func TestOnePage(t *testing.T) {
	f := doc(lines(72, 720, "Every citation checkable.", "Second line of text."))
	got := mustExtract(t, f.bytes(1), format.Options{})
	want := "Every citation checkable.\nSecond line of text.\n"
	if got.Text != want {
		t.Fatalf("text = %q, want %q", got.Text, want)
	}
	if got.Format != "text" {
		t.Errorf("format = %q, want text", got.Format)
	}
	if len(got.Parts) != 1 {
		t.Fatalf("parts = %d, want 1", len(got.Parts))
	}
	p := got.Parts[0]
	if p.Kind != "page" || p.Index != 1 || p.Label != "1" || p.Fragment != "page=1" || p.Start != 0 || p.End != len(want) {
		t.Errorf("part = %+v, want page 1 over the whole text", p)
	}
	if len(p.Boxes) != 2 {
		t.Fatalf("boxes = %d, want one per line (2)", len(p.Boxes))
	}
	b := p.Boxes[0]
	if got.Text[b.Start:b.End] != "Every citation checkable." {
		t.Errorf("box 0 spans %q", got.Text[b.Start:b.End])
	}
	// Helvetica 10 pt at (72, 720): the box sits on that baseline and is
	// as wide as the AFM widths make the line (about 120 pt).
	if b.X0 < 71 || b.X0 > 73 || b.Y0 > 720 || b.Y0 < 716 || b.Y1 < 726 || b.Y1 > 730 || b.X1 < 180 || b.X1 > 200 {
		t.Errorf("box 0 = %+v, want about (72,718)-(190,728)", b)
	}
	if b2 := p.Boxes[1]; b2.Y1 > b.Y0+1 {
		t.Errorf("second line's box %+v is not below the first %+v", b2, b)
	}
	if got.Metadata["pages"] != 1 || got.Metadata["pdf_version"] != "1.7" {
		t.Errorf("metadata = %v", got.Metadata)
	}
	if len(got.Deductions) != 1 || got.Deductions[0].Amount != pdf.LayoutDeduction {
		t.Errorf("deductions = %v, want the layout deduction", got.Deductions)
	}
}

func TestPagesAndParts(t *testing.T) {
	f := doc(lines(72, 720, "first page"), lines(72, 720, "second page"), nil, lines(72, 720, "fourth page"))
	b := f.bytes(1)
	got := mustExtract(t, b, format.Options{})
	want := "first page\n\f\nsecond page\n\f\n\n\f\nfourth page\n"
	if got.Text != want {
		t.Fatalf("text = %q, want %q", got.Text, want)
	}
	for i, p := range got.Parts {
		if p.Index != i+1 || p.Fragment != fmt.Sprintf("page=%d", i+1) {
			t.Errorf("part %d = %+v", i, p)
		}
		if !strings.HasSuffix(got.Text[p.Start:p.End], "\n") || strings.Contains(got.Text[p.Start:p.End], "\f") {
			t.Errorf("part %d covers %q: want the page's text ending with a newline, no form feed", i, got.Text[p.Start:p.End])
		}
	}
	if got.Text[got.Parts[2].Start:got.Parts[2].End] != "\n" {
		t.Errorf("empty page 3 = %q, want a single newline", got.Text[got.Parts[2].Start:got.Parts[2].End])
	}

	t.Run("OnePart", func(t *testing.T) {
		got := mustExtract(t, b, format.Options{Parts: []format.Range{{From: 2, To: 2}}})
		if got.Text != "second page\n" || len(got.Parts) != 1 || got.Parts[0].Index != 2 || got.Parts[0].Fragment != "page=2" {
			t.Errorf("page 2 = %q %+v", got.Text, got.Parts)
		}
	})
	t.Run("Ranges", func(t *testing.T) {
		got := mustExtract(t, b, format.Options{Parts: []format.Range{{From: 4, To: 4}, {From: 1, To: 2}}})
		if got.Text != "first page\n\f\nsecond page\n\f\nfourth page\n" {
			t.Errorf("pages 1-2,4 = %q", got.Text)
		}
	})
	t.Run("OthersNotDecoded", func(t *testing.T) {
		// Page 1's content is a stream bomb: asking for page 2 alone must
		// not decode it (a page is parsed only when asked).
		f := doc(nil, lines(72, 700, "page two"))
		bomb := f.stream("", bytes.Repeat([]byte(" "), 16<<20), true)
		f.set(5, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", bomb))
		b := f.bytes(1)
		lim := format.Limits{MaxInflated: 1 << 20}
		got := mustExtract(t, b, format.Options{Limits: lim, Parts: []format.Range{{From: 2, To: 2}}})
		if got.Text != "page two\n" {
			t.Errorf("page 2 = %q", got.Text)
		}
		if _, err := extract(t, b, format.Options{Limits: lim}); !errors.Is(err, format.ErrTooLarge) {
			t.Errorf("whole file: err = %v, want ErrTooLarge from page 1", err)
		}
	})
	t.Run("ErrNoPart", func(t *testing.T) {
		_, err := extract(t, b, format.Options{Parts: []format.Range{{From: 5, To: 5}}})
		if !errors.Is(err, format.ErrNoPart) {
			t.Errorf("page 5 of 4: err = %v, want ErrNoPart", err)
		}
	})
}

func TestTwoColumns(t *testing.T) {
	var ops []textOp
	ops = append(ops, textOp{x: 200, y: 740, size: 16, text: "A Title Across Both Columns"})
	left := []string{"Left column starts here and", "goes on for a few lines of", "ordinary running text that", "a reader reads first before", "moving to the right column."}
	right := []string{"Right column comes second in", "reading order although its", "lines share their baselines", "with the lines on the left", "side of the gutter."}
	ops = append(ops, lines(72, 700, left...)...)
	ops = append(ops, lines(320, 700, right...)...)
	ops = append(ops, textOp{x: 290, y: 60, text: "Page footer"})
	got := mustExtract(t, doc(ops).bytes(1), format.Options{})
	want := "A Title Across Both Columns\n" + strings.Join(left, "\n") + "\n" + strings.Join(right, "\n") + "\nPage footer\n"
	if got.Text != want {
		t.Errorf("text =\n%s\nwant\n%s", got.Text, want)
	}
}

func TestTable(t *testing.T) {
	var ops []textOp
	rows := [][]string{{"Item", "Quantity", "Price"}, {"Apples", "12", "3.40"}, {"Pears", "7", "2.10"}, {"Plums", "30", "5.00"}}
	for i, r := range rows {
		for j, cell := range r {
			ops = append(ops, textOp{x: 72 + float64(j)*150, y: 700 - float64(i)*14, text: cell})
		}
	}
	got := mustExtract(t, doc(ops).bytes(1), format.Options{})
	want := "Item Quantity Price\nApples 12 3.40\nPears 7 2.10\nPlums 30 5.00\n"
	if got.Text != want {
		t.Errorf("text = %q, want rows on one line each %q", got.Text, want)
	}
}

func TestWordsNotGluedOrSplit(t *testing.T) {
	// Words drawn a glyph at a time with kerning (TJ) and spaces made by
	// positioning only, as TeX does.
	f := &pdfFile{}
	f.add("<< /Type /Catalog /Pages 2 0 R >>")
	f.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	f.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>")
	f.add("<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman >>")
	f.stream("", []byte("BT /F1 10 Tf 72 700 Td [(W) 80 (ord) -15 (s) -333 (kerned) -333 (to) 20 (gether)] TJ ET\n"+
		"BT /F1 10 Tf 72 680 Td (a) Tj 5.5 0 Td (b) Tj 4.3 0 Td (c) Tj ET\n"), false)
	got := mustExtract(t, f.bytes(1), format.Options{})
	if got.Text != "Words kerned together\nabc\n" {
		t.Errorf("text = %q, want %q", got.Text, "Words kerned together\nabc\n")
	}
}

func TestLigaturesAndCIDFont(t *testing.T) {
	// A Type0 font with Identity-H codes and a ToUnicode CMap that maps a
	// glyph to U+FB01 (fi).
	f := &pdfFile{}
	f.add("<< /Type /Catalog /Pages 2 0 R >>")
	f.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	f.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>")
	f.add("<< /Type /Font /Subtype /Type0 /BaseFont /Foo /Encoding /Identity-H /DescendantFonts [6 0 R] /ToUnicode 7 0 R >>")
	f.stream("", []byte("BT /F1 12 Tf 72 700 Td [<000100020004> -400 <00030002>] TJ ET\n"), true)
	f.add("<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Foo /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 500 /W [1 [600 550] 3 4 500] >>")
	cmap := "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n1 begincodespacerange <0000> <FFFF> endcodespacerange\n" +
		"2 beginbfchar <0001> <FB01> <0004> <0065> endbfchar\n1 beginbfrange <0002> <0003> <006E> endbfrange\nendcmap end end\n"
	f.stream("", []byte(cmap), false)
	got := mustExtract(t, f.bytes(1), format.Options{})
	// fi (ligature) n e, a word space made by positioning, o n (a range
	// mapped by incrementing).
	if got.Text != "fine on\n" {
		t.Errorf("text = %q, want %q", got.Text, "fine on\n")
	}
	b := got.Parts[0].Boxes[0]
	// Widths from W: 600+550+500 then 400 of space then 500+550, at 12 pt.
	if w := b.X1 - b.X0; w < 12*(1.65+0.4+1.05)-0.5 || w > 12*(1.65+0.4+1.05)+0.5 {
		t.Errorf("box width = %.2f, want %.2f from the W array", w, 12*(1.65+0.4+1.05))
	}
}

func TestHyphenation(t *testing.T) {
	f := doc(lines(72, 700, "A sentence that crosses a hyphen-", "ated line break stays whole.", "A well-known word keeps its hyphen."))
	got := mustExtract(t, f.bytes(1), format.Options{})
	want := "A sentence that crosses a hyphenated\nline break stays whole.\nA well-known word keeps its hyphen.\n"
	if got.Text != want {
		t.Fatalf("text = %q, want %q", got.Text, want)
	}
	// Every byte of the moved fragment is in a box.
	i := strings.Index(got.Text, "ated")
	covered := false
	for _, b := range got.Parts[0].Boxes {
		if b.Start <= i && i+4 <= b.End {
			covered = true
		}
	}
	if !covered {
		t.Errorf("the moved fragment has no box: %+v", got.Parts[0].Boxes)
	}
}

func TestOutline(t *testing.T) {
	f := doc(lines(72, 700, "Introduction text"), lines(72, 700, "Methods text"), lines(72, 700, "More methods"))
	// Objects: 1 catalog, 2 pages, 3 font, 4 content, 5 page 1, 6, 7 page 2, 8, 9 page 3.
	out := f.reserve()
	i1 := f.add(fmt.Sprintf("<< /Title (Introduction) /Parent %d 0 R /Next %d 0 R /Dest [5 0 R /XYZ 0 792 0] >>", out, out+3))
	f.add(fmt.Sprintf("<< /Title (Details) /Parent %d 0 R /A << /S /GoTo /D [9 0 R /Fit] >> >>", out+3))
	i2 := f.add(fmt.Sprintf("<< /Title <FEFF004D006500740068006F00640073> /Parent %d 0 R /Prev %d 0 R /First %d 0 R /Last %d 0 R /A << /S /GoTo /D [7 0 R /Fit] >> >>", out, i1, out+2, out+2))
	f.set(out, fmt.Sprintf("<< /Type /Outlines /First %d 0 R /Last %d 0 R >>", i1, i2))
	f.set(1, fmt.Sprintf("<< /Type /Catalog /Pages 2 0 R /Outlines %d 0 R /PageLabels << /Nums [0 << /S /r >> 1 << /S /D /P (A-) >>] >> >>", out))
	got := mustExtract(t, f.bytes(1), format.Options{})
	if len(got.Sections) != 3 {
		t.Fatalf("sections = %+v, want 3", got.Sections)
	}
	s := got.Sections
	if s[0].Title != "Introduction" || s[0].Level != 1 || s[0].Start != got.Parts[0].Start || s[0].End != got.Parts[1].Start {
		t.Errorf("section 0 = %+v", s[0])
	}
	if s[1].Title != "Methods" || s[1].Level != 1 || s[1].Start != got.Parts[1].Start || s[1].End != len(got.Text) {
		t.Errorf("section 1 = %+v, want level 1 from page 2 to the end", s[1])
	}
	if s[2].Title != "Details" || s[2].Level != 2 || s[2].Start != got.Parts[2].Start {
		t.Errorf("section 2 = %+v", s[2])
	}
	if got.Parts[0].Label != "i" || got.Parts[1].Label != "A-1" || got.Parts[2].Label != "A-2" {
		t.Errorf("labels = %q %q %q, want i A-1 A-2", got.Parts[0].Label, got.Parts[1].Label, got.Parts[2].Label)
	}
}

func TestErrors(t *testing.T) {
	t.Run("ErrEncrypted", func(t *testing.T) {
		f := doc(lines(72, 700, "secret"))
		enc := f.add("<< /Filter /Standard /V 2 /R 3 /Length 128 /O <00> /U <00> /P -4 >>")
		f.trailer = fmt.Sprintf("/Encrypt %d 0 R /ID [<00><00>]", enc)
		_, err := extract(t, f.bytes(1), format.Options{})
		if !errors.Is(err, format.ErrEncrypted) || !strings.Contains(err.Error(), "qpdf --decrypt") {
			t.Errorf("err = %v, want ErrEncrypted with a hint", err)
		}
	})
	t.Run("ErrNoText", func(t *testing.T) {
		f := &pdfFile{}
		f.add("<< /Type /Catalog /Pages 2 0 R >>")
		f.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
		f.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 5 0 R >> >> /Contents 4 0 R >>")
		f.stream("", []byte("q 612 0 0 792 0 0 cm /Im1 Do Q\n"), false)
		f.stream("/Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8", []byte{0x80}, false)
		_, err := extract(t, f.bytes(1), format.Options{})
		if !errors.Is(err, format.ErrNoText) || !strings.Contains(err.Error(), "OCR") {
			t.Errorf("err = %v, want ErrNoText with a hint", err)
		}
	})
	t.Run("FlateBomb", func(t *testing.T) {
		f := doc(nil)
		// 64 MiB of spaces compress to about 64 KiB.
		bomb := f.stream("", bytes.Repeat([]byte(" "), 64<<20), true)
		f.set(5, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", bomb))
		b := f.bytes(1)
		_, err := extract(t, b, format.Options{Limits: format.Limits{MaxInflated: 1 << 20}})
		if !errors.Is(err, format.ErrTooLarge) {
			t.Errorf("err = %v, want ErrTooLarge (file of %d bytes)", err, len(b))
		}
	})
	t.Run("CyclicPageTree", func(t *testing.T) {
		f := &pdfFile{}
		f.add("<< /Type /Catalog /Pages 2 0 R >>")
		f.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
		f.add("<< /Type /Pages /Kids [2 0 R] /Count 1 >>")
		_, err := extract(t, f.bytes(1), format.Options{})
		if !errors.Is(err, format.ErrMalformed) {
			t.Errorf("err = %v, want ErrMalformed", err)
		}
	})
	t.Run("CyclicReferences", func(t *testing.T) {
		// Contents and a font that refer to themselves; a form that draws
		// itself.
		f := &pdfFile{}
		f.add("<< /Type /Catalog /Pages 2 0 R >>")
		f.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
		f.add("<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> /XObject << /X 6 0 R >> >> /Contents [4 0 R 7 0 R] >>")
		f.stream("", []byte("BT /F1 10 Tf 72 700 Td (looping) Tj ET /X Do"), false)
		f.add("5 0 R")
		f.stream("/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /XObject << /X 6 0 R >> >>", []byte("/X Do"), false)
		f.add("7 0 R")
		_, err := extract(t, f.bytes(1), format.Options{})
		if !errors.Is(err, format.ErrMalformed) && !errors.Is(err, format.ErrNoText) {
			t.Errorf("err = %v, want a typed error", err)
		}
	})
	t.Run("DeepNesting", func(t *testing.T) {
		f := doc(lines(72, 700, "deep"))
		f.set(1, "<< /Type /Catalog /Pages 2 0 R /Deep "+strings.Repeat("[", 10000)+strings.Repeat("]", 10000)+" >>")
		_, err := extract(t, f.bytes(1), format.Options{})
		if !errors.Is(err, format.ErrTooLarge) && !errors.Is(err, format.ErrMalformed) {
			t.Errorf("err = %v, want ErrTooLarge or ErrMalformed", err)
		}
	})
	t.Run("TooManyPages", func(t *testing.T) {
		f := doc(nil, nil, nil)
		_, err := extract(t, f.bytes(1), format.Options{Limits: format.Limits{MaxParts: 2}})
		if !errors.Is(err, format.ErrTooLarge) {
			t.Errorf("err = %v, want ErrTooLarge", err)
		}
	})
	t.Run("TooLargeInput", func(t *testing.T) {
		b := doc(lines(72, 700, "big")).bytes(1)
		_, err := extract(t, b, format.Options{Limits: format.Limits{MaxInput: 100}})
		if !errors.Is(err, format.ErrTooLarge) {
			t.Errorf("err = %v, want ErrTooLarge", err)
		}
	})
	t.Run("NotAPDF", func(t *testing.T) {
		_, err := extract(t, []byte("hello, I am plain text\n"), format.Options{})
		if !errors.Is(err, format.ErrMalformed) {
			t.Errorf("err = %v, want ErrMalformed", err)
		}
	})
	t.Run("Canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		b := doc(lines(72, 700, "x")).bytes(1)
		_, err := pdf.New().Extract(ctx, bytes.NewReader(b), int64(len(b)), format.Options{})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

func TestMalformedXref(t *testing.T) {
	good := doc(lines(72, 700, "repaired text")).bytes(1)
	t.Run("WrongOffsets", func(t *testing.T) {
		// startxref points past the end of the file and an object's entry
		// points to the wrong place: the reader rebuilds the table.
		b := bytes.Replace(good, []byte("startxref\n"), []byte("startxref\n9"), 1)
		i := bytes.Index(b, []byte("xref\n"))
		b = append(append([]byte{}, b[:i]...), bytes.Replace(b[i:], []byte("0000000015 00000 n"), []byte("0000000017 00000 n"), 1)...)
		if bytes.Equal(b, good) || !bytes.Contains(b, []byte("0000000017 00000 n")) {
			t.Fatal("the test did not break the table")
		}
		got := mustExtract(t, b, format.Options{})
		if got.Text != "repaired text\n" {
			t.Errorf("text = %q", got.Text)
		}
	})
	t.Run("NoXref", func(t *testing.T) {
		i := bytes.Index(good, []byte("xref\n"))
		b := append(append([]byte{}, good[:i]...), "trailer\n<< /Root 1 0 R >>\n%%EOF\n"...)
		got := mustExtract(t, b, format.Options{})
		if got.Text != "repaired text\n" {
			t.Errorf("text = %q", got.Text)
		}
	})
	t.Run("ErrMalformed", func(t *testing.T) {
		i := bytes.Index(good, []byte("1 0 obj"))
		b := append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("garbage "), 100)...)
		b = append(b, good[i+20:i+40]...)
		_, err := extract(t, b, format.Options{})
		if !errors.Is(err, format.ErrMalformed) {
			t.Errorf("err = %v, want ErrMalformed", err)
		}
	})
}

func TestInfo(t *testing.T) {
	in := pdf.New().Info()
	if in.Name != "pdf" || in.Version == "" || in.Extractor == "" || in.Sniff == nil {
		t.Fatalf("info = %+v", in)
	}
	if !in.Sniff([]byte("%PDF-1.4\n")) || in.Sniff([]byte("<html>")) {
		t.Errorf("sniff is wrong")
	}
	r := format.NewRegistry(pdf.New())
	if f, ok := r.Detect("report.bin", []byte("%PDF-2.0\n")); !ok || f.Info().Name != "pdf" {
		t.Errorf("registry does not detect a PDF by magic")
	}
}

// TestRealFiles reads the real PDFs kept in testdata (see its README).
func TestRealFiles(t *testing.T) {
	for _, c := range []struct {
		file, contains string
		version        string
	}{
		{"SimplePDF2.0.pdf", "Hello World", "2.0"},
		{"withOffsetStart.pdf", "This is a PDF 2.0 document", "2.0"},
	} {
		t.Run(c.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			got := mustExtract(t, b, format.Options{})
			if !strings.Contains(got.Text, c.contains) {
				t.Errorf("text = %q, want it to contain %q", got.Text, c.contains)
			}
			if got.Metadata["pdf_version"] != c.version {
				t.Errorf("version = %v, want %s", got.Metadata["pdf_version"], c.version)
			}
		})
	}
}

// TestConcurrent runs extractions in parallel (Extract must be safe for
// concurrent use: the glyph list and width tables are shared); run with
// -race.
func TestConcurrent(t *testing.T) {
	b := doc(lines(72, 700, "shared tables"), lines(72, 700, "second page")).bytes(1)
	done := make(chan string, 8)
	for i := 0; i < 8; i++ {
		go func() {
			got, err := pdf.New().Extract(context.Background(), bytes.NewReader(b), int64(len(b)), format.Options{})
			if err != nil {
				done <- err.Error()
				return
			}
			done <- got.Text
		}()
	}
	for i := 0; i < 8; i++ {
		if got := <-done; got != "shared tables\n\f\nsecond page\n" {
			t.Errorf("extraction %d = %q", i, got)
		}
	}
}

// TestRotatedPage reads a page shown rotated (/Rotate 90) whose text is
// drawn turned so that it reads upright on screen: the lines come in
// on-screen order, the boxes stay in user space.
func TestRotatedPage(t *testing.T) {
	f := &pdfFile{}
	f.add("<< /Type /Catalog /Pages 2 0 R >>")
	f.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	f.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Rotate 90 /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>")
	f.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	f.stream("", []byte("BT /F1 10 Tf 0 1 -1 0 100 300 Tm (first line on screen) Tj ET\nBT /F1 10 Tf 0 1 -1 0 112 300 Tm (second line) Tj ET\n"), false)
	got := mustExtract(t, f.bytes(1), format.Options{})
	if got.Text != "first line on screen\nsecond line\n" {
		t.Fatalf("text = %q", got.Text)
	}
	b := got.Parts[0].Boxes[0]
	// The first line runs up the page from (100, 300): a tall, narrow box.
	if b.X1 < 99 || b.X0 > 100 || b.Y0 < 299 || b.Y1 < 380 || b.X1-b.X0 > 12 {
		t.Errorf("box = %+v, want a vertical box around x=100 from y=300 up", b)
	}
}

// TestType1BuiltinEncoding reads codes through the built-in encoding of
// an embedded Type 1 font program (as TeX's fonts are: no /Encoding, code
// 12 is the fi ligature), and puts text written up the margin after the
// page's upright text.
func TestType1BuiltinEncoding(t *testing.T) {
	f := &pdfFile{}
	f.add("<< /Type /Catalog /Pages 2 0 R >>")
	f.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	f.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>")
	f.add("<< /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+CMR10 /FirstChar 12 /LastChar 122 /Widths 8 0 R /FontDescriptor 6 0 R >>")
	f.stream("", []byte("BT /F1 10 Tf 72 700 Td (\\014rst \\014nd) Tj ET\nBT /F1 8 Tf 0 1 -1 0 30 300 Tm (margin) Tj ET\n"), false)
	f.add("<< /Type /FontDescriptor /FontName /ABCDEF+CMR10 /Flags 4 /FontFile 7 0 R >>")
	program := "%!PS-AdobeFont-1.0: CMR10\n/Encoding 256 array\n0 1 255 {1 index exch /.notdef put} for\n" +
		"dup 12 /fi put\ndup 100 /d put\ndup 103 /g put\ndup 105 /i put\ndup 109 /m put\ndup 110 /n put\ndup 114 /r put\ndup 115 /s put\ndup 116 /t put\ndup 97 /a put\n" +
		"readonly def\ncurrentfile eexec\n"
	f.stream(fmt.Sprintf("/Length1 %d /Length2 0 /Length3 0", len(program)), []byte(program), true)
	widths := make([]string, 122-12+1)
	for i := range widths {
		widths[i] = "500"
	}
	f.add("[" + strings.Join(widths, " ") + "]")
	got := mustExtract(t, f.bytes(1), format.Options{})
	if got.Text != "first find\nmargin\n" {
		t.Errorf("text = %q, want %q", got.Text, "first find\nmargin\n")
	}
}

// TestUnmappedGlyphs: glyphs of a CID font without ToUnicode are left out
// and counted, never guessed.
func TestUnmappedGlyphs(t *testing.T) {
	build := func(withText bool) []byte {
		f := &pdfFile{}
		f.add("<< /Type /Catalog /Pages 2 0 R >>")
		f.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
		f.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R /F2 6 0 R >> >> /Contents 5 0 R >>")
		f.add("<< /Type /Font /Subtype /Type0 /BaseFont /Foo /Encoding /Identity-H /DescendantFonts [7 0 R] >>")
		c := "BT /F1 12 Tf 72 700 Td <000100020003> Tj ET\n"
		if withText {
			c += "BT /F2 12 Tf 72 680 Td (readable line) Tj ET\n"
		}
		f.stream("", []byte(c), false)
		f.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
		f.add("<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Foo /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> >>")
		return f.bytes(1)
	}
	got := mustExtract(t, build(true), format.Options{})
	if got.Text != "readable line\n" || got.Metadata["unmapped_glyphs"] != 3 {
		t.Errorf("text = %q, unmapped = %v; want the readable line and 3 unmapped glyphs", got.Text, got.Metadata["unmapped_glyphs"])
	}
	if !strings.Contains(strings.Join(got.Assumptions, "\n"), "3 glyphs have no Unicode mapping") {
		t.Errorf("assumptions = %q, want the unmapped glyphs said", got.Assumptions)
	}
	_, err := extract(t, build(false), format.Options{})
	if !errors.Is(err, format.ErrNoText) || !strings.Contains(err.Error(), "ToUnicode") {
		t.Errorf("err = %v, want ErrNoText naming the fonts without ToUnicode", err)
	}
}
