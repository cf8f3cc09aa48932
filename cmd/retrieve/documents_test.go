package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/spf13/pflag"
)

// getJSON runs `retrieve get` with --json in ws and decodes the result.
func getJSON(t *testing.T, ws *testws.Workspace, wantCode int, args ...string) *retrieve.Result {
	t.Helper()
	out, errOut, code := runCLI(t, append([]string{"--root", ws.Root, "get", "--json"}, args...)...)
	if code != wantCode {
		t.Fatalf("get %v: exit %d, want %d; stderr %s", args, code, wantCode, errOut)
	}
	contracttest.Check(t, []byte(out))
	var res retrieve.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	return &res
}

const notebook = `{"nbformat": 4, "nbformat_minor": 5, "metadata": {"language_info": {"name": "python"}}, "cells": [
 {"cell_type": "markdown", "metadata": {}, "source": ["# Analysis\n", "We load the data first."]},
 {"cell_type": "code", "metadata": {}, "source": "print('rows loaded')", "outputs": [{"output_type": "stream", "name": "stdout", "text": ["rows loaded\n"]}]},
 {"cell_type": "markdown", "metadata": {}, "source": ["## Plot\n", "Every citation is checkable again."]},
 {"cell_type": "code", "metadata": {}, "source": "df.plot()", "outputs": [{"output_type": "display_data", "data": {"image/png": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"}}]}]}`

// TestGetDocuments runs documents through the CLI as a user would: pages,
// the reference given back as a target, quote, and the refusals.
func TestGetDocuments(t *testing.T) {
	ws := testws.New(t)
	ws.Write("nb.ipynb", notebook)
	ws.Write("page.html", `<html><body><article><h1>Guide</h1><p>The first paragraph is long enough to be the main content of the page.</p><h2>Install</h2><p class="cmd">Run the installer now.</p></article></body></html>`)
	ws.Write("blob.bin", "\x00\x01\x02\x03binary\x00")
	ws.Write("notes.txt", "plain\n")

	t.Run("OK/pages", func(t *testing.T) {
		res := getJSON(t, ws, ExitOK, "nb.ipynb", "--pages", "2-3")
		if res.Citation.Reference != "nb.ipynb#cell=2-3" || !strings.Contains(res.Retrieved.Data.(string), "rows loaded") {
			t.Fatalf("reference %q data %q", res.Citation.Reference, res.Retrieved.Data)
		}
		if res.Provenance.Metadata["extractor"] != "retrieve/format/ipynb" {
			t.Errorf("metadata %v: want the extractor", res.Provenance.Metadata)
		}
		again := getJSON(t, ws, ExitOK, res.Citation.Reference)
		if *again.Citation.Hash != *res.Citation.Hash {
			t.Errorf("the reference %s as a target: hash %s, want %s", res.Citation.Reference, *again.Citation.Hash, *res.Citation.Hash)
		}
	})
	t.Run("OK/lines within a part", func(t *testing.T) {
		res := getJSON(t, ws, ExitOK, "nb.ipynb#cell=3:2")
		if res.Retrieved.Data != "Every citation is checkable again.\n" || res.Citation.Reference != "nb.ipynb#cell=3:2-2" {
			t.Fatalf("data %q reference %q", res.Retrieved.Data, res.Citation.Reference)
		}
	})
	t.Run("OK/quote", func(t *testing.T) {
		out, errOut, code := runCLI(t, "--root", ws.Root, "quote", "nb.ipynb", "every citation is checkable", "--loose", "--json")
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var res retrieve.Result
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(res.EvidenceAnchors, "nb.ipynb#cell=3") {
			t.Errorf("anchors %q: want the cell the quotation is in", res.EvidenceAnchors)
		}
	})
	t.Run("OK/html file", func(t *testing.T) {
		res := getJSON(t, ws, ExitOK, "page.html", "--section", "Install")
		if res.Retrieved.Data != "## Install\n\nRun the installer now.\n" || res.Retrieved.Format != "markdown" {
			t.Fatalf("data %q format %s", res.Retrieved.Data, res.Retrieved.Format)
		}
		css := getJSON(t, ws, ExitOK, "page.html", "--select", "p.cmd")
		if css.Retrieved.Data != "Run the installer now.\n" {
			t.Errorf("--select p.cmd: %q", css.Retrieved.Data)
		}
	})
	t.Run("ErrBinaryAsText", func(t *testing.T) {
		res := getJSON(t, ws, ExitFormat, "blob.bin", "--format", "text")
		if res.Error == nil || res.Error.Code != retrieve.CodeUnsupportedFormat || !slices.Contains(res.Error.Alternatives, "ipynb") || res.Retrieved.Data != nil {
			t.Fatalf("error %+v data %v: want UNSUPPORTED_FORMAT listing the formats, no data", res.Error, res.Retrieved.Data)
		}
	})
	t.Run("ErrNoSuchPart", func(t *testing.T) {
		res := getJSON(t, ws, ExitUsage, "nb.ipynb", "--pages", "9")
		if res.Error == nil || !strings.Contains(res.Error.Message, "the document has 4") {
			t.Fatalf("error %+v: want the count of cells", res.Error)
		}
	})
	t.Run("ErrPagesOfText", func(t *testing.T) {
		getJSON(t, ws, ExitUsage, "notes.txt", "--pages", "1")
	})
}

// TestPagesFlag: --pages N is both a document's pages and the api
// source's count of Link pages; a range is only the document's.
func TestPagesFlag(t *testing.T) {
	for _, c := range []struct {
		arg   string
		count int
	}{{"3", 3}, {"3-4", 0}, {"page=2", 0}} {
		var opts getOptions
		f := pflag.NewFlagSet("get", pflag.ContinueOnError)
		addWebFlags(f, &opts)
		if err := f.Parse([]string{"--pages", c.arg}); err != nil {
			t.Fatal(err)
		}
		if opts.Request.Constraints.Pages != c.arg || opts.Request.Web.Pages != c.count {
			t.Errorf("--pages %s: constraint %q count %d, want %q and %d", c.arg, opts.Request.Constraints.Pages, opts.Request.Web.Pages, c.arg, c.count)
		}
	}
}

// TestGetPDF: a PDF through the CLI as a user would: a page, the reference
// given back, a line within the page, and quote citing the page and box.
func TestGetPDF(t *testing.T) {
	ws := testws.New(t)
	ws.Write("report.pdf", string(testws.MinimalPDF("The first page of the report.", "Every citation is checkable again.", "The appendix.")))
	res := getJSON(t, ws, ExitOK, "report.pdf", "--pages", "2")
	if res.Retrieved.Data != "Every citation is checkable again.\n" || res.Citation.Reference != "report.pdf#page=2" {
		t.Fatalf("page 2: %q %s", res.Retrieved.Data, res.Citation.Reference)
	}
	if len(res.EvidenceAnchors) != 1 || !strings.HasPrefix(res.EvidenceAnchors[0], "report.pdf#page=2&box=72,") {
		t.Errorf("anchors %q: want the page and the box of the line", res.EvidenceAnchors)
	}
	again := getJSON(t, ws, ExitOK, res.Citation.Reference)
	if *again.Citation.Hash != *res.Citation.Hash {
		t.Errorf("%s as a target: another hash", res.Citation.Reference)
	}
	two := getJSON(t, ws, ExitOK, "report.pdf#page=2-3:1")
	if two.Retrieved.Data != "Every citation is checkable again.\n" || two.Citation.Reference != "report.pdf#page=2-3:1-1" {
		t.Errorf("a line of pages 2-3: %q %s", two.Retrieved.Data, two.Citation.Reference)
	}
	out, errOut, code := runCLI(t, "--root", ws.Root, "quote", "report.pdf", "every citation is CHECKABLE again", "--loose", "--json")
	if code != ExitOK {
		t.Fatalf("quote: exit %d: %s", code, errOut)
	}
	var q retrieve.Result
	if err := json.Unmarshal([]byte(out), &q); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range q.EvidenceAnchors {
		found = found || strings.HasPrefix(a, "report.pdf#page=2&box=")
	}
	if !found {
		t.Errorf("quote anchors %q: want page 2 and its box", q.EvidenceAnchors)
	}
	// The quotation cites the lines of its page, and that is a target.
	if q.Citation.Reference != "report.pdf#page=2:1-1" {
		t.Errorf("quote cites %s, want report.pdf#page=2:1-1", q.Citation.Reference)
	}
	if again := getJSON(t, ws, ExitOK, q.Citation.Reference); *again.Citation.Hash != *q.Citation.Hash {
		t.Errorf("the quote's reference %s as a target: another hash", q.Citation.Reference)
	}
	if !strings.Contains(getJSON(t, ws, ExitOK, "report.pdf").Retrieved.Data.(string), "The appendix.") {
		t.Error("the whole PDF lacks its last page")
	}
}

// TestGetDOCX: a paragraph of a DOCX by its reference, and quote in it.
func TestGetDOCX(t *testing.T) {
	ws := testws.New(t)
	ws.Write("doc.docx", string(testws.MinimalDOCX("Introduction", "Every citation is checkable in this document.", "The end.")))
	res := getJSON(t, ws, ExitOK, "doc.docx#para=2")
	if res.Retrieved.Data != "Every citation is checkable in this document.\n" || res.Citation.Reference != "doc.docx#para=2" {
		t.Fatalf("paragraph 2: %q %s", res.Retrieved.Data, res.Citation.Reference)
	}
	out, errOut, code := runCLI(t, "--root", ws.Root, "quote", "doc.docx", "checkable in this document", "--json")
	if code != ExitOK {
		t.Fatalf("quote: exit %d: %s", code, errOut)
	}
	var q retrieve.Result
	if err := json.Unmarshal([]byte(out), &q); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(q.EvidenceAnchors, "doc.docx#para=2") {
		t.Errorf("quote anchors %q: want doc.docx#para=2", q.EvidenceAnchors)
	}
}

// TestCitationForms retrieves every citation form docs/CONTRACT.md lists
// for documents, and re-retrieves each reference it gets: the reference
// is itself a target that returns the same text and hash.
func TestCitationForms(t *testing.T) {
	ws := testws.New(t)
	ws.Write("report.pdf", string(testws.MinimalPDF("The first page of the report.", "Every citation is checkable again.\nA second line of page two.", "The appendix.")))
	ws.Write("doc.docx", string(testws.MinimalDOCX("Introduction", "Every citation is checkable in this document.", "The end.")))
	ws.Write("deck.pptx", string(testws.MinimalPPTX("Welcome\nThe first slide.", "Numbers\nRevenue is up this quarter.")))
	ws.Write("book.xlsx", string(testws.MinimalXLSX("Sheet1", []string{"Name", "Amount", "Note"}, []string{"Ada", "10.5", "first"}, []string{"Grace", "21", "second"})))
	ws.Write("book.ods", string(testws.MinimalODS("Data", []string{"Name", "Amount"}, []string{"Ada", "10.5"}, []string{"Grace", "21"})))
	ws.Write("book.epub", string(testws.MinimalEPUB("Chapter One\nIt was a dark and stormy night.", "Chapter Two\nThe rain fell on the town.")))
	ws.Write("nb.ipynb", notebook)
	ws.Write("events.jsonl", "{\"event\": \"start\"}\n{\"event\": \"load\"}\n{\"event\": \"stop\"}\n")
	ws.Write("page.html", `<html><body><article><h1>Guide</h1><p>The first paragraph is long enough to be the main content of the page.</p><h2>Install</h2><p class="cmd">Run the installer now.</p></article></body></html>`)
	ws.Write("notes.txt", "hello binary world\n")
	ws.Write("blob.bin", "\x00\x01\x02\x03binary\x00")
	for _, c := range []struct {
		form string   // the form, as docs/CONTRACT.md names it
		args []string // what a user types
		ref  string   // the citation's reference
		data string   // a phrase of the text
	}{
		{"pdf page", []string{"report.pdf", "--pages", "2"}, "report.pdf#page=2", "Every citation is checkable again."},
		{"pdf page as a target", []string{"report.pdf#page=2"}, "report.pdf#page=2", "A second line of page two."},
		{"pdf page range", []string{"report.pdf#page=2-3"}, "report.pdf#page=2-3", "The appendix."},
		{"pdf page list", []string{"report.pdf", "--pages", "1,3"}, "report.pdf#page=1,3", "The appendix."},
		{"pdf page and lines", []string{"report.pdf#page=2:2"}, "report.pdf#page=2:2-2", "A second line of page two."},
		{"pdf lines of the whole text", []string{"report.pdf:1-2"}, "report.pdf:1-2", "The first page"},
		{"docx paragraph", []string{"doc.docx#para=2"}, "doc.docx#para=2", "Every citation is checkable in this document."},
		{"pptx slide", []string{"deck.pptx", "--pages", "2"}, "deck.pptx#slide=2", "Revenue is up this quarter."},
		{"xlsx range", []string{"book.xlsx", "--select", "Sheet1!B2:C3"}, "book.xlsx#Sheet1!B2:C3", "10.5"},
		{"xlsx range as a target", []string{"book.xlsx#Sheet1!A2:B2"}, "book.xlsx#Sheet1!A2:B2", "Ada"},
		{"ods range", []string{"book.ods#Data!A3:B3"}, "book.ods#Data!A3:B3", "Grace"},
		{"epub chapter", []string{"book.epub#chapter=2"}, "book.epub#chapter=2", "The rain fell on the town."},
		{"ipynb cell", []string{"nb.ipynb#cell=3"}, "nb.ipynb#cell=3", "Every citation is checkable again."},
		{"jsonl record", []string{"events.jsonl#record=2"}, "events.jsonl#record=2", "load"},
		{"html file section", []string{"page.html", "--section", "Install"}, "page.html:5-7", "Run the installer now."},
		{"html file selector", []string{"page.html", "--select", "p.cmd"}, "page.html#select=p.cmd", "Run the installer now."},
		{"bytes", []string{"notes.txt#bytes=6-11"}, "notes.txt#bytes=6-11", "binary"},
		{"bytes of binary data", []string{"blob.bin#bytes=4-9", "--format", "binary"}, "blob.bin#bytes=4-9", "YmluYXJ5"}, // base64 of "binary"
	} {
		t.Run(c.form, func(t *testing.T) {
			res := getJSON(t, ws, ExitOK, c.args...)
			data, _ := res.Retrieved.Data.(string)
			if res.Citation.Reference != c.ref || !strings.Contains(data, c.data) {
				t.Fatalf("get %v: reference %q data %q, want %q holding %q", c.args, res.Citation.Reference, data, c.ref, c.data)
			}
			// The reference alone re-retrieves: it names the selection
			// (#select=, #bytes=, a line span) as well as the parts.
			args := []string{res.Citation.Reference}
			again := getJSON(t, ws, ExitOK, args...)
			if again.Citation.Reference != res.Citation.Reference || *again.Citation.Hash != *res.Citation.Hash {
				t.Errorf("%v as a target: reference %q hash %s, want %q and %s", args, again.Citation.Reference, *again.Citation.Hash, res.Citation.Reference, *res.Citation.Hash)
			}
			// A byte range anchors as a target of its own (the same bytes).
			for _, a := range res.EvidenceAnchors {
				if strings.Contains(a, "#bytes=") {
					if got := getJSON(t, ws, ExitOK, a); *got.Citation.Hash != *res.Citation.Hash {
						t.Errorf("the anchor %s as a target: hash %s, want %s", a, *got.Citation.Hash, *res.Citation.Hash)
					}
				}
			}
		})
	}
}
