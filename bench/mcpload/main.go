// Command mcpload is ../shared/bench/loadgen for the MCP streamable HTTP
// transport: each of -c clients opens a session (initialize, then
// notifications/initialized) and sends tools/call requests on it, -n in
// all, keep-alive, and it prints one JSON line as loadgen does (requests
// per second, p50 and p99 latency of the calls, errors). A call counts as
// an error unless it answers 200 with a result that is not an error.
// Loopback only. bench/peers.sh runs it beside loadgen; a module of its
// own, so that it is not in the retrieve binary.
//
//	mcpload -url http://127.0.0.1:PORT/mcp -c 16 -n 20000 -tool retrieve -args '{"target":"f%d.txt","lines":"1-20"}'
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const protocol = "2025-06-18"

func main() {
	url := flag.String("url", "", "the MCP endpoint (loopback only)")
	tool := flag.String("tool", "retrieve", "the tool to call")
	args := flag.String("args", "", "the tool's arguments (JSON); %d is replaced by the request number modulo -mod")
	mod := flag.Int("mod", 1000, "modulus for %d in -args")
	n := flag.Int("n", 20000, "calls")
	c := flag.Int("c", 16, "concurrent clients, one session each")
	flag.Parse()
	if !strings.HasPrefix(*url, "http://127.0.0.1:") {
		fmt.Fprintln(os.Stderr, "mcpload: loopback only (http://127.0.0.1:PORT/mcp)")
		os.Exit(2)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: *c, MaxConnsPerHost: *c}
	cl := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	lat := make([]time.Duration, *n)
	var next, errs, non2xx int64
	var firstErr atomic.Value
	fail := func(err error) {
		atomic.AddInt64(&errs, 1)
		firstErr.CompareAndSwap(nil, err.Error())
	}
	var wg sync.WaitGroup
	sessions := make([]string, *c)
	for w := range sessions {
		s, err := open(cl, *url)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mcpload: open a session:", err)
			os.Exit(1)
		}
		sessions[w] = s
	}
	start := time.Now()
	for w := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := atomic.AddInt64(&next, 1) - 1
				if i >= int64(*n) {
					return
				}
				a := strings.ReplaceAll(*args, "%d", fmt.Sprint(int(i)%*mod))
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, i+1, *tool, a)
				t0 := time.Now()
				status, b, err := post(cl, *url, sessions[w], body)
				lat[i] = time.Since(t0)
				switch {
				case err != nil:
					fail(err)
				case status/100 != 2:
					atomic.AddInt64(&non2xx, 1)
					firstErr.CompareAndSwap(nil, fmt.Sprintf("HTTP %d: %.200s", status, b))
				case !bytes.Contains(b, []byte(`"result"`)) || bytes.Contains(b, []byte(`"isError":true`)):
					fail(fmt.Errorf("not a result: %.300s", b))
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	p := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
	out := map[string]any{"n": *n, "c": *c, "seconds": el.Seconds(), "rps": float64(*n) / el.Seconds(),
		"p50_ms": p(0.5), "p99_ms": p(0.99), "errors": errs, "non2xx": non2xx}
	if e := firstErr.Load(); e != nil {
		out["first_error"] = e
	}
	_ = json.NewEncoder(os.Stdout).Encode(out)
}

// open starts a session and returns its id.
func open(cl *http.Client, url string) (string, error) {
	req, err := request(url, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+protocol+`","capabilities":{},"clientInfo":{"name":"mcpload","version":"1"}}}`)
	if err != nil {
		return "", err
	}
	resp, err := cl.Do(req)
	if err != nil {
		return "", err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		return "", fmt.Errorf("initialize: HTTP %d, session %q: %.200s", resp.StatusCode, id, b)
	}
	status, b, err := post(cl, url, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err == nil && status/100 != 2 {
		err = fmt.Errorf("notifications/initialized: HTTP %d: %.200s", status, b)
	}
	return id, err
}

func request(url, session, body string) (*http.Request, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("MCP-Protocol-Version", protocol)
	}
	return req, nil
}

// post sends body on the session and returns the status and the body.
func post(cl *http.Client, url, session, body string) (int, []byte, error) {
	req, err := request(url, session, body)
	if err != nil {
		return 0, nil, err
	}
	resp, err := cl.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}
