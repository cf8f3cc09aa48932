package mcpserver_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve/httpapi"
	"github.com/retrieve-dev/retrieve/mcpserver"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// manyTransport calls retrieve_many with args and returns the size of the
// message as it travelled (the JSON-RPC response, or the /v1 body) and
// the results.
type manyTransport func(t *testing.T, args string) (int, []map[string]any)

// manyTransports are the three ways a retrieve_many result travels: stdio
// MCP (streamed, as `serve --stdio` runs), streamable HTTP MCP, and /v1.
func manyTransports(t *testing.T, env *opstest.Env) map[string]manyTransport {
	decode := func(t *testing.T, rpc []byte) (int, []map[string]any) {
		t.Helper()
		var m struct {
			Result struct {
				IsError           bool `json:"isError"`
				StructuredContent struct {
					Results []map[string]any `json:"results"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal(rpc, &m); err != nil || m.Result.IsError {
			t.Fatalf("tools/call: %v %.400s", err, rpc)
		}
		return len(rpc), m.Result.StructuredContent.Results
	}
	session := stdioSession(t, env, true)
	stdio := func(t *testing.T, args string) (int, []map[string]any) {
		t.Helper()
		line := session(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"retrieve_many","arguments":` + args + `}}`)
		return decode(t, []byte(strings.TrimSuffix(line, "\n")))
	}

	opts := mcpserver.Options{Store: env.Deps.Store, Stream: mcpserver.NewStreamer(io.Discard)}
	srv := mcpserver.New(env.Table, opts)
	mcpHTTP := httptest.NewServer(opts.Stream.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)))
	t.Cleanup(mcpHTTP.Close)
	post := func(t *testing.T, sid, body string) (string, []byte) {
		t.Helper()
		req, _ := http.NewRequest("POST", mcpHTTP.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		// The response is one JSON body or an event stream: its message is
		// the data of the event that carries it.
		var msg []byte
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				msg = []byte(d)
			} else if strings.HasPrefix(sc.Text(), "{") {
				msg = append([]byte(nil), sc.Bytes()...)
			}
		}
		return resp.Header.Get("Mcp-Session-Id"), msg
	}
	sid, _ := post(t, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	post(t, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	overMCPHTTP := func(t *testing.T, args string) (int, []map[string]any) {
		t.Helper()
		_, msg := post(t, sid, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"retrieve_many","arguments":`+args+`}}`)
		return decode(t, msg)
	}

	v1 := httptest.NewServer(httpapi.New(env.Table, httpapi.Options{}))
	t.Cleanup(v1.Close)
	overV1 := func(t *testing.T, args string) (int, []map[string]any) {
		t.Helper()
		resp, err := http.Post(v1.URL+"/v1/retrieve_many", "application/json", strings.NewReader(args))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var m struct {
			Results []map[string]any `json:"results"`
		}
		if err := json.Unmarshal(body, &m); err != nil || resp.StatusCode != 200 {
			t.Fatalf("POST /v1/retrieve_many: %d %v %.400s", resp.StatusCode, err, body)
		}
		return len(strings.TrimSuffix(string(body), "\n")), m.Results
	}
	return map[string]manyTransport{"stdio": stdio, "mcp-http": overMCPHTTP, "v1": overV1}
}

// textOf builds a file of about size bytes from line, repeated.
func textOf(line string, size int) string {
	return strings.Repeat(line, max(size/len(line), 1))
}

// TestManyBudgetIsFilled (issue #28 point 4): retrieve_many gives every
// file what it needs when the sum fits the budget and shares what does not
// fit evenly, each cut naming its next part; the message as it travels is
// within the budget on every transport and uses most of it.
func TestManyBudgetIsFilled(t *testing.T) {
	env := opstest.New(t)
	files := func(prefix string, sizes []int, line string) []string {
		var names []string
		for i, size := range sizes {
			name := fmt.Sprintf("%s%02d.txt", prefix, i)
			env.WS.Write(name, textOf(fmt.Sprintf(line, i), size))
			names = append(names, name)
		}
		return names
	}
	repeat := func(n, size int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = size
		}
		return s
	}
	cases := []struct {
		name    string
		targets []string
		// budget is the budget over /v1; over MCP, where the data travels
		// twice (text block and structuredContent), mcpBudget when set.
		budget, mcpBudget int
		// whole are the targets that must come back whole; the others
		// must be cut, with next.
		whole int
		// even: the cut ones must get equal shares (within a line).
		even bool
	}{
		// Ten 3.6 KB files weigh 46.7 KB over /v1 whole (36.3 KB of data,
		// about 950 bytes of citation and fields each) and 85.5 KB over
		// MCP (the data twice): under budgets that hold them, all whole.
		{"ten small fit", files("small", repeat(10, 3650), "line %d of a small file read with nine others.\n"), 47000, 86000, 10, false},
		{"ten over", files("over", repeat(10, 5000), "line %d of a file a little too large for ten to fit.\n"), 40000, 0, 0, true},
		{"mixed", files("mixed", []int{500, 1200, 2500, 15000, 30000, 60000}, "mixed %d: a line of plain text in a file.\n"), 40000, 0, 3, true},
		{"unicode", files("uni", repeat(8, 6000), "ünïcödé %d «日本語» \"quoted\" <tag> & \\ \t tab\n"), 40000, 0, 0, true},
		{"huge and small", append(files("hs", repeat(9, 1000), "small %d next to a huge one.\n"), files("huge", []int{1 << 20}, "huge %d: a line of a very large log file\n")...), 40000, 0, 9, false},
	}
	for name, call := range manyTransports(t, env) {
		for _, c := range cases {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				budget := c.budget
				if name != "v1" && c.mcpBudget > 0 {
					budget = c.mcpBudget
				}
				args, _ := json.Marshal(map[string]any{"targets": c.targets, "budget": budget, "no_record": true})
				size, res := call(t, string(args))
				if len(res) != len(c.targets) {
					t.Fatalf("%d results for %d targets", len(res), len(c.targets))
				}
				if size > budget {
					t.Errorf("the message is %d bytes, over the budget of %d", size, budget)
				}
				whole, minCut, maxCut := 0, -1, 0
				for i, r := range res {
					x := r["extraction"].(map[string]any)
					data := r["retrieved"].(map[string]any)["data"].(string)
					if x["truncated"] == false && r["retrieved"].(map[string]any)["complete"] == true {
						whole++
						continue
					}
					if x["truncated"] != true || x["next"] == nil {
						t.Errorf("%s: cut without next: %v", c.targets[i], x)
					}
					if minCut < 0 || len(data) < minCut {
						minCut = len(data)
					}
					maxCut = max(maxCut, len(data))
				}
				if whole != c.whole {
					t.Errorf("%d of %d whole, want %d (message %d bytes)", whole, len(res), c.whole, size)
				}
				if whole < len(res) && size < budget*9/10 {
					t.Errorf("files were cut yet the message is %d bytes, under 90%% of %d", size, budget)
				}
				if c.even && whole < len(res) && maxCut-minCut > 160 {
					t.Errorf("uneven cuts: %d to %d bytes of data", minCut, maxCut)
				}
			})
		}
	}
}
