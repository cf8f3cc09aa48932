package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/testws"
)

// suiteReq is one retrieval a contract row asks, whatever carries it: the
// CLI turns it into flags, the servers into the retrieve tool's arguments.
// Strings may hold the row's placeholders (suiteEnv.expand).
type suiteReq struct {
	Target   string
	Source   string
	Format   string
	Lines    string
	Bytes    string
	Sections []string
	Select   string
	// Pages are a document's parts (--pages 2, --pages para=2).
	Pages string
	// WebPages is the api source's count of Link pages (--pages N).
	WebPages int
	MaxBytes int64
	Query    string
	Params   []string
	MaxRows  int
	// Header is a request header (--header): the CLI's only; the servers
	// take none by design (docs/servers.md), api.headers in the config is
	// their way.
	Header string
}

// suiteTransport carries a row's requests: a row never knows which one.
type suiteTransport interface {
	// unsupported says why this transport cannot carry r ("" when it can).
	unsupported(r suiteReq) string
	// get retrieves r and returns the result (a failure's envelope too)
	// and its JSON as the transport delivered it.
	get(t *testing.T, r suiteReq) (*retrieve.Result, []byte)
	// verify verifies a recorded retrieval.
	verify(t *testing.T, id string) *retrieve.Verification
}

// suiteOption is one option of a request: its tool argument, its CLI
// flag and its value ("" when unset).
type suiteOption struct{ key, flag, v string }

// options are r's scalar options, each under its two names.
func (r suiteReq) options() []suiteOption {
	num := func(n int64) string {
		if n == 0 {
			return ""
		}
		return strconv.FormatInt(n, 10)
	}
	return []suiteOption{
		{"source", "--source", r.Source}, {"format", "--format", r.Format}, {"lines", "--lines", r.Lines},
		{"bytes", "--bytes", r.Bytes}, {"select", "--select", r.Select}, {"pages", "--pages", r.Pages},
		{"query", "--query", r.Query}, {"max_bytes", "--max-bytes", num(r.MaxBytes)}, {"max_rows", "--max-rows", num(int64(r.MaxRows))},
	}
}

// toolArgs are r as the arguments of the retrieve tool (MCP and
// POST /v1/retrieve).
func (r suiteReq) toolArgs() map[string]any {
	m := map[string]any{"target": r.Target}
	for _, o := range r.options() {
		if o.v != "" {
			m[o.key] = o.v
		}
	}
	if r.MaxBytes > 0 { // numbers travel as JSON numbers
		m["max_bytes"] = r.MaxBytes
	}
	if r.MaxRows > 0 {
		m["max_rows"] = r.MaxRows
	}
	if len(r.Sections) > 0 {
		m["sections"] = r.Sections
	}
	if len(r.Params) > 0 {
		m["params"] = r.Params
	}
	if r.WebPages > 0 {
		m["web"] = map[string]any{"pages": r.WebPages}
	}
	return m
}

// cliArgs are r as the arguments of `retrieve get`: the CLI's one --pages
// is a document's parts or the api's count of pages.
func (r suiteReq) cliArgs() []string {
	args := []string{r.Target}
	if r.WebPages > 0 {
		r.Pages = strconv.Itoa(r.WebPages)
	}
	for _, o := range r.options() {
		if o.v != "" {
			args = append(args, o.flag, o.v)
		}
	}
	for _, s := range r.Sections {
		args = append(args, "--section", s)
	}
	for _, p := range r.Params {
		args = append(args, "--param", p)
	}
	if r.Header != "" {
		args = append(args, "--header", r.Header)
	}
	return append(args, "--json")
}

// decodeResult decodes a result; a body that is not one fails the test.
func decodeResult(t *testing.T, what string, b []byte) *retrieve.Result {
	t.Helper()
	var res retrieve.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("%s: not a result: %v\n%.2000s", what, err, b)
	}
	return &res
}

func decodeVerification(t *testing.T, what string, b []byte) *retrieve.Verification {
	t.Helper()
	var v retrieve.Verification
	if err := json.Unmarshal(b, &v); err != nil || v.Status == "" {
		t.Fatalf("%s: not a verification: %v\n%.2000s", what, err, b)
	}
	return &v
}

// cliTransport runs the CLI as a process: the test binary under the name
// retrieve (TestMain).
type cliTransport struct {
	root string
	env  []string
}

func (c *cliTransport) unsupported(suiteReq) string { return "" }

func (c *cliTransport) run(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"--root", c.root}, args...)...)
	cmd.Env = append(os.Environ(), c.env...)
	cmd.Dir = c.root // paths a command takes (--extraction) are the user's, in the workspace
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		t.Fatalf("retrieve %q: %v", args, err)
	}
	if len(bytes.TrimSpace(out)) == 0 {
		t.Fatalf("retrieve %q printed nothing: %s", args, errOut.Bytes())
	}
	return out
}

func (c *cliTransport) get(t *testing.T, r suiteReq) (*retrieve.Result, []byte) {
	t.Helper()
	out := c.run(t, append([]string{"get"}, r.cliArgs()...)...)
	return decodeResult(t, "get "+r.Target, out), out
}

func (c *cliTransport) verify(t *testing.T, id string) *retrieve.Verification {
	t.Helper()
	return decodeVerification(t, "verify "+id, c.run(t, "verify", id, "--json"))
}

// serverUnsupported is what the servers cannot carry.
func serverUnsupported(r suiteReq) string {
	if r.Header != "" {
		return "the servers take no request headers by design (docs/servers.md); the api.headers rows carry header authentication on every transport"
	}
	return ""
}

// mcpStdioClient speaks newline-delimited JSON-RPC to one
// `retrieve serve --stdio` process, as an MCP client does; calls from
// parallel rows share it, matched by id.
type mcpStdioClient struct {
	mu      sync.Mutex // serialises writes
	in      io.Writer
	nextID  atomic.Int64
	pending sync.Map // id → chan json.RawMessage (the whole response)
}

func startMCPStdio(t *testing.T, root string, env []string) *mcpStdioClient {
	t.Helper()
	cmd := exec.Command(binary(t), "--root", root, "serve", "--stdio")
	cmd.Env = append(os.Environ(), env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = in.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	c := &mcpStdioClient{in: in}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
		for sc.Scan() {
			var m struct {
				ID     *int64 `json:"id"`
				Method string `json:"method"`
			}
			if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil || m.Method != "" {
				continue // notifications/… and requests from the server
			}
			if ch, ok := c.pending.LoadAndDelete(*m.ID); ok {
				ch.(chan json.RawMessage) <- append(json.RawMessage(nil), sc.Bytes()...)
			}
		}
		c.pending.Range(func(_, ch any) bool { close(ch.(chan json.RawMessage)); return true })
	}()
	if _, err := c.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "contract-suite", "version": "1"}}); err != nil {
		t.Fatal(err)
	}
	c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return c
}

func (c *mcpStdioClient) send(msg any) {
	b, _ := json.Marshal(msg)
	c.mu.Lock()
	defer c.mu.Unlock()
	_, _ = c.in.Write(append(b, '\n'))
}

// call sends a request and returns its result, or the JSON-RPC error.
func (c *mcpStdioClient) call(method string, params any) (json.RawMessage, error) {
	id := c.nextID.Add(1)
	ch := make(chan json.RawMessage, 1)
	c.pending.Store(id, ch)
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	select {
	case line, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: the server closed stdout", method)
		}
		var resp struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &resp); err != nil {
			return nil, err
		}
		if resp.Error != nil {
			return nil, fmt.Errorf("%s: JSON-RPC error %d: %s", method, resp.Error.Code, resp.Error.Message)
		}
		return resp.Result, nil
	case <-time.After(60 * time.Second):
		return nil, fmt.Errorf("%s: no answer in 60 s", method)
	}
}

// toolResult is a tools/call result's structured content (the text block
// when there is none).
func toolResult(t *testing.T, what string, raw json.RawMessage) []byte {
	t.Helper()
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if len(r.StructuredContent) == 0 || string(r.StructuredContent) == "null" {
		text := ""
		if len(r.Content) > 0 {
			text = r.Content[0].Text
		}
		t.Fatalf("%s: no structured content (error %v): %s", what, r.IsError, text)
	}
	return r.StructuredContent
}

func (c *mcpStdioClient) tool(t *testing.T, name string, args map[string]any) []byte {
	t.Helper()
	raw, err := c.call("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		t.Fatal(err)
	}
	return toolResult(t, name, raw)
}

// toolTransport carries a row's requests as calls of the retrieve and
// verify_citation tools: over MCP (stdio or streamable HTTP) or as
// POST /v1/<tool>.
type toolTransport struct {
	call func(t *testing.T, tool string, args map[string]any) []byte
}

func (c toolTransport) unsupported(r suiteReq) string { return serverUnsupported(r) }

func (c toolTransport) get(t *testing.T, r suiteReq) (*retrieve.Result, []byte) {
	t.Helper()
	b := c.call(t, "retrieve", r.toolArgs())
	return decodeResult(t, "retrieve "+r.Target, b), b
}

func (c toolTransport) verify(t *testing.T, id string) *retrieve.Verification {
	t.Helper()
	return decodeVerification(t, "verify_citation "+id, c.call(t, "verify_citation", map[string]any{"retrieval_id": id}))
}

// httpPost calls POST /v1/<op> of the server at base.
func httpPost(base string) func(t *testing.T, op string, body map[string]any) []byte {
	return func(t *testing.T, op string, body map[string]any) []byte {
		t.Helper()
		b, _ := json.Marshal(body)
		resp, err := http.Post(base+"/v1/"+op, "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
}

// mcpSDKTool calls a tool over MCP's streamable HTTP (/mcp of the server)
// with the Go SDK's client.
func mcpSDKTool(cs *mcp.ClientSession) func(t *testing.T, name string, args map[string]any) []byte {
	return func(t *testing.T, name string, args map[string]any) []byte {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(res)
		return toolResult(t, name, raw)
	}
}

// suitePage is a body the suite's loopback web server answers, with the
// validators and links a row asks for.
type suitePage struct {
	Body string
	Type string // Content-Type; from the extension when empty
	// ETag and LastModified send those validators and answer a matching
	// conditional request with 304.
	ETag, LastModified bool
	// Next is the path of the next page (Link: rel="next").
	Next string
	// Auth requires Authorization: Bearer <the suite's token>.
	Auth bool
	// version counts the bodies set (Last-Modified moves with it).
	version int
}

// suiteWeb is the loopback server of the web and api rows. Two listeners
// share it: the second's host:port is the one api.headers names, so that a
// row can tell a configured header from a --header flag.
type suiteWeb struct {
	mu    sync.Mutex
	pages map[string]*suitePage
	token string
	// main and auth are the base URLs of the two listeners.
	main, auth string
}

func (w *suiteWeb) set(path string, p suitePage) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if old := w.pages[path]; old != nil {
		p.version = old.version + 1
	}
	w.pages[path] = &p
}

func (w *suiteWeb) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w.mu.Lock()
	p, ok := w.pages[r.URL.Path]
	var page suitePage
	if ok {
		page = *p
	}
	w.mu.Unlock()
	if !ok {
		http.NotFound(rw, r)
		return
	}
	if page.Auth && r.Header.Get("Authorization") != "Bearer "+w.token {
		http.Error(rw, "missing or wrong token", http.StatusUnauthorized)
		return
	}
	h := rw.Header()
	switch {
	case page.Type != "":
		h.Set("Content-Type", page.Type)
	case strings.HasSuffix(r.URL.Path, ".html"):
		h.Set("Content-Type", "text/html; charset=utf-8")
	case strings.HasSuffix(r.URL.Path, ".json"):
		h.Set("Content-Type", "application/json")
	default:
		h.Set("Content-Type", "text/plain; charset=utf-8")
	}
	if page.Next != "" {
		h.Set("Link", `<`+page.Next+`>; rel="next"`)
	}
	if page.ETag {
		sum := sha256.Sum256([]byte(page.Body))
		etag := `"` + hex.EncodeToString(sum[:8]) + `"`
		h.Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			rw.WriteHeader(http.StatusNotModified)
			return
		}
	}
	if page.LastModified {
		mod := testws.Epoch.Add(time.Duration(page.version) * time.Hour)
		h.Set("Last-Modified", mod.Format(http.TimeFormat))
		if since, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !mod.After(since) {
			rw.WriteHeader(http.StatusNotModified)
			return
		}
	}
	_, _ = io.WriteString(rw, page.Body)
}
