package ui_test

import (
	"archive/zip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/retrieve-dev/retrieve/httpapi"
	"github.com/retrieve-dev/retrieve/ui"
)

// fixedLog is a log in a known state (cmd/retrieve's TestUILogStateExportAndAudit
// runs the real one over a store); it records the selections it exported.
type fixedLog struct{ sels []ui.ExportSelection }

func (l *fixedLog) State(_ context.Context, audit bool) (*ui.LogState, error) {
	st := &ui.LogState{Size: 1001, Tombstones: 2, Checkpoint: &ui.LogCheckpoint{Origin: "team-log", Size: 1000, Time: time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)}}
	if audit {
		st.Audited, st.Findings = true, []string{"altered at 7 0192f0c4: the entry no longer hashes to its leaf"}
	}
	return st, nil
}

func (l *fixedLog) Export(_ context.Context, w io.Writer, sel ui.ExportSelection) error {
	l.sels = append(l.sels, sel)
	zw := zip.NewWriter(w)
	f, _ := zw.Create("manifest.json")
	_, _ = f.Write([]byte(`{"format":"retrieve-evidence-bundle/v1"}`))
	return zw.Close()
}

// In a browser behind the API's guard: the ledger page shows the log's
// state, "Audit the log" posts and shows the finding, and the download
// link carries the page's filter.
func TestBrowserLogPanel(t *testing.T) {
	chromium(t)
	e := newEnv(t)
	e.retrieveID(t, "README.md", nil)
	log := &fixedLog{}
	pages, err := ui.New(e.Table, ui.Options{Workspace: "demo-workspace", Wiki: e.Wiki, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(e.Table, httpapi.Options{UI: pages}))
	t.Cleanup(srv.Close)
	ctx := browser(t)
	do(t, ctx, chromedp.Navigate(srv.URL+"/ui/ledger?status=ok"), chromedp.WaitVisible("#log-state"))
	text := get(t, ctx, chromedp.Evaluate[string](`document.querySelector("#log-state").innerText`))
	for _, want := range []string{"1001 entries", "2 removed by gc", "1000 entries, signed by team-log"} {
		if !strings.Contains(text, want) {
			t.Errorf("log panel %q lacks %q", text, want)
		}
	}
	href := get(t, ctx, chromedp.Evaluate[string](`document.querySelector("#log-state a[download]").getAttribute("href")`))
	if href != "/ui/export?status=ok" {
		t.Errorf("download link %q", href)
	}
	shot(t, ctx, "ledger-log")
	do(t, ctx, chromedp.Click(`#log-state button`), chromedp.WaitVisible(".findings"))
	if got := get(t, ctx, chromedp.Evaluate[string](`document.querySelector("#log-state").innerText`)); !strings.Contains(got, "audit: 1 findings") || !strings.Contains(got, "altered at 7") {
		t.Errorf("after the audit: %q", got)
	}
	resp, err := http.Get(srv.URL + href)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/zip" || len(log.sels) != 1 || log.sels[0].Status != "ok" {
		t.Errorf("download: %d %s, selections %+v (%d bytes)", resp.StatusCode, resp.Header.Get("Content-Type"), log.sels, len(b))
	}
}
