package pdf_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/pdf"
)

// FuzzExtract feeds arbitrary bytes to the extractor under small limits:
// it must return text whose parts and boxes are consistent, or one of the
// format's typed errors, and never fail inside the parser (a recovered
// panic is reported as "the parser failed" and fails the fuzz run).
func FuzzExtract(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.pdf"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add(doc(lines(72, 700, "one page of text", "and a second line")).bytes(1))
	f.Add(doc(lines(72, 700, "first"), lines(72, 700, "second")).bytes(1))
	two := doc(append(lines(72, 700, "left column text here", "more left text", "left again"), lines(320, 700, "right column text", "more right text", "right again")...))
	f.Add(two.bytes(1))
	f.Fuzz(func(t *testing.T, b []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		lim := format.Limits{MaxInput: 1 << 20, MaxText: 1 << 20, MaxInflated: 4 << 20, MaxParts: 100, MaxDepth: 32}
		got, err := pdf.New().Extract(ctx, bytes.NewReader(b), int64(len(b)), format.Options{Limits: lim})
		if err != nil {
			if strings.Contains(err.Error(), "the parser failed") {
				t.Fatalf("internal failure: %v", err)
			}
			for _, s := range []error{format.ErrMalformed, format.ErrTooLarge, format.ErrNoText, format.ErrEncrypted, format.ErrNoPart, context.DeadlineExceeded} {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("untyped error: %v", err)
		}
		end := 0
		for i, p := range got.Parts {
			if p.Start < end || p.End < p.Start || p.End > len(got.Text) || !strings.HasSuffix(got.Text[p.Start:p.End], "\n") {
				t.Fatalf("part %d [%d,%d) of %d bytes is out of place", i, p.Start, p.End, len(got.Text))
			}
			if i > 0 && got.Text[end:p.Start] != "\f\n" {
				t.Fatalf("between parts %d and %d: %q, want a form feed line", i-1, i, got.Text[end:p.Start])
			}
			for _, bx := range p.Boxes {
				if bx.Start < p.Start || bx.End > p.End || bx.End < bx.Start {
					t.Fatalf("box [%d,%d) outside part [%d,%d)", bx.Start, bx.End, p.Start, p.End)
				}
			}
			end = p.End
		}
		if end != len(got.Text) {
			t.Fatalf("parts end at %d of %d bytes", end, len(got.Text))
		}
	})
}
