package ui_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/httpapi"
	"github.com/retrieve-dev/retrieve/ui"
)

var screenshots = flag.String("screenshots", "", "directory to save the pages' screenshots in (docs/ui to refresh the docs)")

// chromium returns the path of a Chromium binary. Without one the browser
// tests skip on a developer's machine and fail in CI (CI=true), which
// installs Debian's chromium package.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("RETRIEVE_TEST_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium: CI must install it (apt-get install -y chromium)")
	}
	t.Skip("no Chromium on this machine (apt-get install chromium, or set RETRIEVE_TEST_CHROMIUM); the browser tests did not run")
	return ""
}

// browser starts a headless Chromium with no network of its own beyond
// loopback and returns a tab context.
func browser(t *testing.T) context.Context {
	t.Helper()
	exe := chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 800),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 3*time.Minute) // CI machines can be loaded
	t.Cleanup(cancel3)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

// shot saves a screenshot of the page as name.png when -screenshots is set,
// else in a temp dir (the test still takes it, so a broken page fails).
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := *screenshots
	if dir == "" {
		dir = t.TempDir()
	}
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

// shotOf saves a screenshot of the element sel, as shot does.
func shotOf(t *testing.T, ctx context.Context, name, sel string) {
	t.Helper()
	dir := *screenshots
	if dir == "" {
		dir = t.TempDir()
	}
	buf, err := chromedp.Run(ctx, chromedp.Screenshot(sel, chromedp.NodeVisible))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

// uiServer serves the pages behind the API's guard, as serve --http does.
func uiServer(t *testing.T, e *env) string {
	t.Helper()
	pages, err := ui.New(e.Table, ui.Options{Workspace: "demo-workspace", Wiki: e.Wiki})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(e.Table, httpapi.Options{UI: pages}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// do runs browser steps or fails the test.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// get runs one browser action that returns a value or fails the test.
func get[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestBrowserLedgerVerifyDiff(t *testing.T) {
	chromium(t)
	e := newEnv(t)
	// 1,000 generated entries: reads of several spans, some failing.
	op, _ := e.Table.Lookup("retrieve")
	for i := 0; i < 1000; i++ {
		in := map[string]any{"target": "README.md", "lines": fmt.Sprintf("%d-%d", i%5+1, i%5+2)}
		if i%10 == 0 {
			in = map[string]any{"target": fmt.Sprintf("missing-%d.txt", i)}
		}
		raw, _ := json.Marshal(in)
		e.Table.Call(context.Background(), op, raw, "test")
	}
	e.retrieveID(t, "notes.txt", map[string]any{"lines": "1-3"})
	base := uiServer(t, e)
	ctx := browser(t)

	do(t, ctx, chromedp.Navigate(base+"/ui/ledger"), chromedp.WaitVisible("#ledger"))
	if rows := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#ledger tbody tr").length`)); rows != 50 {
		t.Errorf("first ledger page shows %d rows, want 50", rows)
	}
	shot(t, ctx, "ledger")

	// Filter with the form: failed retrievals only.
	do(t, ctx,
		chromedp.SetValue(`select[name=status]`, "error"),
		chromedp.Click(`form.filters button[type=submit]`),
		chromedp.Sleep(200*time.Millisecond),
		chromedp.WaitVisible(`#ledger`),
	)
	statuses := get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#ledger tbody .badge")).map(b => b.textContent)`))
	if len(statuses) == 0 {
		t.Fatal("the status filter shows no rows")
	}
	for _, s := range statuses {
		if s != "error" {
			t.Fatalf("the status filter shows a %q row", s)
		}
	}

	// Open the notes.txt retrieval, edit the file, press Verify now.
	do(t, ctx,
		chromedp.Navigate(base+"/ui/ledger?target=notes.txt"),
		chromedp.Click(`#ledger tbody tr a`),
		chromedp.WaitVisible(`table.code`),
	)
	shot(t, ctx, "retrieval")
	e.WS.Write("notes.txt", "alpha\nBETA\ngamma\ndelta\n")
	do(t, ctx, chromedp.Click(`form[action$="/verify"] button`), chromedp.WaitVisible(`#verification`))
	status := get(t, ctx, chromedp.Text(`#verification h2 .badge`))
	added := get(t, ctx, chromedp.Text(`table.split td.add pre`))
	if status != "changed" || added != "BETA" {
		t.Errorf("Verify now shows %q with added line %q, want changed with BETA", status, added)
	}
	shot(t, ctx, "verify-diff")

	// Keyboard: j selects the first row, Enter opens it.
	do(t, ctx,
		chromedp.Navigate(base+"/ui/ledger?target=notes.txt"),
		chromedp.WaitVisible(`#ledger`),
		chromedp.KeyEvent("j"),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(`table.code`),
	)
	if path := get(t, ctx, chromedp.Evaluate[string](`location.pathname`)); !strings.HasPrefix(path, "/ui/r/") {
		t.Errorf("j then Enter went to %s, want a retrieval page", path)
	}
}

func TestBrowserGraphEdgeEvidence(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t)
	ingestCrash(t, e)
	base := uiServer(t, e)
	do(t, ctx,
		chromedp.Navigate(base+"/ui/graph?q=service+crash&depth=2&min_confidence=0.5"),
		chromedp.WaitVisible(`svg.graph`),
		chromedp.Click(`a.edge.c-high .stroke`),
		chromedp.Sleep(200*time.Millisecond),
	)
	hash := get(t, ctx, chromedp.Evaluate[string](`location.hash`))
	if !strings.HasPrefix(hash, "#edge-") {
		t.Fatalf("clicking an edge went to %q, want its evidence card", hash)
	}
	if mark := get(t, ctx, chromedp.Text(hash+` mark`)); mark != "The memory leak causes the service crash." {
		t.Errorf("the evidence card highlights %q", mark)
	}
	if !get(t, ctx, chromedp.Evaluate[bool](`document.activeElement.id === location.hash.slice(1)`)) {
		t.Errorf("the evidence card did not take the focus")
	}
	shot(t, ctx, "graph")
}

func TestBrowserHostileContentIsInert(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t)
	id := e.retrieveID(t, "hostile.md", nil)
	base := uiServer(t, e)
	do(t, ctx,
		chromedp.Navigate(base+"/ui/r/"+id),
		chromedp.WaitVisible(`table.code`),
		chromedp.Sleep(300*time.Millisecond), // time for an onerror to fire, were it live
	)
	if get(t, ctx, chromedp.Evaluate[bool](`window.pwned !== undefined || document.querySelector("table.code img, table.code script, table.code a") !== null`)) {
		t.Fatal("retrieved markup ran or became elements")
	}
	if text := get(t, ctx, chromedp.Text(`table.code`)); !strings.Contains(text, "<script>window.pwned=1</script>") {
		t.Errorf("the hostile text is not shown as text: %q", text)
	}
}

func TestBrowserOtherPages(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t)
	ingestCrash(t, e)
	const sid = "9ecf22fa-edf8-4332-ae85-b6d5456eda64"
	e.retrieveID(t, "README.md", map[string]any{"session_id": sid})
	e.retrieveID(t, "notes.txt", map[string]any{"lines": "1-2", "session_id": sid})
	e.call(t, "wiki_write", map[string]any{"category": "topic", "title": "Why it crashes", "content": "See [[memory-leak]]."})
	base := uiServer(t, e)
	for _, p := range []struct{ name, path, sel string }{
		{"memory", "/ui/memory", "table.rows"},
		{"wiki", "/ui/wiki?q=crashes", "table.rows"},
		{"sessions", "/ui/sessions", "#sessions"},
	} {
		do(t, ctx, chromedp.Navigate(base+p.path), chromedp.WaitVisible(p.sel))
		shot(t, ctx, p.name)
	}
	// A session: edit a source, press Verify session, see it changed.
	e.WS.Write("notes.txt", "ALPHA\nbeta\ngamma\ndelta\n")
	do(t, ctx, chromedp.Click(`#sessions tbody a`), chromedp.WaitVisible(`#sources`),
		chromedp.Click(`form[action$="/verify"] button`), chromedp.WaitVisible(`#session-verification`))
	if got := get(t, ctx, chromedp.Text(`#sources .badge.changed`)); got != "changed" {
		t.Errorf("Verify session marks %q, want changed", got)
	}
	shot(t, ctx, "session")
	// Check a pasted document: one true citation, one fabricated quote.
	do(t, ctx, chromedp.Navigate(base+"/ui/check"), chromedp.WaitVisible(`#document`),
		chromedp.SetValue(`#document`, "\"beta\" [notes.txt:2-2](notes.txt:2-2) and \"omega\" [notes.txt:3-3](notes.txt:3-3)"),
		chromedp.Click(`form.checkform button`), chromedp.WaitVisible(`#findings`))
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#findings .badge.error").length`)); n != 1 {
		t.Errorf("the check marks %d citations failed, want 1", n)
	}
	shot(t, ctx, "check")
	// A narrow window: nothing overflows sideways.
	do(t, ctx, chromedp.EmulateViewport(420, 800), chromedp.Navigate(base+"/ui/ledger"), chromedp.WaitVisible("#ledger"))
	if get(t, ctx, chromedp.Evaluate[bool](`document.querySelector(".top").scrollWidth > window.innerWidth + 1`)) {
		t.Errorf("the header overflows a 420 px window")
	}
	shot(t, ctx, "ledger-narrow")
}

// The graph drawn so a person can read it: arrows on every edge, no two
// labels overlapping, a stale edge (its file changed, graph verify) drawn
// apart, and as of before a new version the retired edges drawn apart too.
func TestBrowserGraphReadable(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t)
	const text = "The memory leak causes the service crash. The service crash triggers the pager alert. The pager alert wakes the on-call engineer."
	e.WS.Write("incident.md", text+"\n")
	rels := []any{
		map[string]any{"source": "memory leak", "target": "service crash", "type": "causes", "confidence": 0.9, "supporting_text": "The memory leak causes the service crash."},
		map[string]any{"source": "service crash", "target": "pager alert", "type": "triggers", "confidence": 0.8, "supporting_text": "The service crash triggers the pager alert."},
		map[string]any{"source": "pager alert", "target": "on-call engineer", "type": "wakes", "confidence": 0.7, "supporting_text": "The pager alert wakes the on-call engineer."},
	}
	ents := []any{}
	for _, n := range []string{"memory leak", "service crash", "pager alert", "on-call engineer"} {
		ents = append(ents, map[string]any{"name": n, "type": "event"})
	}
	for i := range 14 {
		n := fmt.Sprintf("dependent service number %d", i)
		ents = append(ents, map[string]any{"name": n, "type": "service"})
		rels = append(rels, map[string]any{"source": "service crash", "target": n, "type": "breaks", "confidence": 0.9, "supporting_text": "The service crash"})
	}
	e.call(t, "graph_ingest", map[string]any{"doc_id": "incident", "title": "Incident", "target": "incident.md", "extraction": map[string]any{"entities": ents, "relations": rels}})
	// The file changes: the leak sentence is gone; verify marks it stale.
	e.WS.Write("incident.md", strings.Replace(text, "The memory leak causes the service crash.", "A bad deploy caused the service crash.", 1)+"\n")
	if rep, err := e.Graph.Verify(context.Background(), graph.VerifyOptions{}); err != nil || rep.Stale != 1 {
		t.Fatalf("verify: %+v, %v", rep, err)
	}
	base := uiServer(t, e)
	do(t, ctx,
		chromedp.Navigate(base+"/ui/graph?q=service+crash&depth=2&min_confidence=0.5&stale=include"),
		chromedp.WaitVisible(`svg.graph`),
	)
	edges := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("svg.graph a.edge").length`))
	arrows := get(t, ctx, chromedp.Evaluate[int](`[...document.querySelectorAll("svg.graph path.stroke")].filter(p => p.getAttribute("marker-end")).length`))
	if edges != 17 || arrows != edges {
		t.Errorf("%d edges, %d with an arrow", edges, arrows)
	}
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("svg.graph a.edge.stale").length`)); n != 1 {
		t.Errorf("%d stale edges drawn, want 1", n)
	}
	overlaps := get(t, ctx, chromedp.Evaluate[[]string](`(() => {
		const ls = [...document.querySelectorAll("svg.graph text")].map(t => [t.textContent, t.getBBox()]);
		const out = [];
		for (let i = 0; i < ls.length; i++) for (let j = i + 1; j < ls.length; j++) {
			const [a, b] = [ls[i][1], ls[j][1]];
			if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height) out.push(ls[i][0] + " / " + ls[j][0]);
		}
		return out;
	})()`))
	if len(overlaps) > 0 {
		t.Errorf("overlapping labels: %q", overlaps)
	}
	shotOf(t, ctx, "graph-readable", `svg.graph`)
	// A new version drops the pager: as of before it, those edges are
	// drawn retired.
	before := time.Now().UTC().Format(time.RFC3339Nano)
	time.Sleep(10 * time.Millisecond)
	e.call(t, "graph_ingest", map[string]any{"doc_id": "incident", "title": "Incident", "content": "A bad deploy caused the service crash.",
		"extraction": map[string]any{"entities": []any{map[string]any{"name": "bad deploy", "type": "event"}, map[string]any{"name": "service crash", "type": "event"}},
			"relations": []any{map[string]any{"source": "bad deploy", "target": "service crash", "type": "causes", "confidence": 0.9, "supporting_text": "A bad deploy caused the service crash."}}}})
	do(t, ctx,
		chromedp.Navigate(base+"/ui/graph?q=service+crash&depth=2&min_confidence=0.5&stale=include&as_of="+url.QueryEscape(before)),
		chromedp.WaitVisible(`svg.graph`),
	)
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("svg.graph a.edge.retired").length`)); n != 17 {
		t.Errorf("%d retired edges drawn as of before the new version, want 17", n)
	}
	if v := get(t, ctx, chromedp.Evaluate[string](`document.querySelector("input[name=as_of]").value`)); v != before {
		t.Errorf("the as-of field holds %q", v)
	}
	shotOf(t, ctx, "graph-as-of", `svg.graph`)
}
