package httpapi_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/docs"
	"github.com/retrieve-dev/retrieve/httpapi"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/mcpserver"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/ops/opstest"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite docs/openapi.yaml")

func TestOpenAPIUpToDate(t *testing.T) {
	env := opstest.NewFull(t)
	got, err := httpapi.OpenAPI(env.Table)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("../docs/openapi.yaml", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(got, docs.OpenAPI) {
		t.Fatal("docs/openapi.yaml is stale: run go test ./httpapi -run TestOpenAPIUpToDate -update")
	}
}

func TestEveryCodeHasAStatus(t *testing.T) {
	for _, c := range retrieve.Codes {
		if s := httpapi.Status(c); s < 400 || (c != retrieve.CodeInternal && c != retrieve.CodeWriteFailed && s == 500) {
			t.Errorf("%s maps to %d", c, s)
		}
	}
}

// openAPI validates response bodies against docs/openapi.yaml.
type openAPI struct {
	c *jsonschema.Compiler
}

func newOpenAPI(t *testing.T) *openAPI {
	var doc any
	if err := yaml.Unmarshal(docs.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(doc)
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("openapi.json", v); err != nil {
		t.Fatal(err)
	}
	return &openAPI{c: c}
}

// check validates body as the response of method path with status.
func (o *openAPI) check(t *testing.T, method, path string, status int, body []byte) {
	t.Helper()
	resp := "200"
	if status != 200 {
		resp = "default"
	}
	ptr := fmt.Sprintf("openapi.json#/paths/%s/%s/responses/%s/content/application~1json/schema",
		strings.ReplaceAll(path, "/", "~1"), strings.ToLower(method), resp)
	s, err := o.c.Compile(ptr)
	if err != nil {
		t.Fatalf("compile %s: %v", ptr, err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("%s %s: body is not JSON: %v\n%s", method, path, err, body)
	}
	if err := s.Validate(v); err != nil {
		t.Fatalf("%s %s (%d) does not match docs/openapi.yaml: %v\n%s", method, path, status, err, body)
	}
}

type client struct {
	t     *testing.T
	base  string
	token string
	api   *openAPI
}

func (c *client) do(method, path, body string, hdr ...string) (int, []byte) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// call does an op request and validates the response against the OpenAPI document.
func (c *client) call(method, path, body string) (int, map[string]any) {
	c.t.Helper()
	status, b := c.do(method, path, body)
	u, _ := url.Parse(path)
	c.api.check(c.t, method, u.Path, status, b)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		c.t.Fatal(err)
	}
	return status, m
}

func start(t *testing.T, opts httpapi.Options) (*opstest.Env, *client) {
	env := opstest.NewFull(t)
	m := mcpserver.New(env.Table, mcpserver.Options{Store: env.Deps.Store})
	opts.MCP = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return m }, nil)
	srv := httptest.NewServer(httpapi.New(env.Table, opts))
	t.Cleanup(srv.Close)
	return env, &client{t: t, base: srv.URL, token: opts.Token, api: newOpenAPI(t)}
}

func TestOperations(t *testing.T) {
	_, c := start(t, httpapi.Options{})
	status, m := c.call("POST", "/v1/retrieve", `{"target":"notes.txt","lines":"2-3"}`)
	if status != 200 {
		t.Fatalf("status %d: %v", status, m)
	}
	if err := contracttest.Validate(m); err != nil {
		t.Fatal(err)
	}
	if got := m["retrieved"].(map[string]any)["data"]; got != "beta\ngamma\n" {
		t.Fatalf("data %q", got)
	}
	id := m["retrieval_id"].(string)
	if id == "" {
		t.Fatal("not recorded")
	}

	status, m = c.call("POST", "/v1/retrieve", `{"target":"missing.txt"}`)
	if status != 404 || m["error"].(map[string]any)["code"] != "PATH_NOT_FOUND" {
		t.Fatalf("missing file: %d %v", status, m)
	}
	if err := contracttest.Validate(m); err != nil {
		t.Fatal(err)
	}
	status, m = c.call("POST", "/v1/retrieve", `{"target":"../etc/passwd"}`)
	if status != 403 {
		t.Fatalf("outside root: %d %v", status, m)
	}

	status, m = c.call("POST", "/v1/verify", fmt.Sprintf(`{"id":%q}`, id))
	if status != 200 || m["status"] != "verified" {
		t.Fatalf("verify: %d %v", status, m)
	}
	status, m = c.call("POST", "/v1/verify", `{"id":"no-such-id"}`)
	if status != 404 {
		t.Fatalf("verify unknown: %d %v", status, m)
	}
	status, m = c.call("POST", "/v1/quote", `{"ref":"README.md","text":"a known thing"}`)
	if status != 200 || len(m["evidence_anchors"].([]any)) == 0 {
		t.Fatalf("quote: %d %v", status, m)
	}
	status, m = c.call("POST", "/v1/quote", `{"ref":"README.md","text":"an unknown thing entirely"}`)
	if status != 404 || m["error"].(map[string]any)["code"] != "QUOTE_NOT_FOUND" {
		t.Fatalf("quote missing: %d %v", status, m)
	}
	status, m = c.call("GET", "/v1/log?limit=2&status=ok", "")
	if status != 200 || len(m["entries"].([]any)) != 2 {
		t.Fatalf("log: %d %v", status, m)
	}
	status, m = c.call("GET", "/v1/show?id="+id, "")
	if status != 200 || m["retrieval_id"] != id {
		t.Fatalf("show: %d %v", status, m)
	}
	status, m = c.call("GET", "/v1/memory_list?memory_type=semantic&tags=deploy", "")
	if status != 200 || len(m["entries"].([]any)) != 1 {
		t.Fatalf("memory_list: %d %v", status, m)
	}
	status, m = c.call("POST", "/v1/wiki_write", `{"category":"topic","title":"Deploys","content":"# Deploys\n\nThe staging token.\n"}`)
	if status != 200 {
		t.Fatalf("wiki_write: %d %v", status, m)
	}
	status, m = c.call("GET", "/v1/wiki_search?query=staging+token", "")
	if status != 200 || len(m["hits"].([]any)) != 1 {
		t.Fatalf("wiki_search: %d %v", status, m)
	}
	status, m = c.call("POST", "/v1/extract_overview", `{"target":""}`)
	if status != 400 {
		t.Fatalf("extract_overview error: %d %v", status, m)
	}
	for _, bad := range []struct{ method, path, body string }{
		{"POST", "/v1/retrieve", `{"target":"notes.txt","bogus":1}`},
		{"POST", "/v1/retrieve", `{"target":`},
		{"POST", "/v1/retrieve", `{}`},
		{"GET", "/v1/log?limit=abc", ""},
		{"GET", "/v1/log?nope=1", ""},
	} {
		status, m := c.call(bad.method, bad.path, bad.body)
		if status != 400 || m["error"].(map[string]any)["code"] != "INPUT_VALIDATION_FAILED" {
			t.Errorf("%s %s %s: %d %v", bad.method, bad.path, bad.body, status, m)
		}
	}
	if status, b := c.do("POST", "/v1/nope", `{}`); status != 404 || !bytes.Contains(b, []byte("INVALID_OPERATION")) {
		t.Fatalf("unknown op: %d %s", status, b)
	}
	status, b := c.do("GET", "/healthz", "")
	var health map[string]any
	if status != 200 || json.Unmarshal(b, &health) != nil || health["status"] != "ok" || health["version"] != retrieve.Version || health["commit"] != retrieve.Build().Commit {
		t.Fatalf("healthz %d %s, want ok and version %s", status, b, retrieve.Version)
	}
	c.api.check(t, "GET", "/healthz", status, b)
	if status, _ := c.do("GET", "/readyz", ""); status != 200 {
		t.Fatalf("readyz %d", status)
	}
	status, b = c.do("GET", "/metrics", "")
	for _, want := range []string{`retrieve_requests_total{op="retrieve",transport="http",status="ok"} 1`, `retrieve_errors_total{code="PATH_NOT_FOUND"} 1`,
		`retrieve_retrievals_total{source="file"}`, `retrieve_request_duration_seconds_bucket{op="retrieve",le="+Inf"} 6`} {
		if status != 200 || !bytes.Contains(b, []byte(want)) {
			t.Errorf("metrics lack %s:\n%s", want, b)
		}
	}
}

func TestBodyCap(t *testing.T) {
	_, c := start(t, httpapi.Options{MaxBody: 100})
	status, m := c.call("POST", "/v1/retrieve", `{"target":"`+strings.Repeat("a", 200)+`"}`)
	if status != 413 || m["error"].(map[string]any)["code"] != "TOO_LARGE" {
		t.Fatalf("%d %v", status, m)
	}
}

func TestAuthAndOrigin(t *testing.T) {
	_, c := start(t, httpapi.Options{Token: "s3cret-token"})
	if status, _ := c.call("POST", "/v1/retrieve", `{"target":"notes.txt"}`); status != 200 {
		t.Fatalf("right token: %d", status)
	}
	for name, auth := range map[string]string{"missing": "", "wrong": "Bearer nope", "not bearer": "Basic czNjcmV0LXRva2Vu", "prefix": "Bearer s3cret"} {
		c2 := *c
		c2.token = ""
		hdr := []string{}
		if auth != "" {
			hdr = []string{"Authorization", auth}
		}
		for _, p := range []string{"/v1/retrieve", "/mcp", "/metrics"} {
			status, b := c2.do("POST", p, `{"target":"notes.txt"}`, hdr...)
			if p == "/metrics" {
				status, b = c2.do("GET", p, "", hdr...)
			}
			if status != 401 || bytes.Contains(b, []byte("s3cret")) {
				t.Errorf("%s token on %s: %d %s", name, p, status, b)
			}
		}
	}
	if status, _ := c.do("GET", "/healthz", "", "Authorization", ""); status != 200 {
		t.Fatal("healthz needs no token")
	}
	for origin, want := range map[string]int{"https://evil.example": 403, "http://localhost:3000": 200, "http://127.0.0.1:6274": 200, "null": 403} {
		if status, _ := c.do("POST", "/v1/retrieve", `{"target":"notes.txt"}`, "Origin", origin); status != want {
			t.Errorf("origin %s: %d, want %d", origin, status, want)
		}
	}
}

// TestConcurrentClients runs 100 clients for a while: every request
// succeeds and every retrieval is in the ledger.
func TestConcurrentClients(t *testing.T) {
	env, c := start(t, httpapi.Options{})
	// 100 clients at once, each with 10 requests in a row: a fixed count,
	// not a 10 s soak, so the test costs what it checks on any machine.
	const perClient = 10
	var (
		mu   sync.Mutex
		ids  = map[string]bool{}
		errs []string
		wg   sync.WaitGroup
	)
	tr := &http.Transport{MaxIdleConnsPerHost: 100}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perClient {
				body := fmt.Sprintf(`{"target":"notes.txt","lines":"%d"}`, i%4+1)
				resp, err := hc.Post(c.base+"/v1/retrieve", "application/json", strings.NewReader(body))
				if err != nil {
					mu.Lock()
					errs = append(errs, err.Error())
					mu.Unlock()
					return
				}
				var r retrieve.Result
				err = json.NewDecoder(resp.Body).Decode(&r)
				resp.Body.Close()
				mu.Lock()
				if err != nil || resp.StatusCode != 200 || r.RetrievalID == "" {
					errs = append(errs, fmt.Sprintf("%d %v %v", resp.StatusCode, err, r.Error))
				} else {
					ids[r.RetrievalID] = true
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d errors, first: %s", len(errs), errs[0])
	}
	entries, err := env.Deps.Store.Entries(t.Context(), store.Filter{Op: "get"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, e := range entries {
		got[e.ID] = true
	}
	for id := range ids {
		if !got[id] {
			t.Fatalf("retrieval %s answered but not in the ledger", id)
		}
	}
	if len(ids) != 100*perClient {
		t.Fatalf("%d distinct retrieval ids, want %d", len(ids), 100*perClient)
	}
	t.Logf("%d retrievals by 100 clients, all in the ledger", len(ids))
}

func FuzzRequestDecoding(f *testing.F) {
	env := opstest.New(f)
	h := httpapi.New(env.Table, httpapi.Options{MaxBody: 4096})
	for _, s := range []string{`{"target":"notes.txt"}`, `{"target":"notes.txt","lines":"1-2","max_bytes":3}`, `{`, `[]`, `null`, `{"target":1}`, `{"id":"x","result":{}}`, "{\"target\":\"\x00\"}", `{"target":"README.md","sections":["Install"]} {}`} {
		f.Add("retrieve", s, "")
	}
	f.Add("log", "", "limit=3&status=ok")
	f.Add("log", "", "limit=-1&since=zz")
	f.Add("show", "", "id=%00")
	f.Add("verify", `{"result":{"citation":{"reference":"notes.txt"}}}`, "")
	f.Fuzz(func(t *testing.T, op, body, query string) {
		method := "POST"
		if o, ok := env.Table.Lookup(op); ok {
			method = o.Method
		}
		req := httptest.NewRequest(method, "/v1/"+url.PathEscape(op), strings.NewReader(body))
		req.URL.RawQuery = query
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var m map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatalf("%s %q %q: response is not a JSON object: %v %q", op, body, query, err, rec.Body.String())
		}
		if rec.Code != 200 {
			e, ok := m["error"].(map[string]any)
			if !ok || e["code"] == "" || e["code"] == string(retrieve.CodeInternal) {
				t.Fatalf("%s %q %q: %d without a typed error: %v", op, body, query, rec.Code, m)
			}
		}
	})
}

var _ = ops.ErrorBody{}

// TestUITokenPage: a browser on /ui/ without the token gets an HTML page
// that says how to pass it (not the API's JSON 401); ?token= sets the
// cookie, after which the pages serve.
func TestUITokenPage(t *testing.T) {
	env := opstest.New(t)
	ui := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "the ledger page") })
	token := "0123456789abcdef0123456789abcdef-ui-test-token"
	srv := httptest.NewServer(httpapi.New(env.Table, httpapi.Options{Token: token, UI: ui}))
	t.Cleanup(srv.Close)

	resp, err := http.Get(srv.URL + "/ui/ledger")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(string(b), "?token=") || strings.Contains(string(b), token) {
		t.Fatalf("without a token: %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}

	jar, _ := cookiejar.New(nil)
	cl := &http.Client{Jar: jar}
	resp, err = cl.Get(srv.URL + "/ui/ledger?token=" + token)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(b) != "the ledger page" || strings.Contains(resp.Request.URL.String(), token) {
		t.Fatalf("with ?token=: %d %s (at %s)", resp.StatusCode, b, resp.Request.URL)
	}
}
