package mcpserver_test

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve/mcpserver"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// BenchmarkIOTransport is one tools/call retrieve over the stdio framing,
// in process (no pipes between processes): the server's own share.
func BenchmarkIOTransport(b *testing.B) {
	env := opstest.New(b)
	srv := mcpserver.New(env.Table, mcpserver.Options{Store: env.Deps.Store})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = srv.Run(ctx, &mcp.IOTransport{Reader: inR, Writer: outW}) }()
	r := bufio.NewReaderSize(outR, 1<<20)
	send := func(s string) { _, _ = io.WriteString(inW, s+"\n") }
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
	_, _ = r.ReadString('\n')
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, c := range []struct{ name, args string }{{"recorded", `{"target":"README.md"}`}, {"no_record", `{"target":"README.md","no_record":true}`}} {
		b.Run(c.name, func(b *testing.B) {
			call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"retrieve","arguments":` + c.args + `}}`
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
}
