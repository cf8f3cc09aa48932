package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// fastServer is `serve --http`'s /mcp over env's table: its fast path on,
// or off (every message through the SDK).
type fastServer struct {
	*httptest.Server
	fast    *fastPath
	session string
	hc      *http.Client
}

func newFastServer(t *testing.T, table *ops.Table, env *opstest.Env, on bool) *fastServer {
	t.Helper()
	stream := NewStreamer(io.Discard)
	srv := New(table, Options{Store: env.Deps.Store, Stream: stream})
	stream.fast.off.Store(!on)
	ts := httptest.NewServer(stream.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute})))
	t.Cleanup(ts.Close)
	fs := &fastServer{Server: ts, fast: stream.fast, hc: ts.Client()}
	resp := fs.post(t, "", "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	fs.session = resp.header.Get("Mcp-Session-Id")
	if resp.status != 200 || fs.session == "" {
		t.Fatalf("initialize: %d %s", resp.status, resp.body)
	}
	if r := fs.post(t, "", fs.session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.status != 202 {
		t.Fatalf("notifications/initialized: %d %s", r.status, r.body)
	}
	return fs
}

type reply struct {
	status int
	header http.Header
	body   string
	// framing is the body's transfer encoding and length (-1: unknown).
	framing string
}

// post sends body on session with protocol version v ("" for
// 2025-11-25; "-" for none).
func (s *fastServer) post(t *testing.T, v, session, body string, headers ...string) reply {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		switch v {
		case "":
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		case "-":
		default:
			req.Header.Set("MCP-Protocol-Version", v)
		}
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{resp.StatusCode, resp.Header, string(b), fmt.Sprint(resp.TransferEncoding, resp.ContentLength)}
}

// volatile are the parts of a reply that differ from call to call.
var volatile = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)|"(duration_ms|elapsed_ms)":\d+(\.\d+)?`)

func normalize(s string) string { return volatile.ReplaceAllString(s, "~") }

// The fast path answers a tools/call with the bytes the SDK sends for it:
// the same status, headers and body (after the retrieval ids and times),
// results and tool errors alike; what it does not take, the SDK answers
// the same on both servers.
func TestFastPathSameBytes(t *testing.T) {
	env := opstest.New(t)
	env.SmallFiles(3)
	env.WS.Write("html.txt", "a <b>bold</b> & \"quoted\" line\u2028with a separator\n\tand a tab\n")
	env.WS.Write("big.txt", strings.Repeat("a line of a file larger than ops.StreamMin, <&>\n", ops.StreamMin/40))
	fast := newFastServer(t, env.Table, env, true)
	sdk := newFastServer(t, env.Table, env, false)
	// A call before the cases: the SDK's first use of the store.
	for _, s := range []*fastServer{fast, sdk} {
		if r := s.post(t, "", s.session, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"retrieve","arguments":{"target":"f0.txt","no_record":true}}}`); r.status != 200 {
			t.Fatalf("first call: %d %s", r.status, r.body)
		}
	}
	call := func(id, name, args string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
	}
	cases := []struct {
		name, version, body string
		fast                bool // the fast path answers it
	}{
		{"lines", "", call("2", "retrieve", `{"target":"f1.txt","lines":"1-20","no_record":true}`), true},
		{"recorded", "", call("3", "retrieve", `{"target":"f2.txt","lines":"1-20"}`), true},
		{"protocol 2025-06-18", "2025-06-18", call("4", "retrieve", `{"target":"f1.txt","no_record":true}`), true},
		{"string id", "", call(`"call-5.a:b_c"`, "retrieve", `{"target":"notes.txt","no_record":true}`), true},
		{"negative id", "", call("-6", "retrieve", `{"target":"notes.txt","no_record":true}`), true},
		{"escapes", "", call("7", "retrieve", `{"target":"html.txt","no_record":true}`), true},
		{"streamed data", "", call("8", "retrieve", `{"target":"big.txt","no_record":true,"budget":1048576}`), true},
		{"missing file", "", call("9", "retrieve", `{"target":"nope.txt","no_record":true}`), true},
		{"invalid argument", "", call("10", "retrieve", `{"target":"f1.txt","lines":"x-y","no_record":true}`), true},
		{"unknown argument", "", call("11", "retrieve", `{"target":"f1.txt","bogus":1}`), true},
		{"over budget", "", call("12", "retrieve", `{"target":"big.txt","no_record":true,"budget":2000,"complete":true}`), true},
		{"other read tool", "", call("13", "outline", `{"target":"README.md"}`), true},
		{"no arguments", "", `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"retrieve"}}`, true},
		{"keys in another order", "", `{"params":{"arguments":{"target":"notes.txt","no_record":true},"name":"retrieve"},"method":"tools/call","id":15,"jsonrpc":"2.0"}`, true},
		// The SDK's.
		{"unknown tool", "", call("20", "no_such_tool", `{}`), false},
		{"progress token", "", `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"retrieve","arguments":{"target":"notes.txt","no_record":true},"_meta":{"progressToken":"p1"}}}`, false},
		{"key in another case", "", `{"jsonrpc":"2.0","id":22,"Method":"tools/call","method":"tools/call","params":{"name":"retrieve","arguments":{"target":"notes.txt","no_record":true}}}`, false},
		{"float id", "", call("23.5", "retrieve", `{"target":"notes.txt","no_record":true}`), false},
		{"null arguments", "", call("24", "retrieve", `null`), false},
		{"batch", "", `[` + call("25", "retrieve", `{"target":"notes.txt","no_record":true}`) + `]`, false},
		{"protocol 2025-03-26", "2025-03-26", call("26", "retrieve", `{"target":"notes.txt","no_record":true}`), false},
		{"no protocol header", "-", call("27", "retrieve", `{"target":"notes.txt","no_record":true}`), false},
		{"unsupported protocol", "1999-01-01", call("28", "retrieve", `{"target":"notes.txt","no_record":true}`), false},
		{"malformed", "", `{"jsonrpc":"2.0","id":29,"method":"tools/call","params":{`, false},
		{"tools/list", "", `{"jsonrpc":"2.0","id":30,"method":"tools/list"}`, false},
		{"ping", "", `{"jsonrpc":"2.0","id":31,"method":"ping"}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := fast.fast.served.Load()
			a := fast.post(t, c.version, fast.session, c.body)
			b := sdk.post(t, c.version, sdk.session, c.body)
			if got := fast.fast.served.Load() - before; (got == 1) != c.fast {
				t.Errorf("the fast path answered %d calls, want fast=%v", got, c.fast)
			}
			if a.status != b.status {
				t.Errorf("status %d, the SDK's %d: %s / %s", a.status, b.status, a.body, b.body)
			}
			for _, h := range []string{"Content-Type", "Cache-Control", "Connection", "Mcp-Session-Id", "Content-Length"} {
				if a.header.Get(h) != b.header.Get(h) {
					t.Errorf("%s: %q, the SDK's %q", h, a.header.Get(h), b.header.Get(h))
				}
			}
			if a.framing != b.framing {
				t.Errorf("transfer encoding and length %s, the SDK's %s", a.framing, b.framing)
			}
			if na, nb := normalize(a.body), normalize(b.body); na != nb {
				t.Errorf("body differs from the SDK's:\nfast %.2000s\nsdk  %.2000s", na, nb)
			}
		})
	}
	if sdk.fast.served.Load() != 0 {
		t.Fatalf("the server with the fast path off answered %d calls on it", sdk.fast.served.Load())
	}
}

// A session the client deleted is not served: the SDK answers that it is
// gone, on both ways. A session the SDK has not seen for fastFresh goes
// through the SDK once, then fast again.
func TestFastPathSessionLife(t *testing.T) {
	env := opstest.New(t)
	s := newFastServer(t, env.Table, env, true)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"retrieve","arguments":{"target":"notes.txt","no_record":true}}}`
	// The SDK answered notifications/initialized: the session is known.
	if r := s.post(t, "", s.session, call); r.status != 200 || s.fast.served.Load() != 1 {
		t.Fatalf("first call: %d, %d served fast: %s", r.status, s.fast.served.Load(), r.body)
	}
	old := fastFresh
	fastFresh = 20 * time.Millisecond
	defer func() { fastFresh = old }()
	time.Sleep(40 * time.Millisecond)
	s.post(t, "", s.session, call)
	if s.fast.served.Load() != 1 {
		t.Fatal("a call after fastFresh did not go through the SDK")
	}
	s.post(t, "", s.session, call)
	if s.fast.served.Load() != 2 {
		t.Fatal("the session was not fast again after the SDK saw it")
	}
	fastFresh = old
	req, _ := http.NewRequest(http.MethodDelete, s.URL, nil)
	req.Header.Set("Mcp-Session-Id", s.session)
	resp, err := s.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	if r := s.post(t, "", s.session, call); r.status != http.StatusNotFound || s.fast.served.Load() != 2 {
		t.Fatalf("a call on a deleted session: %d (%d served fast): %s", r.status, s.fast.served.Load(), r.body)
	}
}

// notifications/cancelled cancels a call in flight on the fast path, as
// the SDK cancels its own; a second call with the id in flight is refused
// as the SDK refuses it.
func TestFastPathCancelAndDuplicateID(t *testing.T) {
	env := opstest.New(t)
	table := ops.NewTable()
	for _, op := range env.Table.Ops() {
		table.Add(op)
	}
	started := make(chan struct{}, 1)
	canceled := make(chan error, 1)
	table.Add(&ops.Op{Name: "wait", Title: "Wait", Description: "Waits until canceled.", ReadOnly: true, Method: http.MethodPost,
		Input: json.RawMessage(`{"type":"object"}`), Output: json.RawMessage(`{"type":"object"}`),
		Handle: func(ctx context.Context, _ json.RawMessage) (any, error) {
			started <- struct{}{}
			select {
			case <-ctx.Done():
				canceled <- ctx.Err()
				return nil, ctx.Err()
			case <-time.After(10 * time.Second):
				canceled <- nil
				return map[string]any{}, nil
			}
		}})
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("fast=%v", on), func(t *testing.T) {
			s := newFastServer(t, table, env, on)
			s.post(t, "", s.session, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"retrieve","arguments":{"target":"notes.txt","no_record":true}}}`)
			var wg sync.WaitGroup
			var first reply
			wg.Add(1)
			go func() {
				defer wg.Done()
				first = s.post(t, "", s.session, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
			}()
			<-started
			dup := s.post(t, "", s.session, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"retrieve","arguments":{"target":"notes.txt","no_record":true}}}`)
			if dup.status != http.StatusBadRequest || !strings.Contains(dup.body, "duplicate in-flight request ID 7") {
				t.Errorf("a second call with id 7 in flight: %d %s", dup.status, dup.body)
			}
			if r := s.post(t, "", s.session, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"test"}}`); r.status != http.StatusAccepted {
				t.Fatalf("notifications/cancelled: %d %s", r.status, r.body)
			}
			select {
			case err := <-canceled:
				if err == nil {
					t.Fatal("the call was not canceled")
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the call was not canceled within 5 s")
			}
			wg.Wait()
			_ = first // the SDK sends no response to a canceled call; the stream ends
			if on && s.fast.served.Load() < 2 {
				t.Errorf("the fast path answered %d calls, want the wait and the duplicate", s.fast.served.Load())
			}
		})
	}
}

// BenchmarkFastPathCall is the server's share of one tools/call retrieve
// of 20 lines of a small file on a streamable HTTP session, handler only
// (no connection): the fast path against the SDK's way in the same run,
// CPU per call (cpu-us/op: the process's, the SDK's goroutines and the
// ledger's background work included) and allocations.
func BenchmarkFastPathCall(b *testing.B) {
	env := opstest.New(b)
	env.SmallFiles(1000)
	for _, way := range []string{"fast", "sdk"} {
		stream := NewStreamer(io.Discard)
		srv := New(env.Table, Options{Store: env.Deps.Store, Stream: stream})
		stream.fast.off.Store(way == "sdk")
		h := stream.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
			&mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute}))
		post := func(session, body string) *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if session != "" {
				req.Header.Set("Mcp-Session-Id", session)
				req.Header.Set("MCP-Protocol-Version", "2025-11-25")
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec
		}
		session := post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`).Header().Get("Mcp-Session-Id")
		post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		for _, c := range []struct{ name, extra string }{{"no_record", `,"no_record":true`}, {"recorded", ""}} {
			b.Run(way+"/"+c.name, func(b *testing.B) {
				start := opstest.CPUTime()
				i := 0
				for b.Loop() {
					i++
					rec := post(session, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"retrieve","arguments":{"target":"f%d.txt","lines":"1-20"%s}}}`, i, i%1000, c.extra))
					if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"structuredContent"`) {
						b.Fatalf("%d %s", rec.Code, rec.Body)
					}
				}
				b.ReportMetric(float64(opstest.CPUTime()-start)/float64(b.N)/1e3, "cpu-us/op")
			})
		}
	}
}

// A retrieval that was not recorded schedules no sync of the resource
// list (there is no new entry to list); a recorded one does, and so does
// any output the catalog cannot read.
func TestCatalogSyncOnlyAfterARecord(t *testing.T) {
	env := opstest.New(t)
	op, _ := env.Table.Lookup("retrieve")
	for _, c := range []struct {
		name  string
		value any
		want  int
	}{
		{"no_record", &retrieve.Result{}, 0},
		{"recorded", &retrieve.Result{RetrievalID: "r1"}, kindRetrievals},
		{"many, none recorded", &ops.ManyOutput{Results: []*retrieve.Result{{}, {}}}, 0},
		{"many, one recorded", &ops.ManyOutput{Results: []*retrieve.Result{{}, {RetrievalID: "r2"}}}, kindRetrievals},
		{"an error body", ops.ErrorBody{}, kindRetrievals},
	} {
		// The sync it schedules runs later against a server of its own.
		cat := &catalog{srv: mcp.NewServer(&mcp.Implementation{Name: "t"}, nil), t: env.Table, have: map[string]bool{}}
		cat.after(op, ops.Outcome{Value: c.value})
		cat.mu.Lock()
		got := cat.pending
		cat.mu.Unlock()
		if got != c.want {
			t.Errorf("%s: pending sync %b, want %b", c.name, got, c.want)
		}
	}
}

// A session whose client asked for a protocol with batches (before
// 2025-06-18) is the SDK's, whatever header a call carries.
func TestFastPathNotForBatchSessions(t *testing.T) {
	env := opstest.New(t)
	s := newFastServer(t, env.Table, env, true)
	r := s.post(t, "", "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	old := r.header.Get("Mcp-Session-Id")
	if r := s.post(t, "2025-03-26", old, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.status != 202 {
		t.Fatalf("notifications/initialized: %d %s", r.status, r.body)
	}
	r = s.post(t, "2025-06-18", old, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"retrieve","arguments":{"target":"notes.txt","no_record":true}}}`)
	if r.status != 200 || !strings.Contains(r.body, `"structuredContent"`) || s.fast.served.Load() != 0 {
		t.Fatalf("a call on a 2025-03-26 session: %d, %d served fast: %.300s", r.status, s.fast.served.Load(), r.body)
	}
}
