package mcpserver_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve/mcpserver"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// BenchmarkIOTransport is one tools/call over the stdio framing, in
// process (no pipes between processes): the server's own share, of a
// retrieve and of a retrieve_many of ten small files.
func BenchmarkIOTransport(b *testing.B) {
	env := opstest.New(b)
	var ten []string
	for i := range 10 {
		name := fmt.Sprintf("f%d.md", i)
		env.WS.Write(name, fmt.Sprintf("# File %d\n\n", i)+strings.Repeat(fmt.Sprintf("Line of small file %d, read with nine others in one call.\n", i), 20+i))
		ten = append(ten, `"`+name+`"`)
	}
	many := `{"targets":[` + strings.Join(ten, ",") + `],"budget":100000`
	cases := []struct{ name, tool, args string }{
		{"recorded", "retrieve", `{"target":"README.md"}`},
		{"no_record", "retrieve", `{"target":"README.md","no_record":true}`},
		// test/mcpclient/bench.mjs's retrieve_many: ten small files whole.
		{"many10/recorded", "retrieve_many", many + `}`},
		{"many10/no_record", "retrieve_many", many + `,"no_record":true}`},
	}
	// As `serve --stdio` runs (the Streamer writes the results), and with
	// the SDK encoding them.
	for _, streamed := range []bool{true, false} {
		mode := "stream"
		if !streamed {
			mode = "sdk"
		}
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
		defer cancel()
		go func() { _ = srv.Run(ctx, tr) }()
		r := bufio.NewReaderSize(outR, 1<<20)
		send := func(s string) { _, _ = io.WriteString(inW, s+"\n") }
		send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
		_, _ = r.ReadString('\n')
		send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		for _, c := range cases {
			benchCall(b, mode+"/"+c.name, c.tool, c.args, send, r)
		}
	}
}

// benchCall times tools/call of tool with args over a session's pipes.
func benchCall(b *testing.B, name, tool, args string, send func(string), r *bufio.Reader) {
	b.Run(name, func(b *testing.B) {
		call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
		for b.Loop() {
			send(call)
			s, err := r.ReadString('\n')
			for err == nil && strings.HasPrefix(s, `{"jsonrpc":"2.0","method":"notifications/`) {
				s, err = r.ReadString('\n')
			}
			if err != nil || !strings.Contains(s, "structuredContent") {
				b.Fatal(err, s)
			}
		}
	})
}

// BenchmarkStreamableHTTPSmallRead is issue #31.2's comparison over MCP:
// tools/call retrieve of 20 lines of one of 1000 small files on the
// streamable HTTP transport as `serve --http` runs it (the Streamer's
// handler), one session per client, 16 clients, against
// opstest.BareRead (../shared/bench/baseline's work) in the same process;
// req/s and the process's CPU per request (clients included).
func BenchmarkStreamableHTTPSmallRead(b *testing.B) {
	env := opstest.New(b)
	env.SmallFiles(1000)
	opts := mcpserver.Options{Store: env.Deps.Store, Stream: mcpserver.NewStreamer(io.Discard)}
	srv := mcpserver.New(env.Table, opts)
	ours := httptest.NewServer(opts.Stream.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)))
	defer ours.Close()
	bare := httptest.NewServer(opstest.BareRead(env.WS.Root))
	defer bare.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 16}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	post := func(url, session, body string) (string, error) {
		req, err := http.NewRequest("POST", url, strings.NewReader(body))
		if err != nil {
			return "", err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		}
		resp, err := hc.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return "", err
		}
		if resp.StatusCode >= 300 {
			return "", fmt.Errorf("%s", resp.Status)
		}
		return resp.Header.Get("Mcp-Session-Id"), nil
	}
	for _, c := range []struct{ name, extra string }{{"bare", ""}, {"no_record", `,"no_record":true`}, {"recorded", ""}} {
		b.Run(c.name, func(b *testing.B) {
			var n atomic.Int64
			b.SetParallelism((16 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			start := opstest.CPUTime()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				session := ""
				if c.name != "bare" {
					s, err := post(ours.URL, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
					if err == nil {
						_, err = post(ours.URL, s, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
					}
					if err != nil {
						b.Error(err)
						return
					}
					session = s
				}
				for pb.Next() {
					i := n.Add(1) % 1000
					var err error
					if c.name == "bare" {
						_, err = post(bare.URL, "", fmt.Sprintf(`{"target":"f%d.txt","lines":"1-20"}`, i))
					} else {
						_, err = post(ours.URL, session, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"retrieve","arguments":{"target":"f%d.txt","lines":"1-20"%s}}}`, i, c.extra))
					}
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
			b.ReportMetric(float64(opstest.CPUTime()-start)/float64(b.N)/1e3, "cpu-us/op")
		})
	}
}
