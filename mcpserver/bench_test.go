package mcpserver_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
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
