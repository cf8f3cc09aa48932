package formats_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/formats"
	"github.com/retrieve-dev/retrieve/format/formattest"
)

// toy is a made-up format, "TOY1" then leaves separated by "~~~" lines,
// written as a new format would be: its own type and one line in a
// registry (here the test's; in the module, formats.All).
type toy struct{}

func (toy) Info() format.Info {
	return format.Info{Name: "toy", Extractor: "formats_test/toy", Version: "0", Extensions: []string{".toy"}, Sniff: formattest.ToySniff}
}

func (toy) Extract(ctx context.Context, r io.ReaderAt, size int64, opts format.Options) (*format.Text, error) {
	leaves, err := formattest.ToyLeaves(ctx, r, size, opts.Limits)
	if err != nil {
		return nil, err
	}
	t := &format.Text{Format: "text"}
	var w strings.Builder
	for i, leaf := range leaves {
		start := w.Len()
		w.WriteString(strings.ToValidUTF8(strings.ReplaceAll(leaf, "\x00", ""), ""))
		if !strings.HasSuffix(w.String(), "\n") {
			w.WriteString("\n")
		}
		t.Parts = append(t.Parts, format.Part{Kind: "leaf", Index: i + 1, Fragment: "leaf=" + strconv.Itoa(i+1), Start: start, End: w.Len()})
	}
	if err := opts.Limits.CheckText(w.Len()); err != nil {
		return nil, err
	}
	t.Text = w.String()
	return format.SelectParts(t, opts.Parts)
}

func TestToyFormatLandsWithOneLine(t *testing.T) {
	reg := format.NewRegistry(append(formats.All(), toy{})...)
	if ex, ok := reg.Detect("notes.toy", nil); !ok || ex.Info().Name != "toy" {
		t.Fatalf("Detect(notes.toy): %v %v, want the toy format", ex, ok)
	}
	if ex, ok := reg.Detect("no-extension", []byte("TOY1\nx")); !ok || ex.Info().Name != "toy" {
		t.Fatalf("Detect by magic: %v %v, want the toy format", ex, ok)
	}
	if !slices.Contains(reg.Names(), "toy") {
		t.Fatalf("Names() %v lacks toy", reg.Names())
	}
	var large bytes.Buffer
	large.WriteString("TOY1\n")
	for i := 0; large.Len() < 1<<20; i++ {
		fmt.Fprintf(&large, "leaf %d holds a line of words\n~~~\n", i)
	}
	large.WriteString("the last leaf\n")
	formattest.Run(t, toy{}, []formattest.Sample{
		{Name: "three.toy", Data: []byte("TOY1\nfirst leaf text\n~~~\nsecond leaf, with the phrase\n~~~\nthird\n"), Phrase: "second leaf, with the phrase"},
		{Name: "large.toy", Data: large.Bytes(), Phrase: "leaf 7 holds", Large: true},
	})
}

// TestDefault holds every built-in format to the registry's rules: a
// unique name, extension and media type (NewRegistry panics otherwise),
// found by each.
func TestDefault(t *testing.T) {
	reg := formats.Default()
	want := []string{"code", "csv", "docx", "epub", "html", "ipynb", "json", "jsonl", "markdown", "odp", "ods", "odt", "pdf", "pptx", "text", "toml", "xlsx", "yaml"}
	for _, n := range want {
		if !slices.Contains(reg.Names(), n) {
			t.Errorf("Names() %v lacks %s", reg.Names(), n)
		}
	}
	for name, fmtName := range map[string]string{"a.md": "markdown", "page.HTML": "html", "nb.ipynb": "ipynb", "x.jsonl": "jsonl", "main.go": "code", "c.yml": "yaml"} {
		if ex, ok := reg.Detect(name, nil); !ok || ex.Info().Name != fmtName {
			t.Errorf("Detect(%s): %v, want %s", name, ex, fmtName)
		}
	}
	if ex, ok := reg.ForMediaType("text/html; charset=utf-8"); !ok || ex.Info().Name != "html" {
		t.Errorf("ForMediaType(text/html): %v, want html", ex)
	}
	if _, ok := reg.Detect("blob.bin", []byte{0, 1, 2}); ok {
		t.Error("Detect(blob.bin) found a format")
	}
}
