package ui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ops/opstest"
	"github.com/retrieve-dev/retrieve/ui"
)

// xssPage is a file whose content would run script if it were not escaped.
const xssPage = "# Hostile\n\n<script>window.pwned=1</script>\n<img src=x onerror=\"window.pwned=2\">\n<a href=\"javascript:window.pwned=3\">x</a>\n"

// env is a workspace with a full table and the pages over it.
type env struct {
	*opstest.Env
	srv *httptest.Server
}

func newEnv(t testing.TB) *env {
	t.Helper()
	e := opstest.NewFull(t)
	e.WS.Write("hostile.md", xssPage)
	h, err := ui.New(e.Table, ui.Options{Workspace: e.WS.Root, Wiki: e.Wiki})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &env{Env: e, srv: srv}
}

// call runs an op of the table and returns its output as JSON.
func (e *env) call(t testing.TB, name string, in any) map[string]any {
	t.Helper()
	op, ok := e.Table.Lookup(name)
	if !ok {
		t.Fatalf("no op %s", name)
	}
	raw, _ := json.Marshal(in)
	oc := e.Table.Call(context.Background(), op, raw, "test")
	if oc.Err != nil {
		t.Fatalf("%s: %v", name, oc.Err)
	}
	b, _ := json.Marshal(oc.Value)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// retrieveID retrieves target and returns its retrieval_id.
func (e *env) retrieveID(t testing.TB, target string, extra map[string]any) string {
	t.Helper()
	in := map[string]any{"target": target}
	for k, v := range extra {
		in[k] = v
	}
	out := e.call(t, "retrieve", in)
	id, _ := out["retrieval_id"].(string)
	if id == "" {
		t.Fatalf("retrieve %s: no retrieval_id in %v", target, out)
	}
	return id
}

func (e *env) get(t testing.TB, path string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Get(e.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func (e *env) post(t testing.TB, path string, form url.Values) (int, string) {
	t.Helper()
	resp, err := http.PostForm(e.srv.URL+path, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestLedgerPage(t *testing.T) {
	e := newEnv(t)
	readme := e.retrieveID(t, "README.md", nil)
	e.retrieveID(t, "notes.txt", map[string]any{"lines": "2-3"})
	op, _ := e.Table.Lookup("retrieve")
	e.Table.Call(context.Background(), op, json.RawMessage(`{"target":"missing.txt"}`), "test")

	t.Run("OK", func(t *testing.T) {
		code, hdr, body := e.get(t, "/ui/ledger")
		if code != http.StatusOK {
			t.Fatalf("status %d: %s", code, body)
		}
		for _, want := range []string{`<a href="/ui/r/` + readme + `">README.md</a>`, "notes.txt:2-3", "missing.txt", "PATH_NOT_FOUND"} {
			if !strings.Contains(body, want) {
				t.Errorf("ledger page lacks %q", want)
			}
		}
		if got := hdr.Get("Content-Security-Policy"); got != ui.ContentSecurityPolicy {
			t.Errorf("CSP = %q", got)
		}
	})
	t.Run("FilterStatus", func(t *testing.T) {
		_, _, body := e.get(t, "/ui/ledger?status=error")
		if !strings.Contains(body, "missing.txt") || strings.Contains(body, "notes.txt:2-3") {
			t.Errorf("status=error shows the wrong rows:\n%s", body)
		}
	})
	t.Run("Until", func(t *testing.T) {
		_, _, body := e.get(t, "/ui/ledger?until=2000-01-01T00:00:00Z")
		if !strings.Contains(body, "No ledger entries match.") {
			t.Errorf("until before every entry still shows rows:\n%s", body)
		}
	})
	t.Run("Paging", func(t *testing.T) {
		for i := 0; i < 55; i++ {
			e.retrieveID(t, "notes.txt", map[string]any{"lines": "1-1"})
		}
		_, _, first := e.get(t, "/ui/ledger")
		if n := strings.Count(first, "<tr class="); n != 50 {
			t.Fatalf("first page has %d rows, want 50", n)
		}
		m := regexp.MustCompile(`href="/ui/ledger\?(cursor=[^"]+)" rel="next"`).FindStringSubmatch(first)
		if m == nil {
			t.Fatalf("first page has no next link")
		}
		_, _, second := e.get(t, "/ui/ledger?"+html.UnescapeString(m[1]))
		if n := strings.Count(second, "<tr class="); n != 8 {
			t.Errorf("second page has %d rows, want the 8 older ones", n)
		}
		if !strings.Contains(second, `rel="first"`) || strings.Contains(second, `rel="next"`) {
			t.Errorf("the last page links wrong")
		}
	})
	t.Run("ErrBadFilter", func(t *testing.T) {
		code, _, body := e.get(t, "/ui/ledger?since=yesterday")
		if code != http.StatusBadRequest || !strings.Contains(body, "INPUT_VALIDATION_FAILED") {
			t.Errorf("status %d, want 400 with INPUT_VALIDATION_FAILED:\n%s", code, body)
		}
	})
}

func TestRetrievalPageEscapesContent(t *testing.T) {
	e := newEnv(t)
	id := e.retrieveID(t, "hostile.md", nil)
	code, _, body := e.get(t, "/ui/r/"+id)
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	for _, bad := range []string{"<script>window", "<img src=x", `href="javascript:`} {
		if strings.Contains(body, bad) {
			t.Errorf("the page carries the hostile markup %q unescaped", bad)
		}
	}
	if !strings.Contains(body, "&lt;script&gt;window.pwned=1&lt;/script&gt;") {
		t.Errorf("the hostile text is not shown escaped")
	}
}

func TestRetrievalPageNumbersAnchoredLines(t *testing.T) {
	e := newEnv(t)
	id := e.retrieveID(t, "notes.txt", map[string]any{"lines": "2-3"})
	_, _, body := e.get(t, "/ui/r/"+id)
	if !strings.Contains(body, `<tr id="L2" class="anchor"><td class="ln">2</td><td><pre>beta</pre></td></tr>`) {
		t.Errorf("line 2 is not numbered and anchored:\n%s", body)
	}
	if !strings.Contains(body, `<td class="ln">3</td><td><pre>gamma</pre>`) {
		t.Errorf("line 3 is not numbered 3")
	}
}

func TestVerifyShowsDiff(t *testing.T) {
	e := newEnv(t)
	id := e.retrieveID(t, "notes.txt", nil)
	t.Run("Verified", func(t *testing.T) {
		code, body := e.post(t, "/ui/r/"+id+"/verify", nil)
		if code != http.StatusOK || !strings.Contains(body, `<span class="badge verified">verified</span>`) {
			t.Fatalf("status %d, want verified:\n%s", code, body)
		}
	})
	t.Run("Changed", func(t *testing.T) {
		e.WS.Write("notes.txt", "alpha\nBETA\ngamma\ndelta\n")
		code, body := e.post(t, "/ui/r/"+id+"/verify", nil)
		if code != http.StatusOK || !strings.Contains(body, `<span class="badge changed">changed</span>`) {
			t.Fatalf("status %d, want changed:\n%s", code, body)
		}
		if !strings.Contains(body, `<td class="del"><pre>beta</pre></td>`) || !strings.Contains(body, `<td class="add"><pre>BETA</pre></td>`) {
			t.Errorf("the side-by-side diff does not pair beta with BETA:\n%s", body)
		}
		if !strings.Contains(body, `<span class="add">&#43;BETA</span>`) {
			t.Errorf("the unified diff lacks +BETA")
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		code, body := e.post(t, "/ui/r/no-such-id/verify", nil)
		if code != http.StatusNotFound || !strings.Contains(body, "NOT_FOUND") {
			t.Errorf("status %d, want 404 NOT_FOUND:\n%s", code, body)
		}
	})
}

// ingestCrash puts a small causal graph with evidence into the store.
func ingestCrash(t testing.TB, e *env) {
	t.Helper()
	doc := "The memory leak causes the service crash. The service crash triggers the pager alert."
	e.call(t, "ingest", map[string]any{
		"doc_id": "incident", "title": "Incident <b>report</b>", "content": doc,
		"extraction": map[string]any{
			"entities": []any{
				map[string]any{"name": "memory leak", "type": "bug"},
				map[string]any{"name": "service crash", "type": "event"},
				map[string]any{"name": "pager alert", "type": "event"},
			},
			"relations": []any{
				map[string]any{"source": "memory leak", "target": "service crash", "type": "causes", "confidence": 0.9, "supporting_text": "The memory leak causes the service crash."},
				map[string]any{"source": "service crash", "target": "pager alert", "type": "triggers", "confidence": 0.6, "supporting_text": "The service crash triggers the pager alert."},
			},
		},
	})
}

func TestGraphPage(t *testing.T) {
	e := newEnv(t)
	ingestCrash(t, e)
	code, _, body := e.get(t, "/ui/graph?q="+url.QueryEscape("What causes the service crash?")+"&depth=2&min_confidence=0.5")
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	for _, want := range []string{
		`class="edge fresh c-high"`, `class="edge fresh c-mid"`, // coloured by freshness, drawn by confidence
		`marker-end="url(#arrow-fresh)"`,                         // arrows
		`<mark>The memory leak causes the service crash.</mark>`, // the evidence highlighted in its chunk
		`id="edge-1"`, "Incident &lt;b&gt;report&lt;/b&gt;",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("graph page lacks %q", want)
		}
	}
	t.Run("Empty", func(t *testing.T) {
		_, _, body := e.get(t, "/ui/graph")
		if strings.Contains(body, "<svg") {
			t.Errorf("the form page draws a graph")
		}
	})
	// An answer of several pages (more edges than one page holds) is drawn
	// whole.
	t.Run("Pages", func(t *testing.T) {
		var text strings.Builder
		entities := []any{map[string]any{"name": "switchboard", "type": "system"}}
		var relations []any
		for i := range 130 {
			line := fmt.Sprintf("line%03d", i)
			fmt.Fprintf(&text, "The switchboard routes %s.\n", line)
			entities = append(entities, map[string]any{"name": line, "type": "component"})
			relations = append(relations, map[string]any{"source": "switchboard", "target": line, "type": "uses", "confidence": 0.9, "supporting_text": "switchboard routes " + line})
		}
		e.call(t, "graph_ingest", map[string]any{"doc_id": "switchboard", "title": "Switchboard", "content": text.String(),
			"extraction": map[string]any{"entities": entities, "relations": relations}})
		code, _, body := e.get(t, "/ui/graph?q=switchboard&depth=1&min_confidence=0.5&max_nodes=200")
		if code != http.StatusOK {
			t.Fatalf("status %d", code)
		}
		if n := strings.Count(body, `class="edgecard"`); n != 130 {
			t.Errorf("%d edges drawn, want all 130 (several pages)", n)
		}
	})
}

func TestMemoryAndWikiPages(t *testing.T) {
	e := newEnv(t)
	e.call(t, "wiki_write", map[string]any{"category": "topic", "title": "Why it crashes", "content": "See [[memory-leak]]. <script>x()</script>"})
	e.call(t, "wiki_write", map[string]any{"category": "entity", "title": "Memory leak", "content": "Explained in [[why-it-crashes]]."})
	t.Run("MemoryList", func(t *testing.T) {
		_, _, body := e.get(t, "/ui/memory")
		if !strings.Contains(body, "Deploys need the staging token") {
			t.Errorf("memory page lacks the note:\n%s", body)
		}
	})
	t.Run("MemorySearch", func(t *testing.T) {
		_, _, body := e.get(t, "/ui/memory?q=staging")
		if !strings.Contains(body, "deploys-need-the-staging-token") {
			t.Errorf("memory search lacks the note:\n%s", body)
		}
	})
	t.Run("MemoryNote", func(t *testing.T) {
		code, _, body := e.get(t, "/ui/memory/note?id=sem-20250120-001")
		if code != http.StatusOK || !strings.Contains(body, "Seen in the deploy guide.") {
			t.Errorf("status %d, note page:\n%s", code, body)
		}
	})
	t.Run("Wiki", func(t *testing.T) {
		_, _, body := e.get(t, "/ui/wiki?q=crashes")
		if !strings.Contains(body, "Why it crashes") || !strings.Contains(body, "Links to no page") || !strings.Contains(body, `id="pages"`) {
			t.Errorf("wiki page lacks the hit or the lint report:\n%s", body)
		}
	})
	t.Run("WikiPage", func(t *testing.T) {
		_, _, body := e.get(t, "/ui/wiki/page?slug=topic%2Fwhy-it-crashes")
		if !strings.Contains(body, "&lt;script&gt;x()&lt;/script&gt;") || strings.Contains(body, "<script>x()") {
			t.Errorf("wiki page does not escape its content:\n%s", body)
		}
		if !strings.Contains(body, `<dd id="backlinks"><a href="/ui/wiki/page?slug=entity%2fmemory-leak">entity/memory-leak</a>`) {
			t.Errorf("wiki page lacks its backlink from entity/memory-leak:\n%s", body)
		}
	})
}

func TestNotFoundPage(t *testing.T) {
	e := newEnv(t)
	code, _, body := e.get(t, "/ui/nope")
	if code != http.StatusNotFound || !strings.Contains(body, "NOT_FOUND") {
		t.Errorf("status %d:\n%s", code, body)
	}
}

func TestSessionPages(t *testing.T) {
	e := newEnv(t)
	const sid = "9ecf22fa-edf8-4332-ae85-b6d5456eda64"
	e.retrieveID(t, "notes.txt", map[string]any{"lines": "1-2", "session_id": sid})
	e.retrieveID(t, "README.md", map[string]any{"session_id": sid})
	t.Run("List", func(t *testing.T) {
		_, _, body := e.get(t, "/ui/sessions")
		if !strings.Contains(body, `href="/ui/sessions/`+sid+`"`) {
			t.Errorf("sessions page lacks the session:\n%s", body)
		}
	})
	t.Run("Show", func(t *testing.T) {
		code, _, body := e.get(t, "/ui/sessions/"+sid)
		if code != http.StatusOK || !strings.Contains(body, "notes.txt:1-2") || !strings.Contains(body, "README.md") {
			t.Errorf("status %d, session page lacks its sources:\n%s", code, body)
		}
	})
	t.Run("VerifyChanged", func(t *testing.T) {
		e.WS.Write("notes.txt", "ALPHA\nbeta\ngamma\ndelta\n")
		code, body := e.post(t, "/ui/sessions/"+sid+"/verify", nil)
		if code != http.StatusOK || !strings.Contains(body, `<span class="badge changed">1 changed</span>`) {
			t.Fatalf("status %d, want 1 changed:\n%s", code, body)
		}
		if !strings.Contains(body, `<td class="add"><pre>ALPHA</pre></td>`) {
			t.Errorf("the changed source has no diff:\n%s", body)
		}
	})
	t.Run("ChecksRunInTheSession", func(t *testing.T) {
		// What `retrieve verify ID --session` and `retrieve check --session`
		// record (cmd/retrieve TestSessionJoinFromCLI runs the commands).
		id := e.retrieveID(t, "notes.txt", map[string]any{"lines": "3"})
		v, err := e.Deps.Engine.VerifyEntry(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Sessions.Verified(sid, "verify", []*retrieve.Verification{v}); err != nil {
			t.Fatal(err)
		}
		report, err := e.Sessions.Checker.Check(t.Context(), "answer.md", []byte("It says \"omega\" [notes.txt:3](notes.txt:3).\n"))
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Sessions.Checked(sid, "check", report); err != nil {
			t.Fatal(err)
		}
		code, _, body := e.get(t, "/ui/sessions/"+sid)
		checks, _, _ := strings.Cut(body[strings.Index(body, `id="checks"`)+1:], "</table>")
		if code != http.StatusOK || !strings.Contains(body, "Checks run in the session") {
			t.Fatalf("status %d, the session page lacks its checks:\n%s", code, body)
		}
		for _, want := range []string{"<code>retrieve verify</code>", `<a href="/ui/r/` + id + `"><code>notes.txt:3-3</code></a>`, `<span class="badge verified">verified</span>`,
			"<code>retrieve check</code>", "<code>answer.md</code>", `<span class="badge changed">fail</span>`, "citations checked: 1 · ok 0 · failed 1 · refused 0", "notes.txt:3: "} {
			if !strings.Contains(checks, want) {
				t.Errorf("the checks table lacks %q:\n%s", want, checks)
			}
		}
	})
	t.Run("ErrUnknownSession", func(t *testing.T) {
		code, _, body := e.get(t, "/ui/sessions/no-such-session")
		if code == http.StatusOK {
			t.Errorf("an unknown session answers 200:\n%s", body)
		}
	})
}

func TestCheckPage(t *testing.T) {
	e := newEnv(t)
	doc := "The notes say \"alpha\nbeta\" [notes.txt:1-2](notes.txt:1-2).\n\nAnd \"omega\" [notes.txt:3-4](notes.txt:3-4).\n"
	code, body := e.post(t, "/ui/check", url.Values{"document": {doc}})
	if code != http.StatusOK {
		t.Fatalf("status %d:\n%s", code, body)
	}
	if !strings.Contains(body, `<span class="badge ok">1 ok</span>`) || !strings.Contains(body, `<span class="badge error">1 failed</span>`) {
		t.Errorf("the report does not count one ok and one failed:\n%s", body)
	}
	if !strings.Contains(body, "omega") {
		t.Errorf("the report does not name the fabricated quote")
	}
}

// TestPagesReadWell: times read as dates with an age (not raw RFC 3339
// nanoseconds), wiki summaries show a link's words (never a raw or cut
// [[link]]), the lint names a broken link as a link to no page, and an
// unknown retrieval id is a 404 page.
func TestPagesReadWell(t *testing.T) {
	e := newEnv(t)
	e.retrieveID(t, "notes.txt", nil)
	e.call(t, "wiki_write", map[string]any{"category": "topic", "title": "Deploys",
		"content": "How deploys reach [[staging-environment|staging]] and [[production]]; see [[nowhere-page]]. " + strings.Repeat("more words ", 20)})
	t.Run("Times", func(t *testing.T) {
		_, _, body := e.get(t, "/ui/ledger")
		m := regexp.MustCompile(`<time datetime="([^"]+)">([^<]+)</time>`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no <time> on the ledger page:\n%s", body)
		}
		if m[2] == m[1] || !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC · (just now|\d+ min ago)$`).MatchString(m[2]) {
			t.Errorf("the time reads %q (datetime %q), want a date and an age", m[2], m[1])
		}
	})
	t.Run("WikiSummary", func(t *testing.T) {
		_, _, body := e.get(t, "/ui/wiki")
		if strings.Contains(body, "[[") {
			t.Errorf("the wiki page shows raw [[links]]:\n%s", body)
		}
		if !strings.Contains(body, "How deploys reach staging and production") {
			t.Errorf("the summary does not read as text:\n%s", body)
		}
		lint := regexp.MustCompile(`(?s)<dd id="lint-broken">(.*?)</dd>`).FindStringSubmatch(body)
		if lint == nil || !strings.Contains(lint[1], "nowhere-page") || !strings.Contains(lint[1], "no such page") {
			t.Errorf("the lint does not name the broken link:\n%s", body)
		}
	})
	t.Run("ErrUnknownRetrieval", func(t *testing.T) {
		code, _, body := e.get(t, "/ui/r/0192f0c4-7a3e-7b61-9d2a-5b1e8f0c3d21")
		if code != http.StatusNotFound || !strings.Contains(body, "NOT_FOUND") {
			t.Errorf("unknown retrieval id: status %d:\n%s", code, body)
		}
	})
}
