package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve/internal/testws"
)

// edgeCaller calls one operation by its MCP tool name, over MCP or over
// HTTP, and returns whether it failed and the structured result.
type edgeCaller func(t *testing.T, tool string, args map[string]any) (failed bool, res map[string]any)

// TestEdgeBadInput holds issue 17's "Bad input" and the request-shape rules
// of docs/servers.md at the edge, through the real binary: `retrieve serve
// --stdio` driven by the Go SDK client, and `retrieve serve --http` on a
// loopback port. Each case runs over both.
func TestEdgeBadInput(t *testing.T) {
	ws := testws.New(t)
	ws.Write("notes.txt", "alpha\nbeta\ngamma\n")
	ws.Write("big.txt", strings.Repeat("a line of text that is long enough to add up\n", 8000))
	if out, err := exec.Command(binary(t), "--root", ws.Root, "init").CombinedOutput(); err != nil {
		t.Fatalf("init: %v %s", err, out)
	}
	if out, err := exec.Command(binary(t), "--root", ws.Root, "memory", "init").CombinedOutput(); err != nil {
		t.Fatalf("memory init: %v %s", err, out)
	}

	stdio := exec.Command(binary(t), "--root", ws.Root, "serve", "--stdio", "--max-budget", "200000")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "edge", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: stdio}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	overMCP := func(t *testing.T, tool string, args map[string]any) (bool, map[string]any) {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return true, map[string]any{"error": map[string]any{"code": "PROTOCOL", "message": err.Error()}}
		}
		b, _ := json.Marshal(res.StructuredContent)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		return res.IsError, m
	}
	base, _ := startHTTP(t, ws.Root, nil, "--http", "127.0.0.1:0", "--max-budget", "200000")
	overHTTP := func(t *testing.T, tool string, args map[string]any) (bool, map[string]any) {
		t.Helper()
		var resp *http.Response
		var err error
		if tool == "retrieval_log" || tool == "show_retrieval" || tool == "memory_list" { // read-only: GET with a query
			q := url.Values{}
			for k, v := range args {
				q.Set(k, fmt.Sprint(v))
			}
			resp, err = http.Get(base + "/v1/" + tool + "?" + q.Encode())
		} else {
			body, _ := json.Marshal(args)
			resp, err = http.Post(base+"/v1/"+tool, "application/json", strings.NewReader(string(body)))
		}
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatalf("%s: status %d, not JSON: %v", tool, resp.StatusCode, err)
		}
		return resp.StatusCode >= 400, m
	}

	t.Run("HTTP/WrongMethod", func(t *testing.T) {
		resp, err := http.Post(base+"/v1/retrieval_log", "application/json", strings.NewReader(`{"limit": 1}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		if e, _ := m["error"].(map[string]any); resp.StatusCode < 400 || resp.Header.Get("Allow") != "GET" || !strings.Contains(fmt.Sprint(e["hint"]), "send GET /v1/retrieval_log") {
			t.Errorf("POST to a GET operation: status %d, Allow %q, %v", resp.StatusCode, resp.Header.Get("Allow"), m)
		}
	})
	t.Run("HTTP/QueryParameters", func(t *testing.T) {
		for q, want := range map[string]string{"limit=ten": "whole number", "nope=1": "known parameters: ", "op=all&limit=-": "whole number"} {
			resp, err := http.Get(base + "/v1/retrieval_log?" + q)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			_ = json.NewDecoder(resp.Body).Decode(&m)
			resp.Body.Close()
			if e, _ := m["error"].(map[string]any); resp.StatusCode != 400 || e["code"] != "INPUT_VALIDATION_FAILED" || !strings.Contains(fmt.Sprint(e["hint"]), want) {
				t.Errorf("?%s: status %d, %v; want a hint with %q", q, resp.StatusCode, m, want)
			}
		}
	})
	for name, call := range map[string]edgeCaller{"MCP": overMCP, "HTTP": overHTTP} {
		refused := func(t *testing.T, tool string, args map[string]any, code, mention string) {
			t.Helper()
			failed, m := call(t, tool, args)
			e, _ := m["error"].(map[string]any)
			if !failed || e == nil || e["code"] != code || !strings.Contains(fmt.Sprint(e["message"], " ", e["hint"]), mention) {
				t.Errorf("%s %v: want %s mentioning %q, got failed=%v %v", tool, args, code, mention, failed, m)
			}
			if e != nil && (e["hint"] == "" || strings.Contains(fmt.Sprint(e["message"]), code+":")) {
				t.Errorf("%s %v: the error has no hint, or repeats its code in its message: %v", tool, args, e)
			}
		}
		ok := func(t *testing.T, tool string, args map[string]any) map[string]any {
			t.Helper()
			failed, m := call(t, tool, args)
			if failed || m["error"] != nil {
				t.Fatalf("%s %v: %v", tool, args, m)
			}
			return m
		}
		t.Run(name+"/Budget", func(t *testing.T) {
			for _, b := range []any{0, -1, 100} {
				refused(t, "retrieve", map[string]any{"target": "notes.txt", "budget": b}, "INPUT_VALIDATION_FAILED", "budget")
				refused(t, "retrieval_log", map[string]any{"budget": b}, "INPUT_VALIDATION_FAILED", "budget")
			}
			// Above the server maximum: capped, and the result says so.
			m := ok(t, "retrieve", map[string]any{"target": "big.txt", "budget": 10 << 20})
			if !strings.Contains(fmt.Sprint(m["assumptions"]), "200000") {
				t.Errorf("a budget over the maximum: no assumption names the cap: %v", m["assumptions"])
			}
			if ext := m["extraction"].(map[string]any); ext["next"] == nil {
				t.Errorf("a 360 KB file under a 200,000-byte cap came whole or without next: %v", ext)
			}
			m = ok(t, "retrieve_many", map[string]any{"targets": []any{"notes.txt", "big.txt"}, "budget": 10 << 20})
			for _, r := range m["results"].([]any) {
				if !strings.Contains(fmt.Sprint(r.(map[string]any)["assumptions"]), "200000") {
					t.Errorf("retrieve_many over the maximum: a result does not name the cap: %v", r.(map[string]any)["assumptions"])
				}
			}
			m = ok(t, "retrieval_log", map[string]any{"budget": 10 << 20})
			if !strings.Contains(fmt.Sprint(m), "200000") {
				t.Errorf("retrieval_log over the maximum: no note names the cap: %v", m)
			}
		})
		t.Run(name+"/Shapes", func(t *testing.T) {
			refused(t, "retrieve", map[string]any{"target": "notes.txt", "constraints": map[string]any{"lines": "1", "filters": "x"}},
				"INPUT_VALIDATION_FAILED", "known keys: bytes, lines, max_bytes")
			refused(t, "retrieve", map[string]any{"target": "notes.txt", "lines": "1", "constraints": map[string]any{"lines": "2"}},
				"INPUT_VALIDATION_FAILED", "given twice")
			refused(t, "retrieve", map[string]any{"target": "notes.txt", "constraints": "lines 1-2"}, "INPUT_VALIDATION_FAILED", "constraints must be an object")
			refused(t, "retrieve", map[string]any{"target": "notes.txt", "constraints": map[string]any{"lines": 5}}, "INPUT_VALIDATION_FAILED", "lines")
			refused(t, "retrieve", map[string]any{"target": []any{"notes.txt"}}, "INPUT_VALIDATION_FAILED", "target")
			refused(t, "retrieve", map[string]any{"target": "notes.txt", "budget": "big"}, "INPUT_VALIDATION_FAILED", "budget")
			refused(t, "retrieve", map[string]any{"target": "notes.txt", "format": "nope"}, "INPUT_VALIDATION_FAILED", "format")
			refused(t, "retrieve", map[string]any{"target": "notes.txt", "fallback": "cache"}, "INPUT_VALIDATION_FAILED", "fallback")
			refused(t, "retrieve", map[string]any{"target": "notes.txt", "max_bytes": -1}, "INPUT_VALIDATION_FAILED", "max_bytes")
			refused(t, "retrieve_many", map[string]any{"targets": []any{"notes.txt"}, "format": "nope"}, "INPUT_VALIDATION_FAILED", "format")
			m := ok(t, "retrieve", map[string]any{"target": "notes.txt", "constraints": map[string]any{"lines": "2-3"}})
			if m["retrieved"].(map[string]any)["data"] != "beta\ngamma\n" {
				t.Errorf("nested lines: %v", m["retrieved"])
			}
			id, _ := m["retrieval_id"].(string)
			// The old names: ref (quote), id (verify, show).
			ok(t, "check_quote", map[string]any{"ref": "notes.txt", "text": "beta"})
			ok(t, "check_quote", map[string]any{"reference": "notes.txt", "text": "beta"})
			ok(t, "verify_citation", map[string]any{"id": id})
			ok(t, "show_retrieval", map[string]any{"id": id})
			refused(t, "verify_citation", map[string]any{"id": id, "retrieval_id": "01a20d6e-6a00-700c-ba14-55e73a7c5b75"}, "INPUT_VALIDATION_FAILED", "retrieval_id")
		})
		t.Run(name+"/Cursors", func(t *testing.T) {
			for range 3 {
				ok(t, "retrieve", map[string]any{"target": "notes.txt", "lines": "1"})
			}
			m := ok(t, "retrieval_log", map[string]any{"limit": 1})
			cursor, _ := m["next_cursor"].(string)
			if cursor == "" {
				t.Fatalf("retrieval_log limit 1: no next_cursor: %v", m)
			}
			refused(t, "memory_list", map[string]any{"cursor": cursor}, "INPUT_VALIDATION_FAILED", "cursor")
			refused(t, "retrieval_log", map[string]any{"cursor": "forged-cursor"}, "INPUT_VALIDATION_FAILED", "cursor")
			refused(t, "retrieval_log", map[string]any{"cursor": cursor[:len(cursor)-2] + "AA"}, "INPUT_VALIDATION_FAILED", "cursor")
			refused(t, "retrieval_log", map[string]any{"limit": -1}, "INPUT_VALIDATION_FAILED", "limit")
			refused(t, "retrieval_log", map[string]any{"limit": 100000}, "INPUT_VALIDATION_FAILED", "limit")
		})
	}
}
