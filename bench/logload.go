//go:build ignore

// logload sends small reads to a `retrieve serve --http` on loopback, over
// the HTTP API (POST /v1/retrieve) or MCP (streamable HTTP, one session,
// tools/call retrieve), one call at a time, and prints one JSON line: the
// calls, the errors, p50 and p95 in milliseconds. bench/logcost.sh runs
// it; build it with `go build -o logload bench/logload.go`.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"
)

func main() {
	base := flag.String("url", "", "the server, http://127.0.0.1:PORT (loopback only)")
	mode := flag.String("mode", "http", "http (POST /v1/retrieve) or mcp (POST /mcp, tools/call retrieve)")
	n := flag.Int("n", 2000, "calls")
	files := flag.Int("files", 1000, "read f0.txt … f(files-1).txt in turn")
	flag.Parse()
	if !strings.HasPrefix(*base, "http://127.0.0.1:") {
		fmt.Fprintln(os.Stderr, "loopback only")
		os.Exit(2)
	}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	post := func(path, session, body string) (string, error) {
		req, err := http.NewRequest("POST", *base+path, strings.NewReader(body))
		if err != nil {
			return "", err
		}
		req.Header.Set("Content-Type", "application/json")
		if *mode == "mcp" {
			req.Header.Set("Accept", "application/json, text/event-stream")
			if session != "" {
				req.Header.Set("Mcp-Session-Id", session)
				req.Header.Set("MCP-Protocol-Version", "2025-06-18")
			}
		}
		resp, err := hc.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return "", err
		}
		if resp.StatusCode >= 300 {
			return "", fmt.Errorf("%s: %s", resp.Status, b)
		}
		if *mode == "mcp" && strings.Contains(string(b), `"isError":true`) {
			return "", fmt.Errorf("tool error: %s", b)
		}
		return resp.Header.Get("Mcp-Session-Id"), nil
	}
	session := ""
	if *mode == "mcp" {
		var err error
		session, err = post("/mcp", "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"logload","version":"1"}}}`)
		if err == nil {
			_, err = post("/mcp", session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "initialize:", err)
			os.Exit(1)
		}
	}
	lat := make([]time.Duration, 0, *n)
	errs := 0
	var lastErr error
	for i := 0; i < *n; i++ {
		f := fmt.Sprintf("f%d.txt", i%*files)
		var err error
		t0 := time.Now()
		if *mode == "mcp" {
			_, err = post("/mcp", session, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"retrieve","arguments":{"target":%q,"lines":"1-20"}}}`, i+1, f))
		} else {
			_, err = post("/v1/retrieve", "", fmt.Sprintf(`{"target":%q,"lines":"1-20"}`, f))
		}
		lat = append(lat, time.Since(t0))
		if err != nil {
			errs++
			lastErr = err
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	ms := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
	out, _ := json.Marshal(map[string]any{"n": *n, "errors": errs, "p50_ms": ms(0.5), "p95_ms": ms(0.95)})
	fmt.Println(string(out))
	if lastErr != nil {
		fmt.Fprintln(os.Stderr, "last error:", lastErr)
	}
}
