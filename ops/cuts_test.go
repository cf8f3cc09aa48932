package ops_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/internal/webclient"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/ops/opstest"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/source/web"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// pageThrough follows extraction.next from target under budget on
// transport and returns the data joined. Every part's hash is that of its
// data, its reference re-retrieves the same hash, and it verifies; a part
// that is truncated names its next part. inside says some part was cited
// in bytes (a cut inside a line, or of text without line references).
func pageThrough(t *testing.T, env *opstest.Env, transport, target string, budget int) (joined string, inside bool) {
	t.Helper()
	v, _ := env.Table.Lookup("verify_citation")
	var b strings.Builder
	for part := 0; ; part++ {
		if part > 40 {
			t.Fatalf("%s: more than 40 parts: next never ends", transport)
		}
		_, r := callResult(t, env, "retrieve", transport, fmt.Sprintf(`{"target": %q, "budget": %d}`, target, budget))
		data, _ := r.Retrieved.Data.(string)
		if sha(data) != *r.Citation.Hash {
			t.Errorf("%s part %d: hash %s is not that of the data", transport, part, *r.Citation.Hash)
		}
		inside = inside || strings.Contains(r.Citation.Reference, "#bytes=")
		_, again := callResult(t, env, "retrieve", transport, fmt.Sprintf(`{"target": %q, "budget": %d}`, r.Citation.Reference, budget))
		if *again.Citation.Hash != *r.Citation.Hash {
			t.Errorf("%s part %d: re-retrieving %s gives %s, want %s", transport, part, r.Citation.Reference, *again.Citation.Hash, *r.Citation.Hash)
		}
		voc := env.Table.Call(context.Background(), v, json.RawMessage(fmt.Sprintf(`{"retrieval_id": %q}`, r.RetrievalID)), transport)
		if vv, ok := voc.Value.(*retrieve.Verification); !ok || vv.Status != retrieve.Verified {
			t.Errorf("%s part %d (%s): verify: %+v %+v", transport, part, r.Citation.Reference, voc.Value, voc.Value.(*retrieve.Verification).Error)
		}
		b.WriteString(data)
		if r.Extraction.Next == nil {
			if r.Extraction.Truncated {
				t.Errorf("%s part %d (%s): truncated without a next part", transport, part, r.Citation.Reference)
			}
			return b.String(), inside
		}
		if !r.Extraction.Truncated {
			t.Errorf("%s part %d: next %s but not truncated", transport, part, *r.Extraction.Next)
		}
		target = *r.Extraction.Next
	}
}

// TestBudgetPagesInsideALine: a line longer than the budget that is not
// the file's first (in a line range, after lines that fit) is cut at a
// byte offset of its lines' text (f.txt:3-#bytes=0-N) and paged to the end
// over MCP and HTTP; the parts join to the lines asked for (issue 28).
func TestBudgetPagesInsideALine(t *testing.T) {
	long := strings.Repeat("var é=\"1\";", 4000)
	for _, transport := range []string{"mcp", "http"} {
		env := opstest.New(t)
		env.WS.Write("f.txt", "first\nsecond\n"+long+"\nafter\n")
		joined, inside := pageThrough(t, env, transport, "f.txt:2-", ops.MinBudget*4)
		if want := "second\n" + long + "\nafter\n"; joined != want {
			t.Errorf("%s: the parts join to %d bytes, want %d", transport, len(joined), len(want))
		}
		if !inside {
			t.Errorf("%s: no part was cut inside the long line", transport)
		}
		// A document's parts (JSON Lines records) cut by the budget name
		// their bytes (ev.jsonl#record=1-3#bytes=0-N) and their next part.
		env.WS.Write("ev.jsonl", `{"n":1}`+"\n"+`{"n":2,"text":"`+strings.Repeat("word é ", 4000)+`"}`+"\n"+`{"n":3}`+"\n")
		for _, target := range []string{"ev.jsonl#record=2", "ev.jsonl#record=1-3"} {
			_, whole := callResult(t, env, "retrieve", transport, fmt.Sprintf(`{"target": %q, "budget": 1000000}`, target))
			joined, inside := pageThrough(t, env, transport, target, ops.MinBudget*4)
			if want, _ := whole.Retrieved.Data.(string); joined != want || !inside {
				t.Errorf("%s %s: the parts join to %d bytes (in bytes: %v), want the %d bytes of the parts", transport, target, len(joined), inside, len(want))
			}
		}
	}
}

// TestBudgetPagesAWebPage: a web page whose Markdown is larger than the
// budget is cut, cited in bytes of its Markdown (https://h/p#bytes=0-N),
// and next names the rest; the parts join to the whole page's Markdown
// over MCP and HTTP, and each verifies against the page (issue 28).
func TestBudgetPagesAWebPage(t *testing.T) {
	var paras strings.Builder
	for i := range 800 {
		fmt.Fprintf(&paras, "<p>Paragraph %d: %s</p>\n", i, strings.Repeat("lorem ipsum dolor sit amet ", 6))
	}
	page := "<html><head><title>A</title></head><body><article><h1>Title</h1>\n" + paras.String() + "</article></body></html>"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/article" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	defer srv.Close()
	env := webEnv(t)
	_, whole := callResult(t, env, "retrieve", "http", fmt.Sprintf(`{"target": %q, "budget": 1000000}`, srv.URL+"/article"))
	wholeData, _ := whole.Retrieved.Data.(string)
	if whole.Extraction.Truncated || len(wholeData) < 3*ops.DefaultBudget {
		t.Fatalf("the whole page: %d bytes, truncated %v: want a page several budgets long", len(wholeData), whole.Extraction.Truncated)
	}
	for _, transport := range []string{"mcp", "http"} {
		joined, inside := pageThrough(t, env, transport, srv.URL+"/article", ops.DefaultBudget)
		if joined != wholeData {
			t.Errorf("%s: the parts join to %d bytes, want the page's %d", transport, len(joined), len(wholeData))
		}
		if !inside {
			t.Errorf("%s: the page was not cited in bytes", transport)
		}
		// Lines of the page (a section would be too): bytes of their text,
		// named by a #lines= fragment (a URL takes no :LINES).
		target := srv.URL + "/article#lines=3-"
		_, lines := callResult(t, env, "retrieve", transport, fmt.Sprintf(`{"target": %q, "budget": 1000000}`, target))
		joined, _ = pageThrough(t, env, transport, target, ops.DefaultBudget)
		if want, _ := lines.Retrieved.Data.(string); joined != want || len(want) >= len(wholeData) {
			t.Errorf("%s: lines 3- join to %d bytes, want %d", transport, len(joined), len(want))
		}
	}
}

// webEnv is a table over a recording engine with the file source and the
// web source, whose client reaches 127.0.0.1 only.
func webEnv(t *testing.T) *opstest.Env {
	t.Helper()
	ws := testws.New(t)
	src, err := file.New(file.Options{Root: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = src.Close() })
	st, err := sqlite.OpenStore(context.Background(), filepath.Join(t.TempDir(), "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	client := webclient.New(webclient.Options{Allow: []string{"127.0.0.1/32"}, Rate: -1, Retries: -1, Timeout: 5 * time.Second})
	eng, err := engine.New(engine.Options{Sources: []retrieve.Source{src, web.New(web.Options{Client: client})}, Store: st, SpoolDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	d := ops.Deps{Engine: eng, Store: st}
	return &opstest.Env{WS: ws, Table: ops.Core(d), Deps: d}
}
