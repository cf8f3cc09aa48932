package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/formats"
	"github.com/retrieve-dev/retrieve/format/formattest"
	fhtml "github.com/retrieve-dev/retrieve/format/html"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// paged is a made-up paged format standing in for PDF: "TOY1" then pages
// separated by "~~~" lines; every line is a box on its page (x 72 to 72+6
// per character, y 700 down by 12 per line). "ENCRYPTED" as the first
// page is ErrEncrypted, as a PDF with a password would be.
type paged struct{}

func (paged) Info() format.Info {
	return format.Info{Name: "paged", Extractor: "engine_test/paged", Version: "0.1", Extensions: []string{".toy"}, Sniff: formattest.ToySniff}
}

func (paged) Extract(ctx context.Context, r io.ReaderAt, size int64, opts format.Options) (*format.Text, error) {
	pages, err := formattest.ToyLeaves(ctx, r, size, opts.Limits)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(pages[0], "ENCRYPTED") {
		return nil, fmt.Errorf("toy: %w", format.ErrEncrypted)
	}
	t := &format.Text{Format: "text", Metadata: map[string]any{"pages": 0}}
	var w strings.Builder
	for i, page := range pages {
		p := format.Part{Kind: "page", Index: i + 1, Label: strconv.Itoa(i + 1), Fragment: "page=" + strconv.Itoa(i+1), Start: w.Len()}
		for j, line := range strings.SplitAfter(page, "\n") {
			if line == "" {
				continue
			}
			start := w.Len()
			w.WriteString(line)
			y := 700 - 12*float64(j)
			p.Boxes = append(p.Boxes, format.Box{Start: start, End: w.Len(), X0: 72, Y0: y, X1: 72 + 6*float64(len(line)-1), Y1: y + 10})
		}
		p.End = w.Len()
		t.Parts = append(t.Parts, p)
		if i == 1 {
			t.Sections = append(t.Sections, format.Section{Title: "Results", Level: 1, Start: p.Start, End: p.End})
		}
	}
	if err := opts.Limits.CheckText(w.Len()); err != nil {
		return nil, err
	}
	t.Text = w.String()
	t.Metadata["pages"] = len(t.Parts)
	t.Deductions = []format.Deduction{{Reason: "layout heuristics", Amount: 0.02}}
	t.Assumptions = []string{"Reading order from a layout pass"}
	return format.SelectParts(t, opts.Parts)
}

const report = "TOY1\nTitle page of the report\nby the team\n~~~\nResults are good.\nEvery citation is checkable again.\nThe end of page two.\n~~~\nAppendix text\n"

// docEngine is an engine over a workspace with the built-in formats and
// the paged toy, registered as cmd/retrieve registers formats.Default().
func docEngine(t *testing.T, files map[string]string) (*engine.Engine, string) {
	t.Helper()
	ws := testws.New(t)
	for name, content := range files {
		ws.Write(name, content)
	}
	src, err := file.New(file.Options{Root: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{src}, Now: func() time.Time { return fixedNow },
		Formats: format.NewRegistry(append(formats.All(), paged{})...)})
	if err != nil {
		t.Fatal(err)
	}
	return e, ws.Root
}

func TestDocumentPages(t *testing.T) {
	e, _ := docEngine(t, map[string]string{"report.toy": report})
	t.Run("OK/whole", func(t *testing.T) {
		res := mustGet(t, e, retrieve.Request{Target: "report.toy"})
		want := "Title page of the report\nby the team\nResults are good.\nEvery citation is checkable again.\nThe end of page two.\nAppendix text\n"
		if res.Retrieved.Data != want {
			t.Fatalf("data %q, want %q", res.Retrieved.Data, want)
		}
		if got := *res.Citation.SourceHash; got != sha([]byte(report)) {
			t.Errorf("source_hash %s, want the document's bytes' %s", got, sha([]byte(report)))
		}
		if got := *res.Citation.Hash; got != sha([]byte(want)) {
			t.Errorf("hash %s, want the text's %s", got, sha([]byte(want)))
		}
		if res.Citation.Reference != "report.toy" || !res.Retrieved.Complete {
			t.Errorf("reference %q complete %v, want report.toy and complete", res.Citation.Reference, res.Retrieved.Complete)
		}
		m := res.Provenance.Metadata
		if m["extractor"] != "engine_test/paged" || m["extractor_version"] != "0.1" || m["document_format"] != "paged" {
			t.Errorf("metadata %v: want the extractor's name and version", m)
		}
		if res.Confidence != 0.98 || !slices.Contains(res.Assumptions, "Reading order from a layout pass") {
			t.Errorf("confidence %v assumptions %q: want the extractor's deduction (0.02) and its assumption", res.Confidence, res.Assumptions)
		}
	})
	for _, c := range []struct {
		name, target, pages, lines string
		data, ref                  string
		anchors                    []string
	}{
		{"OK/pages", "report.toy", "2", "", "Results are good.\nEvery citation is checkable again.\nThe end of page two.\n", "report.toy#page=2",
			[]string{"report.toy#page=2&box=72,676,276,710"}},
		{"OK/page range", "report.toy", "2-3", "", "Results are good.\nEvery citation is checkable again.\nThe end of page two.\nAppendix text\n", "report.toy#page=2-3",
			[]string{"report.toy#page=2&box=72,676,276,710", "report.toy#page=3&box=72,700,150,710"}},
		{"OK/open range", "report.toy", "page=2-", "", "Results are good.\nEvery citation is checkable again.\nThe end of page two.\nAppendix text\n", "report.toy#page=2-3", nil},
		{"OK/fragment", "report.toy#page=2", "", "", "Results are good.\nEvery citation is checkable again.\nThe end of page two.\n", "report.toy#page=2", nil},
		{"OK/lines in a page", "report.toy#page=2:2", "", "", "Every citation is checkable again.\n", "report.toy#page=2:2-2",
			[]string{"report.toy#page=2:2-2", "report.toy#page=2&box=72,688,276,698"}},
		{"OK/lines and pages", "report.toy", "2", "2-3", "Every citation is checkable again.\nThe end of page two.\n", "report.toy#page=2:2-3", nil},
		{"OK/same pages twice", "report.toy#page=2", "2", "", "Results are good.\nEvery citation is checkable again.\nThe end of page two.\n", "report.toy#page=2", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := mustGet(t, e, retrieve.Request{Target: c.target, Constraints: retrieve.Constraints{Pages: c.pages, Lines: c.lines}})
			if res.Retrieved.Data != c.data {
				t.Fatalf("data %q, want %q", res.Retrieved.Data, c.data)
			}
			if res.Citation.Reference != c.ref {
				t.Errorf("reference %q, want %q", res.Citation.Reference, c.ref)
			}
			if c.anchors != nil && !slices.Equal(res.EvidenceAnchors, c.anchors) {
				t.Errorf("anchors %q, want %q", res.EvidenceAnchors, c.anchors)
			}
			if res.Retrieved.Complete {
				t.Error("a part of a document is not complete")
			}
			again := mustGet(t, e, retrieve.Request{Target: res.Citation.Reference})
			if *again.Citation.Hash != *res.Citation.Hash || again.Citation.Reference != res.Citation.Reference {
				t.Errorf("the reference %s re-retrieved gives %s %s, want the same hash %s", res.Citation.Reference, again.Citation.Reference, *again.Citation.Hash, *res.Citation.Hash)
			}
			for _, a := range res.EvidenceAnchors {
				if _, err := e.Retrieve(context.Background(), retrieve.Request{Target: a}); err != nil {
					t.Errorf("anchor %s is not a target: %v", a, err)
				}
			}
		})
	}
	t.Run("OK/section from the outline", func(t *testing.T) {
		res := mustGet(t, e, retrieve.Request{Target: "report.toy", Constraints: retrieve.Constraints{Sections: []string{"results"}}})
		if want := "Results are good.\nEvery citation is checkable again.\nThe end of page two.\n"; res.Retrieved.Data != want {
			t.Fatalf("data %q, want %q", res.Retrieved.Data, want)
		}
		if res.Citation.Reference != "report.toy:3-5" {
			t.Errorf("reference %q, want report.toy:3-5", res.Citation.Reference)
		}
	})
	for _, c := range []struct {
		name   string
		req    retrieve.Request
		code   retrieve.Code
		inMsg  string
		inHint string
	}{
		{"ErrNoPart", retrieve.Request{Target: "report.toy", Constraints: retrieve.Constraints{Pages: "7"}}, retrieve.CodeInputValidation, "the document has 3", "pages"},
		{"ErrWrongKind", retrieve.Request{Target: "report.toy#slide=1"}, retrieve.CodeInputValidation, "has no slides: its parts are pages", "report.toy#page=1"},
		{"ErrBadPages", retrieve.Request{Target: "report.toy", Constraints: retrieve.Constraints{Pages: "2-1"}}, retrieve.CodeInputValidation, "pages", "3-4"},
		{"ErrTwoPages", retrieve.Request{Target: "report.toy#page=1", Constraints: retrieve.Constraints{Pages: "2"}}, retrieve.CodeInputValidation, "already names", "once"},
		{"ErrSection", retrieve.Request{Target: "report.toy", Constraints: retrieve.Constraints{Sections: []string{"Nope"}}}, retrieve.CodeSectionNotFound, "Nope", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := get(t, e, c.req)
			var ae *retrieve.Error
			if !errors.As(err, &ae) || ae.Code != c.code || !strings.Contains(ae.Message, c.inMsg) || !strings.Contains(ae.Hint, c.inHint) {
				t.Fatalf("got %v, want %s with %q in the message and %q in the hint", err, c.code, c.inMsg, c.inHint)
			}
		})
	}
}

func TestDocumentErrors(t *testing.T) {
	e, _ := docEngine(t, map[string]string{
		"locked.toy": "TOY1\nENCRYPTED\n",
		"broken.toy": "not a toy at all\n",
		"blob.bin":   "\x00\x01\x02binary\x00\xff\xfe",
		"notes.txt":  "plain text\n",
		"image.gif":  "GIF89a\x01\x02\x80\xff\xfe\xc3\x28 no NUL byte in it",
		"latin1.txt": "caf\xe9 cr\xe8me\n",
	})
	for _, c := range []struct {
		name   string
		req    retrieve.Request
		code   retrieve.Code
		inHint string
		alt    string
	}{
		{"ErrEncrypted", retrieve.Request{Target: "locked.toy"}, retrieve.CodeUnsupportedFormat, "decrypt", "paged"},
		{"ErrMalformed", retrieve.Request{Target: "broken.toy"}, retrieve.CodeParseFailed, "damaged", ""},
		{"ErrBinaryAsText", retrieve.Request{Target: "blob.bin", Format: "text"}, retrieve.CodeUnsupportedFormat, "--format binary", "ipynb"},
		{"ErrImageAsText", retrieve.Request{Target: "image.gif", Format: "text"}, retrieve.CodeUnsupportedFormat, "--format binary", "html"},
		{"ErrPagesOfText", retrieve.Request{Target: "notes.txt", Constraints: retrieve.Constraints{Pages: "1"}}, retrieve.CodeInputValidation, "pages or parts", ""},
		{"ErrPagesOfBinary", retrieve.Request{Target: "blob.bin", Constraints: retrieve.Constraints{Pages: "1"}}, retrieve.CodeInputValidation, "docs/documents.md", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := get(t, e, c.req)
			var ae *retrieve.Error
			if !errors.As(err, &ae) || ae.Code != c.code || !strings.Contains(ae.Hint, c.inHint) {
				t.Fatalf("got %v (hint %q), want %s with %q in the hint", err, hintOf(err), c.code, c.inHint)
			}
			if c.alt != "" && !slices.Contains(ae.Alternatives, c.alt) {
				t.Errorf("alternatives %q, want the format names with %s", ae.Alternatives, c.alt)
			}
			if res.Retrieved.Data != nil || res.Confidence != 0 {
				t.Errorf("a failure returned data %v with confidence %v", res.Retrieved.Data, res.Confidence)
			}
		})
	}
	t.Run("OK/legacy text repaired", func(t *testing.T) {
		res := mustGet(t, e, retrieve.Request{Target: "latin1.txt", Format: "text"})
		if res.Retrieved.Data != "caf\uFFFD cr\uFFFDme\n" || res.Confidence >= 1 {
			t.Fatalf("data %q confidence %v: want the repaired text, under 1", res.Retrieved.Data, res.Confidence)
		}
	})
	t.Run("OK/binary without a format", func(t *testing.T) {
		res := mustGet(t, e, retrieve.Request{Target: "blob.bin"})
		if res.Retrieved.Data != nil || res.Retrieved.Format != "binary" {
			t.Fatalf("data %v format %s, want null binary", res.Retrieved.Data, res.Retrieved.Format)
		}
	})
	t.Run("OK/limit", func(t *testing.T) {
		ws := testws.New(t)
		ws.Write("report.toy", report)
		src, _ := file.New(file.Options{Root: ws.Root})
		defer src.Close()
		small, _ := engine.New(engine.Options{Sources: []retrieve.Source{src}, Formats: format.NewRegistry(paged{}), FormatLimits: format.Limits{MaxInput: 16}})
		_, err := small.Retrieve(context.Background(), retrieve.Request{Target: "report.toy"})
		if got := retrieve.AsError(err).Code; got != retrieve.CodeTooLarge {
			t.Fatalf("a document over MaxInput: got %v, want TOO_LARGE", err)
		}
	})
}

func hintOf(err error) string {
	if err == nil {
		return ""
	}
	return retrieve.AsError(err).Hint
}

func TestDocumentQuoteAndVerify(t *testing.T) {
	e, _ := docEngine(t, map[string]string{"report.toy": report})
	res, err := e.Quote(context.Background(), "report.toy", "every citation is CHECKABLE again", retrieve.QuoteOptions{Loose: true})
	if err != nil {
		t.Fatal(err)
	}
	// The lines of the page that holds the quotation, a target itself.
	if res.Citation.Reference != "report.toy#page=2:2-2" || res.Retrieved.Data != "Every citation is checkable again.\n" {
		t.Fatalf("quote cites %s %q, want report.toy#page=2:2-2 and the line", res.Citation.Reference, res.Retrieved.Data)
	}
	if want := []string{"report.toy#page=2:2:1-2:33", "report.toy#page=2&box=72,688,276,698"}; !slices.Equal(res.EvidenceAnchors, want) {
		t.Errorf("anchors %q, want %q: the position in the page, then the page and box", res.EvidenceAnchors, want)
	}
	if again := mustGet(t, e, retrieve.Request{Target: res.Citation.Reference}); *again.Citation.Hash != *res.Citation.Hash {
		t.Errorf("%s as a target: hash %s, want %s", res.Citation.Reference, *again.Citation.Hash, *res.Citation.Hash)
	}
	// A quotation across pages cites lines of the whole text.
	across, err := e.Quote(context.Background(), "report.toy", "the end of page two. appendix text", retrieve.QuoteOptions{Loose: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(across.Citation.Reference, "report.toy:") {
		t.Errorf("a quotation across pages cites %s, want lines of the whole text", across.Citation.Reference)
	}
	if again := mustGet(t, e, retrieve.Request{Target: across.Citation.Reference}); *again.Citation.Hash != *across.Citation.Hash {
		t.Errorf("%s as a target: another hash", across.Citation.Reference)
	}
	for _, target := range []string{"report.toy#page=2:2", "report.toy"} {
		cited := mustGet(t, e, retrieve.Request{Target: target})
		if v := e.VerifyResult(context.Background(), cited); v.Status != retrieve.Verified {
			t.Errorf("verify %s: %s, want verified", target, v.Status)
		}
	}
}

func TestDocumentUTF16(t *testing.T) {
	raw := "\xff\xfeh\x00\xe9\x00l\x00l\x00o\x00\n\x00w\x00o\x00r\x00l\x00d\x00\n\x00"
	e, _ := docEngine(t, map[string]string{"u16.txt": raw})
	for _, format := range []string{"", "text"} {
		res := mustGet(t, e, retrieve.Request{Target: "u16.txt", Format: format})
		if res.Retrieved.Data != "héllo\nworld\n" || *res.Citation.SourceHash != sha([]byte(raw)) || *res.Citation.Hash != sha([]byte("héllo\nworld\n")) {
			t.Fatalf("format %q: data %q source_hash %s hash %s: want the decoded text, the raw bytes' source hash", format, res.Retrieved.Data, *res.Citation.SourceHash, *res.Citation.Hash)
		}
		if !strings.Contains(strings.Join(res.Assumptions, "|"), "UTF-16LE") || res.Provenance.Metadata["encoding"] != "UTF-16LE" {
			t.Errorf("assumptions %q metadata %v: want them to say UTF-16LE", res.Assumptions, res.Provenance.Metadata)
		}
	}
	res := mustGet(t, e, retrieve.Request{Target: "u16.txt:2"})
	if res.Retrieved.Data != "world\n" {
		t.Errorf("line 2: %q, want world", res.Retrieved.Data)
	}
}

const page = `<!doctype html><html><head><title>T</title></head><body><nav><a href="/">Home</a></nav>
<article><h1>Guide</h1><p>The first paragraph is long enough to be the main content of this page, with words.</p>
<h2>Install</h2><p class="cmd">Run the installer, then restart the shell to pick it up.</p></article></body></html>`

// TestDocumentHTMLFile: an HTML file on disk becomes the Markdown a page
// over HTTP gives, through the same converter, with sections and CSS.
func TestDocumentHTMLFile(t *testing.T) {
	e, _ := docEngine(t, map[string]string{"guide.html": page})
	conv, err := fhtml.Convert([]byte(page), nil, false, "")
	if err != nil {
		t.Fatal(err)
	}
	res := mustGet(t, e, retrieve.Request{Target: "guide.html"})
	if res.Retrieved.Data != conv.Markdown || res.Retrieved.Format != "markdown" {
		t.Fatalf("data %q (%s), want the converter's %q", res.Retrieved.Data, res.Retrieved.Format, conv.Markdown)
	}
	if res.Confidence >= 1 {
		t.Errorf("confidence %v: readability is a heuristic", res.Confidence)
	}
	sec := mustGet(t, e, retrieve.Request{Target: "guide.html", Constraints: retrieve.Constraints{Sections: []string{"Install"}}})
	if want := "## Install\n\nRun the installer, then restart the shell to pick it up.\n"; sec.Retrieved.Data != want {
		t.Errorf("--section Install: %q, want %q", sec.Retrieved.Data, want)
	}
	again := mustGet(t, e, retrieve.Request{Target: sec.Citation.Reference})
	if *again.Citation.Hash != *sec.Citation.Hash {
		t.Errorf("%s re-retrieved: another hash", sec.Citation.Reference)
	}
	css := mustGet(t, e, retrieve.Request{Target: "guide.html", Constraints: retrieve.Constraints{Select: "p.cmd"}})
	if want := "Run the installer, then restart the shell to pick it up.\n"; css.Retrieved.Data != want {
		t.Errorf("--select p.cmd: %q, want %q", css.Retrieved.Data, want)
	}
	raw := mustGet(t, e, retrieve.Request{Target: "guide.html", Format: "html"})
	if raw.Retrieved.Data != page {
		t.Errorf("--format html: %q, want the file", raw.Retrieved.Data)
	}
	_, err = get(t, e, retrieve.Request{Target: "guide.html", Constraints: retrieve.Constraints{Select: "p.none"}})
	if got := retrieve.AsError(err).Code; got != retrieve.CodeInputValidation {
		t.Errorf("a selector matching nothing: %v, want INPUT_VALIDATION_FAILED", err)
	}
}

func TestDocumentNotebookAndJSONLines(t *testing.T) {
	nb, _ := json.Marshal(map[string]any{"nbformat": 4, "metadata": map[string]any{}, "cells": []any{
		map[string]any{"cell_type": "markdown", "source": "# Load\nWe load the rows."},
		map[string]any{"cell_type": "code", "source": "load()", "outputs": []any{map[string]any{"output_type": "display_data", "data": map[string]any{"image/png": strings.Repeat("QUJD", 4096)}}}},
		map[string]any{"cell_type": "markdown", "source": "# Fit\nThe model fits well."},
	}})
	e, _ := docEngine(t, map[string]string{"nb.ipynb": string(nb), "ev.jsonl": "{\"n\":1}\n{\"n\":2}\n\n{\"n\":3}\n"})
	cell := mustGet(t, e, retrieve.Request{Target: "nb.ipynb#cell=2"})
	if want := "```\nload()\n```\n\n[image/png output, 12 KB]\n\n"; cell.Retrieved.Data != want || cell.Citation.Reference != "nb.ipynb#cell=2" {
		t.Fatalf("cell 2: %q %s, want %q nb.ipynb#cell=2", cell.Retrieved.Data, cell.Citation.Reference, want)
	}
	fit := mustGet(t, e, retrieve.Request{Target: "nb.ipynb", Constraints: retrieve.Constraints{Sections: []string{"Fit"}}})
	if fit.Retrieved.Data != "# Fit\nThe model fits well.\n\n" {
		t.Errorf("--section Fit: %q", fit.Retrieved.Data)
	}
	arr := mustGet(t, e, retrieve.Request{Target: "ev.jsonl", Format: "json"})
	if b, _ := json.Marshal(arr.Retrieved.Data); string(b) != `[{"n":1},{"n":2},{"n":3}]` || arr.Retrieved.Format != "json" {
		t.Errorf("--format json: %s (%s), want the array of the records", b, arr.Retrieved.Format)
	}
	third := mustGet(t, e, retrieve.Request{Target: "ev.jsonl", Constraints: retrieve.Constraints{Select: ".[2].n"}})
	if b, _ := json.Marshal(third.Retrieved.Data); string(b) != "3" {
		t.Errorf("--select .[2].n: %s, want 3", b)
	}
	rec := mustGet(t, e, retrieve.Request{Target: "ev.jsonl", Constraints: retrieve.Constraints{Pages: "3"}})
	if rec.Retrieved.Data != "{\"n\":3}\n" || rec.Citation.Reference != "ev.jsonl#record=3" {
		t.Errorf("--pages 3: %q %s, want the third record, ev.jsonl#record=3", rec.Retrieved.Data, rec.Citation.Reference)
	}
}

// TestFormatsConformance runs the paged toy through the suite: the
// stand-in the engine tests rely on keeps the contract real formats keep.
func TestFormatsConformance(t *testing.T) {
	var large strings.Builder
	large.WriteString("TOY1\n")
	for i := 0; large.Len() < 1<<20; i++ {
		fmt.Fprintf(&large, "page %d has a line of text\n~~~\n", i)
	}
	large.WriteString("last\n")
	formattest.Run(t, paged{}, []formattest.Sample{
		{Name: "report.toy", Data: []byte(report), Phrase: "Every citation is checkable again."},
		{Name: "large.toy", Data: []byte(large.String()), Phrase: "page 7 has", Large: true},
	})
}

// TestDocumentSnapshot: the ledger keeps the document's bytes, so a
// verification and a fallback re-extract them; the fallback cites the
// same pages with the same hash once the file is gone.
func TestDocumentSnapshot(t *testing.T) {
	ctx := context.Background()
	ws := testws.New(t)
	ws.Write("report.toy", report)
	st, err := sqlite.OpenStore(ctx, filepath.Join(ws.Root, ".retrieve", "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	src, err := file.New(file.Options{Root: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{src}, Store: st, SpoolDir: filepath.Join(ws.Root, ".retrieve", "tmp"),
		Formats: format.NewRegistry(paged{})})
	if err != nil {
		t.Fatal(err)
	}
	res := mustGet(t, e, retrieve.Request{Target: "report.toy#page=2:2"})
	entry, err := st.Entry(ctx, res.RetrievalID)
	if err != nil || entry.Snapshot != sha([]byte(report)) {
		t.Fatalf("entry %+v, %v: want the document's bytes as the snapshot", entry, err)
	}
	if v, err := e.VerifyEntry(ctx, res.RetrievalID); err != nil || v.Status != retrieve.Verified {
		t.Fatalf("verify: %+v %v, want verified", v, err)
	}
	ws.Write("report.toy", strings.Replace(report, "checkable", "CHANGED", 1))
	if v, err := e.VerifyEntry(ctx, res.RetrievalID); err != nil || v.Status != retrieve.Changed {
		t.Fatalf("verify after an edit of the cited line: %+v %v, want changed", v, err)
	}
	if err := os.Remove(filepath.Join(ws.Root, "report.toy")); err != nil {
		t.Fatal(err)
	}
	got := mustGet(t, e, retrieve.Request{Target: res.Citation.Reference, Fallback: retrieve.FallbackSnapshot})
	if got.Provenance.RetrievedFrom != retrieve.FromSnapshot || got.Retrieved.Data != res.Retrieved.Data || *got.Citation.Hash != *res.Citation.Hash || got.Citation.Reference != res.Citation.Reference {
		t.Errorf("fallback: %s %q %s, want %q %s from the snapshot", got.Provenance.RetrievedFrom, got.Retrieved.Data, got.Citation.Reference, res.Retrieved.Data, res.Citation.Reference)
	}
}

// BenchmarkDocumentHTMLFile is a 500 KB HTML file retrieved as Markdown
// through the engine (read, hash, convert, cite); its baseline is
// format/html's BenchmarkConvertHTML500K, the converter alone on the same
// kind of page.
func BenchmarkDocumentHTMLFile(b *testing.B) {
	var page strings.Builder
	page.WriteString("<!doctype html><html lang=\"en\"><head><title>Big</title></head><body><nav>")
	for i := range 50 {
		fmt.Fprintf(&page, "<a href=\"/n%d\">nav %d</a> ", i, i)
	}
	page.WriteString("</nav><article><h1>Big article</h1>")
	for i := 0; page.Len() < 500<<10; i++ {
		if i%10 == 0 {
			fmt.Fprintf(&page, "<h2>Section %d</h2>", i/10)
		}
		fmt.Fprintf(&page, "<p>Paragraph %d of the article, with <a href=\"/l%d\">a link</a>, some <em>emphasis</em>, commas, and enough words to look like prose that a reader would want to keep.</p>", i, i)
	}
	page.WriteString("</article><footer>footer</footer></body></html>")
	ws := testws.New(b)
	ws.Write("big.html", page.String())
	src, err := file.New(file.Options{Root: ws.Root})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{src}, Formats: formats.Default()})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(page.Len()))
	b.ReportAllocs()
	for b.Loop() {
		res, err := e.Retrieve(context.Background(), retrieve.Request{Target: "big.html", NoRecord: true})
		if err != nil || len(res.Retrieved.Data.(string)) < 100<<10 {
			b.Fatalf("err=%v", err)
		}
	}
}

// TestDocumentNextPart: text cut by max_bytes cites the lines returned and
// names the next part, which continues where it stopped.
func TestDocumentNextPart(t *testing.T) {
	e, _ := docEngine(t, map[string]string{"report.toy": report})
	for _, c := range []struct{ target, ref, next string }{
		{"report.toy", "report.toy:1-2", "report.toy:3-"},
		{"report.toy#page=2-3", "report.toy#page=2-3:1-1", "report.toy#page=2-3:2-"},
	} {
		res := mustGet(t, e, retrieve.Request{Target: c.target, Constraints: retrieve.Constraints{MaxBytes: 45}})
		if res.Citation.Reference != c.ref || res.Extraction.Next == nil || *res.Extraction.Next != c.next || !res.Extraction.Truncated {
			t.Fatalf("%s cut at 45 bytes: reference %s next %v, want %s and %s", c.target, res.Citation.Reference, res.Extraction.Next, c.ref, c.next)
		}
		again := mustGet(t, e, retrieve.Request{Target: res.Citation.Reference})
		if *again.Citation.Hash != *res.Citation.Hash {
			t.Errorf("%s re-retrieved: another hash", res.Citation.Reference)
		}
		rest := mustGet(t, e, retrieve.Request{Target: *res.Extraction.Next})
		whole := mustGet(t, e, retrieve.Request{Target: c.target})
		if res.Retrieved.Data.(string)+rest.Retrieved.Data.(string) != whole.Retrieved.Data {
			t.Errorf("%s: the part and the next do not join to the whole: %q + %q", c.target, res.Retrieved.Data, rest.Retrieved.Data)
		}
	}
}

// dataSource returns structured data, as the api and sql sources do.
type dataSource struct{}

func (dataSource) Kind() string { return "data" }

func (dataSource) Fetch(ctx context.Context, req *retrieve.Request) (*retrieve.Document, error) {
	return &retrieve.Document{Locator: req.Target, Data: []any{1.0, 2.0}}, nil
}

func TestPagesOfData(t *testing.T) {
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{dataSource{}}, Formats: formats.Default()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Retrieve(context.Background(), retrieve.Request{Target: "x", Source: "data", Constraints: retrieve.Constraints{Pages: "2-3"}})
	if got := retrieve.AsError(err).Code; got != retrieve.CodeInputValidation {
		t.Fatalf("pages of data: %v, want INPUT_VALIDATION_FAILED", err)
	}
	res, err := e.Retrieve(context.Background(), retrieve.Request{Target: "x", Source: "data", Constraints: retrieve.Constraints{Pages: "3"}, Web: retrieve.WebOptions{Pages: 3}})
	if err != nil || res.Retrieved.Data == nil {
		t.Fatalf("--pages 3 as the api count: %v, want the data", err)
	}
}

// sheet is a made-up spreadsheet format with a Selector: "SHEET1" then rows
// of comma-separated cells; Select("Name!A1:B2") returns the cells of rows
// 1-2, columns A-B, as one part whose fragment is the range.
type sheet struct{}

func (sheet) Info() format.Info {
	return format.Info{Name: "sheet", Extractor: "engine_test/sheet", Version: "0", Extensions: []string{".sheet"}}
}

func (sheet) rows(ctx context.Context, r io.ReaderAt, size int64, opts format.Options) ([][]string, error) {
	src, err := format.ReadAll(ctx, r, size, opts.Limits)
	if err != nil {
		return nil, err
	}
	body, ok := bytes.CutPrefix(src, []byte("SHEET1\n"))
	if !ok {
		return nil, fmt.Errorf("%w: no header", format.ErrMalformed)
	}
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSuffix(string(body), "\n"), "\n") {
		rows = append(rows, strings.Split(l, ","))
	}
	return rows, nil
}

func (s sheet) Extract(ctx context.Context, r io.ReaderAt, size int64, opts format.Options) (*format.Text, error) {
	rows, err := s.rows(ctx, r, size, opts)
	if err != nil {
		return nil, err
	}
	var w strings.Builder
	for _, row := range rows {
		w.WriteString(strings.Join(row, "\t") + "\n")
	}
	t := &format.Text{Text: w.String(), Format: "text", Parts: []format.Part{{Kind: "sheet", Index: 1, Fragment: "Sheet1!A1:" + string(rune('A'+len(rows[0])-1)) + strconv.Itoa(len(rows)), End: w.Len()}}}
	return format.SelectParts(t, opts.Parts)
}

func (s sheet) Select(ctx context.Context, r io.ReaderAt, size int64, expr string, opts format.Options) (*format.Text, error) {
	rows, err := s.rows(ctx, r, size, opts)
	if err != nil {
		return nil, err
	}
	var c0, c1 rune
	var r0, r1 int
	if _, err := fmt.Sscanf(strings.TrimPrefix(strings.ToUpper(expr), "SHEET1!"), "%c%d:%c%d", &c0, &r0, &c1, &r1); err != nil {
		return nil, fmt.Errorf("%w: range %q", format.ErrMalformed, expr)
	}
	if r1 > len(rows) || int(c1-'A') >= len(rows[0]) {
		return nil, fmt.Errorf("%w: %s", format.ErrNoPart, expr)
	}
	var w strings.Builder
	for _, row := range rows[r0-1 : r1] {
		w.WriteString(strings.Join(row[c0-'A':c1-'A'+1], "\t") + "\n")
	}
	frag := fmt.Sprintf("Sheet1!%c%d:%c%d", c0, r0, c1, r1)
	return &format.Text{Text: w.String(), Format: "text", Parts: []format.Part{{Kind: "range", Index: 1, Fragment: frag, End: w.Len()}}}, nil
}

// TestDocumentSelectorRange: a range a format's Selector names is the
// reference's fragment (book.xlsx#Sheet1!B2:C40), itself a target.
func TestDocumentSelectorRange(t *testing.T) {
	ws := testws.New(t)
	ws.Write("book.sheet", "SHEET1\na,b,c\n1,2,3\n4,5,6\n")
	src, err := file.New(file.Options{Root: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{src}, Formats: format.NewRegistry(sheet{})})
	if err != nil {
		t.Fatal(err)
	}
	res := mustGet(t, e, retrieve.Request{Target: "book.sheet", Constraints: retrieve.Constraints{Select: "sheet1!b2:c3"}})
	if res.Retrieved.Data != "2\t3\n5\t6\n" || res.Citation.Reference != "book.sheet#Sheet1!B2:C3" {
		t.Fatalf("data %q reference %s, want the cells and book.sheet#Sheet1!B2:C3", res.Retrieved.Data, res.Citation.Reference)
	}
	again := mustGet(t, e, retrieve.Request{Target: res.Citation.Reference})
	if *again.Citation.Hash != *res.Citation.Hash || again.Citation.Reference != res.Citation.Reference {
		t.Errorf("the range reference re-retrieved: %s %s, want the same", again.Citation.Reference, *again.Citation.Hash)
	}
	_, err = get(t, e, retrieve.Request{Target: "book.sheet#Sheet1!A1:Z9"})
	if got := retrieve.AsError(err).Code; got != retrieve.CodeInputValidation {
		t.Errorf("a range the sheet lacks: %v, want INPUT_VALIDATION_FAILED", err)
	}
}

// allPages is the paged toy as an extractor that cannot skip pages: it
// ignores Options.Parts and returns them all.
type allPages struct{ paged }

func (a allPages) Extract(ctx context.Context, r io.ReaderAt, size int64, opts format.Options) (*format.Text, error) {
	opts.Parts = nil
	return a.paged.Extract(ctx, r, size, opts)
}

// TestDocumentPagesSelectedByTheEngine: after an extractor that returns
// every page, the engine selects the pages asked for.
func TestDocumentPagesSelectedByTheEngine(t *testing.T) {
	ws := testws.New(t)
	ws.Write("report.toy", report)
	src, err := file.New(file.Options{Root: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{src}, Formats: format.NewRegistry(allPages{})})
	if err != nil {
		t.Fatal(err)
	}
	res := mustGet(t, e, retrieve.Request{Target: "report.toy#page=3"})
	if res.Retrieved.Data != "Appendix text\n" || res.Citation.Reference != "report.toy#page=3" {
		t.Fatalf("page 3: %q %s, want only its text", res.Retrieved.Data, res.Citation.Reference)
	}
	_, err = get(t, e, retrieve.Request{Target: "report.toy#page=4"})
	if got := retrieve.AsError(err).Code; got != retrieve.CodeInputValidation {
		t.Errorf("page 4 of 3: %v, want INPUT_VALIDATION_FAILED", err)
	}
}

// BenchmarkDocumentPDFPage is one page of a 600-page PDF retrieved through
// the engine (read whole, hashed, extracted with Options.Parts, cited); its
// baseline, BenchmarkDocumentPDFPageExtractOnly, is the extractor alone on
// the same bytes.
func BenchmarkDocumentPDFPage(b *testing.B) {
	data, _ := manyPages()
	ws := testws.New(b)
	ws.Write("big.pdf", string(data))
	src, err := file.New(file.Options{Root: ws.Root})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{src}, Formats: formats.Default()})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		res, err := e.Retrieve(context.Background(), retrieve.Request{Target: "big.pdf#page=300", NoRecord: true})
		if err != nil || !strings.Contains(res.Retrieved.Data.(string), "page 300 ") {
			b.Fatalf("err=%v data=%v", err, res.Retrieved.Data)
		}
	}
}

// BenchmarkDocumentPDFPageExtractOnly is the baseline of
// BenchmarkDocumentPDFPage: the PDF extractor alone.
func BenchmarkDocumentPDFPageExtractOnly(b *testing.B) {
	data, ex := manyPages()
	b.ReportAllocs()
	for b.Loop() {
		txt, err := ex.Extract(context.Background(), bytes.NewReader(data), int64(len(data)), format.Options{Parts: []format.Range{{From: 300, To: 300}}})
		if err != nil || !strings.Contains(txt.Text, "page 300 ") {
			b.Fatalf("err=%v", err)
		}
	}
}

// manyPages is a 600-page PDF, one line per page, and the PDF format.
func manyPages() ([]byte, format.Extractor) {
	pages := make([]string, 600)
	for i := range pages {
		pages[i] = fmt.Sprintf("This is page %d of the long manual.", i+1)
	}
	ex, _ := formats.Default().Lookup("pdf")
	return testws.MinimalPDF(pages...), ex
}
