package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve/internal/testws"
)

// BenchmarkServeStdio is the wire time of one small-file retrieve call over
// real stdio to the built binary, as the Go SDK client sees it (target:
// p50 ≤ 0.5 ms). test/mcpclient/bench.mjs compares it with the Node
// filesystem server in the same run.
func BenchmarkServeStdio(b *testing.B) {
	ws := testws.New(b)
	ws.Write("small.md", "# Small\n\n"+strings.Repeat("A line of a small markdown file used to time one read.\n", 30))
	if out, err := exec.Command(binary(&testing.T{}), "--root", ws.Root, "init").CombinedOutput(); err != nil {
		b.Fatalf("init: %v %s", err, out)
	}
	for _, mode := range []struct {
		name string
		args map[string]any
	}{
		{"recorded", map[string]any{"target": "small.md"}},
		{"no_record", map[string]any{"target": "small.md", "no_record": true}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			cmd := exec.Command(binary(&testing.T{}), "--root", ws.Root, "serve", "--stdio")
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: "retrieve", Arguments: mode.args}
			for range 100 {
				if _, err := cs.CallTool(context.Background(), params); err != nil {
					b.Fatal(err)
				}
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				res, err := cs.CallTool(context.Background(), params)
				lat = append(lat, time.Since(t0))
				if err != nil || res.IsError {
					b.Fatalf("%v %+v", err, res)
				}
			}
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
		})
	}
}

// BenchmarkServeStdioWire is the wire time of one small-file retrieve call
// over real stdio with no client library: write one JSON-RPC line, read
// the response line. It is the server's share of a call (target p50 ≤ 0.5 ms).
func BenchmarkServeStdioWire(b *testing.B) {
	ws := testws.New(b)
	ws.Write("small.md", "# Small\n\n"+strings.Repeat("A line of a small markdown file used to time one read.\n", 30))
	if out, err := exec.Command(binary(&testing.T{}), "--root", ws.Root, "init").CombinedOutput(); err != nil {
		b.Fatalf("init: %v %s", err, out)
	}
	for _, mode := range []struct{ name, args string }{
		{"recorded", `{"target":"small.md"}`},
		{"no_record", `{"target":"small.md","no_record":true}`},
	} {
		b.Run(mode.name, func(b *testing.B) {
			cmd := exec.Command(binary(&testing.T{}), "--root", ws.Root, "serve", "--stdio")
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			defer func() { stdin.Close(); _ = cmd.Wait() }()
			r := bufio.NewReaderSize(stdout, 1<<20)
			send := func(line string) {
				if _, err := io.WriteString(stdin, line+"\n"); err != nil {
					b.Fatal(err)
				}
			}
			recv := func() string {
				s, err := r.ReadString('\n')
				for err == nil && strings.HasPrefix(s, `{"jsonrpc":"2.0","method":"notifications/`) {
					s, err = r.ReadString('\n')
				}
				if err != nil {
					b.Fatal(err)
				}
				return s
			}
			send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
			recv()
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"retrieve","arguments":` + mode.args + `}}`
			for range 100 {
				send(call)
				if s := recv(); !strings.Contains(s, `"structuredContent"`) || strings.Contains(s, `"isError":true`) {
					b.Fatalf("bad response %s", s)
				}
			}
			lat := make([]time.Duration, 0, b.N)
			cpu0, cpuOK := serverCPU(cmd.Process.Pid)
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				send(call)
				recv()
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			if cpu1, ok := serverCPU(cmd.Process.Pid); ok && cpuOK {
				b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(b.N), "srv-cpu-us/op")
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
		})
	}
}

// serverCPU is the CPU time the process pid has spent so far, summed over
// its threads from /proc/PID/task/*/schedstat (nanoseconds on the CPU):
// unlike wall time it holds still when other work loads the machine, and it
// counts the server's background work (the ledger journal's fold) too. ok
// is false where /proc cannot say.
func serverCPU(pid int) (time.Duration, bool) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(tasks) == 0 {
		return 0, false
	}
	var sum time.Duration
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // a thread that just ended
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return 0, false
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, false
		}
		sum += time.Duration(ns)
	}
	return sum, true
}
