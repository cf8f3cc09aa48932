package ui_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/ops/opstest"
	"github.com/retrieve-dev/retrieve/ui"
)

// TestPDFCitationPage: a retrieval of a PDF page shows the page as SVG, the
// page's text lines as boxes with the cited ones highlighted, and a link
// that opens the kept document at #page=N; only PDFs are served that way,
// in a sandbox.
func TestPDFCitationPage(t *testing.T) {
	pdf, err := os.ReadFile("../format/pdf/testdata/SimplePDF2.0.pdf")
	if err != nil {
		t.Fatal(err)
	}
	e := opstest.NewFull(t)
	e.WS.Write("report.pdf", string(pdf))
	h, err := ui.New(e.Table, ui.Options{Workspace: e.WS.Root, Wiki: e.Wiki, Snapshots: e.Deps.Store})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	env := &env{Env: e, srv: srv}

	out := env.call(t, "retrieve", map[string]any{"target": "report.pdf", "pages": "1"})
	id, _ := out["retrieval_id"].(string)
	anchors := fmt.Sprint(out["evidence_anchors"])
	if id == "" || !strings.Contains(anchors, "#page=1&box=") {
		t.Fatalf("the PDF retrieval has no boxed anchors: %v", out)
	}
	code, _, body := env.get(t, "/ui/r/"+id)
	if code != http.StatusOK || !strings.Contains(body, `id="pdfpage"`) || !strings.Contains(body, `<svg viewBox="0 0 612 792"`) {
		t.Fatalf("status %d, no page drawing:\n%s", code, body)
	}
	if n := strings.Count(body, `class="cited"`); n == 0 {
		t.Errorf("no cited box drawn:\n%s", body)
	}
	link := regexp.MustCompile(`href="(/ui/snapshot/sha256:[0-9a-f]{64})#page=1"`).FindStringSubmatch(body)
	if link == nil {
		t.Fatalf("no link that opens the document at its page:\n%s", body)
	}

	resp, err := http.Get(srv.URL + link[1])
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/pdf" ||
		!strings.Contains(resp.Header.Get("Content-Security-Policy"), "sandbox") || string(b) != string(pdf) {
		t.Errorf("snapshot: %d %s %q (%d bytes)", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Security-Policy"), len(b))
	}

	// A text file's snapshot is not served to the browser.
	txt := env.call(t, "retrieve", map[string]any{"target": "notes.txt"})
	sh := txt["citation"].(map[string]any)["source_hash"].(string)
	if code, _, _ := env.get(t, "/ui/snapshot/"+sh); code != http.StatusUnsupportedMediaType && code != http.StatusBadRequest {
		t.Errorf("a text snapshot was served: status %d", code)
	}
}
