package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/retrieve-dev/retrieve/ui"
)

// The review UI over a real workspace: the ledger page shows the log's
// size and last checkpoint, downloads a bundle of its filter that verifies,
// and an audit names an entry edited in the store.
func TestUILogStateExportAndAudit(t *testing.T) {
	l := newLedgerWS(t)
	ctx := context.Background()
	a, err := openApp(ctx, &globalOptions{Root: l.root}, storeRequired)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	h, err := ui.New(serverTable(a, &services{}), ui.Options{Workspace: a.Root, Log: uiLogOf(a)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	get := func(path string) (*http.Response, []byte) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	_, page := get("/ui/ledger?op=get")
	for _, want := range []string{"Log: <strong>4</strong> entries", "last checkpoint: <strong>4</strong> entries", "retrieve-ledger", `href="/ui/export?op=get"`, "Audit the log"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the ledger page lacks %q", want)
		}
	}
	resp, zipped := get("/ui/export?op=get&target=" + url.QueryEscape("f.txt:2-2"))
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/zip" || !strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("export: %d %v\n%s", resp.StatusCode, resp.Header, zipped)
	}
	b, err := ledger.OpenBundle(bytes.NewReader(zipped), int64(len(zipped)), ledger.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if v := b.Verify(ctx, ""); len(v.Entries) != 1 || v.Entries[0].Failed() || v.Entries[0].ID != l.ids[1] || v.Checkpoint.Signature != ledger.CheckOK {
		t.Fatalf("the filter's bundle: %+v %+v", v.Entries, v.Checkpoint)
	}
	// The page without op lists retrievals, not verification runs: so does
	// its bundle.
	if _, errOut, code := runCLI(t, "--root", l.root, "verify", l.ids[0]); code != ExitOK {
		t.Fatalf("verify: exit %d: %s", code, errOut)
	}
	_, zipped = get("/ui/export")
	if b, err := ledger.OpenBundle(bytes.NewReader(zipped), int64(len(zipped)), ledger.DefaultLimits()); err != nil || len(b.Entries) != 4 {
		t.Fatalf("the unfiltered page's bundle: %v, want the 4 retrievals", err)
	}
	resp, body := get("/ui/export?target=nothing-like-this")
	if resp.StatusCode != http.StatusNotFound || !bytes.Contains(body, []byte("no ledger entry")) {
		t.Errorf("empty export: %d\n%s", resp.StatusCode, body)
	}

	l.exec(t, `UPDATE ledger SET result = CAST(json_set(CAST(result AS TEXT), '$.citation.hash', 'sha256:0000') AS BLOB) WHERE id = ?`, l.ids[2])
	pr, err := http.PostForm(srv.URL+"/ui/ledger/audit?op=get", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	audited, _ := io.ReadAll(pr.Body)
	pr.Body.Close()
	if !bytes.Contains(audited, []byte("audit: 1 findings")) || !bytes.Contains(audited, []byte(ledger.Altered+" at 2 "+l.ids[2])) {
		t.Errorf("the audit does not name the edited entry:\n%s", audited)
	}
}
