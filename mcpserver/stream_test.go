package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve/mcpserver"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// stdioSession runs the server of env over the stdio framing (pipes, as
// `serve --stdio` does), with a Streamer or without, and returns a
// function that sends one line and reads the reply line.
func stdioSession(t testing.TB, env *opstest.Env, streamed bool) func(string) string {
	return stdioSessionAt(t, env, streamed, "2025-11-25")
}

func stdioSessionAt(t testing.TB, env *opstest.Env, streamed bool, protocol string) func(string) string {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	opts := mcpserver.Options{Store: env.Deps.Store}
	var tr mcp.Transport = &mcp.IOTransport{Reader: inR, Writer: outW}
	if streamed {
		opts.Stream = mcpserver.NewStreamer(outW)
		tr = opts.Stream.Transport(&mcp.IOTransport{Reader: inR, Writer: nopCloser{opts.Stream.Writer()}})
	}
	srv := mcpserver.New(env.Table, opts)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = srv.Run(ctx, tr) }()
	t.Cleanup(func() { cancel(); inW.Close(); outR.Close() })
	r := bufio.NewReaderSize(outR, 1<<20)
	roundTrip := func(s string) string {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
		line, err := r.ReadString('\n')
		// A notification (resources/list_changed) may come before the response.
		for err == nil && strings.HasPrefix(line, `{"jsonrpc":"2.0","method":"notifications/`) {
			line, err = r.ReadString('\n')
		}
		if err != nil {
			t.Fatal(err)
		}
		return line
	}
	roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + protocol + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	return roundTrip
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// largeFile is text with everything JSON escapes: quotes, backslashes,
// control characters, HTML characters (not escaped over MCP), line and
// paragraph separators, non-ASCII.
func largeFile(size int) string {
	var b strings.Builder
	for i := 1; b.Len() < size; i++ {
		fmt.Fprintf(&b, "line %d \"quoted\" \\ back\tslash <a&b> \x01 sep\u2028para\u2029 héllo 日本 🎉\n", i)
	}
	return b.String()
}

var volatile = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z|"(age_seconds|duration_ms)":[0-9.e-]+`)

// A large result written by the Streamer is, byte for byte, the message
// the SDK writes, and its data is the file.
func TestStreamedResultIsTheSameMessage(t *testing.T) {
	env := opstest.New(t)
	file := largeFile(3 * mcpserver.StreamMin)
	env.WS.Write("big.txt", file)
	env.Table.Budget = ops.Budget{Default: 8 << 20, Max: 8 << 20}
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"retrieve","arguments":{"target":"big.txt","no_record":true,"max_bytes":4194304}}}`
	plain := stdioSession(t, env, false)(call)
	streamedSession := stdioSession(t, env, true)
	streamed := streamedSession(call)
	if got, want := volatile.ReplaceAllString(streamed, ""), volatile.ReplaceAllString(plain, ""); got != want {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("the streamed message differs from the SDK's at byte %d of %d/%d: …%.80q… vs …%.80q…", i, len(got), len(want), got[max(i-20, 0):], want[max(i-20, 0):])
	}
	var msg struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent struct {
				Retrieved struct {
					Data string `json:"data"`
				} `json:"retrieved"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(streamed), &msg); err != nil {
		t.Fatal(err)
	}
	if msg.Result.StructuredContent.Retrieved.Data != file {
		t.Fatalf("structuredContent data: %d bytes, want the file's %d", len(msg.Result.StructuredContent.Retrieved.Data), len(file))
	}
	if len(msg.Result.Content) != 1 || !strings.HasSuffix(msg.Result.Content[0].Text, "\n"+file) {
		t.Fatal("the text block does not end with the file")
	}
	// A small result on the same session holds no placeholder either.
	small := streamedSession(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"retrieve","arguments":{"target":"big.txt","lines":"1-2","no_record":true}}}`)
	if strings.Contains(small, "retrieve-stream-") || !strings.Contains(small, `"id":8`) {
		t.Fatalf("small result: %.200s", small)
	}
}

// A client on protocol 2025-03-26 may send a JSON-RPC batch: a large
// result in it comes back inside the batch's array with the others (the
// Streamer leaves such sessions to the SDK).
func TestBatchWithALargeResult(t *testing.T) {
	env := opstest.New(t)
	env.WS.Write("big.txt", largeFile(2*mcpserver.StreamMin))
	env.Table.Budget = ops.Budget{Default: 8 << 20, Max: 8 << 20}
	roundTrip := stdioSessionAt(t, env, true, "2025-03-26")
	line := roundTrip(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"retrieve","arguments":{"target":"big.txt","no_record":true,"max_bytes":4194304}}},` +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"retrieve","arguments":{"target":"big.txt","lines":"1","no_record":true}}}]`)
	var batch []map[string]any
	if err := json.Unmarshal([]byte(line), &batch); err != nil {
		t.Fatalf("the reply is not one batch: %v (%.200s)", err, line)
	}
	if len(batch) != 2 {
		t.Fatalf("%d responses in the batch, want 2", len(batch))
	}
	if strings.Contains(line, "retrieve-stream-") {
		t.Fatal("a placeholder reached the client")
	}
}

// BenchmarkLargeResult is a whole-file read over stdio and over the
// streamable HTTP transport (2 MiB of data, which the message holds
// twice): bytes allocated per byte of the message, with the SDK's encoding
// and with the Streamer (the test client's own reading of the reply
// included, about 2 bytes per byte over stdio, 3 over HTTP).
func BenchmarkLargeResult(b *testing.B) {
	env := opstest.New(b)
	file := largeFile(2 << 20)
	env.WS.Write("big.txt", file)
	env.Table.Budget = ops.Budget{Default: 16 << 20, Max: 16 << 20}
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"retrieve","arguments":{"target":"big.txt","no_record":true,"max_bytes":4194304}}}`
	for _, c := range []struct {
		name     string
		session  func(testing.TB, *opstest.Env, bool) func(string) string
		streamed bool
	}{{"sdk", stdioSession, false}, {"streamed", stdioSession, true}, {"http/sdk", httpSession, false}, {"http/streamed", httpSession, true}} {
		b.Run(c.name, func(b *testing.B) {
			roundTrip := c.session(b, env, c.streamed)
			msg := len(roundTrip(call))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			n := 0
			for b.Loop() {
				if d := len(roundTrip(call)) - msg; d < -64 || d > 64 { // timestamps vary in length
					b.Fatalf("the message changed size by %d bytes", d)
				}
				n++
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n)/float64(msg), "alloc-B/msg-B")
			b.ReportMetric(float64(msg), "msg-B")
		})
	}
}

// httpSession serves env's server over the streamable HTTP transport on
// loopback, with a Streamer's Handler or without, and returns a function
// that posts one message in the session and returns the response body.
func httpSession(t testing.TB, env *opstest.Env, streamed bool) func(string) string {
	opts := mcpserver.Options{Store: env.Deps.Store}
	if streamed {
		opts.Stream = mcpserver.NewStreamer(io.Discard)
	}
	srv := mcpserver.New(env.Table, opts)
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	if streamed {
		h = opts.Stream.Handler(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	session := ""
	post := func(msg string) string {
		req, err := http.NewRequest("POST", ts.URL, strings.NewReader(msg))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode >= 300 {
			t.Fatalf("%s: %.300s", resp.Status, b)
		}
		if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
			session = s
		}
		return string(b)
	}
	post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return post
}

// Over the streamable HTTP transport too, a large result written through
// the Streamer's Handler is byte for byte the SDK's response, and its data
// is the file.
func TestStreamedHTTPResultIsTheSameMessage(t *testing.T) {
	env := opstest.New(t)
	file := largeFile(3 * mcpserver.StreamMin)
	env.WS.Write("big.txt", file)
	env.Table.Budget = ops.Budget{Default: 8 << 20, Max: 8 << 20}
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"retrieve","arguments":{"target":"big.txt","no_record":true,"max_bytes":4194304}}}`
	plain := httpSession(t, env, false)(call)
	streamedSession := httpSession(t, env, true)
	streamed := streamedSession(call)
	if got, want := volatile.ReplaceAllString(streamed, ""), volatile.ReplaceAllString(plain, ""); got != want {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("the streamed response differs from the SDK's at byte %d of %d/%d: …%.80q… vs …%.80q…", i, len(got), len(want), got[max(i-20, 0):], want[max(i-20, 0):])
	}
	_, event, ok := strings.Cut(streamed, "data: ")
	if !ok {
		t.Fatalf("not an SSE event: %.200s", streamed)
	}
	var msg struct {
		Result struct {
			StructuredContent struct {
				Retrieved struct {
					Data string `json:"data"`
				} `json:"retrieved"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(event)), &msg); err != nil {
		t.Fatal(err)
	}
	if msg.Result.StructuredContent.Retrieved.Data != file {
		t.Fatalf("structuredContent data: %d bytes, want the file's %d", len(msg.Result.StructuredContent.Retrieved.Data), len(file))
	}
	if small := streamedSession(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"retrieve","arguments":{"target":"big.txt","lines":"1-2","no_record":true}}}`); strings.Contains(small, "retrieve-stream-") || !strings.Contains(small, `"id":8`) {
		t.Fatalf("small result: %.200s", small)
	}
}

// Every result the Streamer writes, small ones included (a retrieve with
// everything JSON escapes, a retrieve_many, an error), is byte for byte
// the result the SDK encodes from the call's outcome: the Streamer only
// saves the SDK's encodings (docs/servers.md, "Large results are encoded
// once").
func TestStreamedResultIsTheSDKs(t *testing.T) {
	env := opstest.New(t)
	env.WS.Write("esc.md", largeFile(2000))
	env.WS.Write("b.md", "# B\n\nA <b> & \"c\"\n")
	session := stdioSession(t, env, true)
	for _, c := range []struct{ tool, args string }{
		{"retrieve", `{"target":"esc.md","no_record":true}`},
		{"retrieve_many", `{"targets":["esc.md","b.md","missing.md"],"no_record":true}`},
		{"retrieve", `{"target":"missing.md","no_record":true}`},
		{"retrieve", `{"target":"esc.md","lines":"x","no_record":true}`},
	} {
		line := session(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + c.tool + `","arguments":` + c.args + `}}`)
		got, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), `{"jsonrpc":"2.0","id":7,"result":`)
		if !ok || strings.Contains(got, "retrieve-stream-") {
			t.Fatalf("%s %s: %.300s", c.tool, c.args, line)
		}
		got = strings.TrimSuffix(got, "}")
		op, _ := env.Table.Lookup(c.tool)
		oc := env.Table.Call(context.Background(), op, json.RawMessage(c.args), "mcp")
		b, err := json.Marshal(&mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: oc.Text + oc.TextData}},
			StructuredContent: oc.Value,
			IsError:           oc.Err != nil,
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := volatile.ReplaceAllString(got, ""), volatile.ReplaceAllString(string(b), ""); got != want {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s %s: the streamed result differs from the SDK's at byte %d of %d/%d: …%.80q… vs …%.80q…", c.tool, c.args, i, len(got), len(want), got[max(i-20, 0):], want[max(i-20, 0):])
		}
	}
}
