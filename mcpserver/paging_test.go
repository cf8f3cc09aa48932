package mcpserver_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// messageSize is the size of a tool result as it travels: its JSON.
func messageSize(t *testing.T, res *mcp.CallToolResult) int {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return res, m
}

// TestPagingALargeFile: a file far over the budget is read completely by
// following extraction.next; every part fits the budget, has its own
// citation whose hash covers exactly its data, and the parts join to the
// whole file.
func TestPagingALargeFile(t *testing.T) {
	env := opstest.New(t)
	var whole strings.Builder
	for i := 1; whole.Len() < 300_000; i++ {
		fmt.Fprintf(&whole, "line %d \"quoted\" \\ and some text to fill the line\n", i)
	}
	env.WS.Write("big.log", whole.String())
	cs := connect(t, env)
	var joined strings.Builder
	target, parts := "big.log", 0
	for target != "" {
		res, m := call(t, cs, "retrieve", map[string]any{"target": target})
		if res.IsError {
			t.Fatalf("part %d: %v", parts, m["error"])
		}
		if n := messageSize(t, res); n > ops.DefaultBudget {
			t.Fatalf("part %d is %d bytes, over the %d budget", parts, n, ops.DefaultBudget)
		}
		data := m["retrieved"].(map[string]any)["data"].(string)
		sum := sha256.Sum256([]byte(data))
		if got := m["citation"].(map[string]any)["hash"]; got != "sha256:"+hex.EncodeToString(sum[:]) {
			t.Fatalf("part %d: hash %v does not cover its data", parts, got)
		}
		joined.WriteString(data)
		next, _ := m["extraction"].(map[string]any)["next"].(string)
		target = next
		parts++
	}
	if joined.String() != whole.String() {
		t.Fatalf("the %d parts do not join to the file (%d of %d bytes)", parts, joined.Len(), whole.Len())
	}
	if parts < 8 {
		t.Fatalf("%d parts: the budget did not cut the file", parts)
	}
}

// TestPagingMemoryList: 1,200 notes through memory_list pages; every note
// once, every page within the budget; cursors of another list, of other
// filters or altered are INPUT_VALIDATION_FAILED.
func TestPagingMemoryList(t *testing.T) {
	env := opstest.NewFull(t)
	for i := range 1200 {
		env.WS.Write(fmt.Sprintf("memory/semantic/n%05d.md", i), fmt.Sprintf("---\nmemory_entry_id: sem-20250121-%05d\ntitle: \"Note %d\"\nmemory_type: semantic\ntags: [\"bulk\"]\ncreated: \"2025-01-20T10:00:00Z\"\nupdated: \"2025-01-20T10:00:00Z\"\n---\n\nbody %d\n", i, i, i))
	}
	cs := connect(t, env)
	seen := map[string]bool{}
	cursor, pages := "", 0
	var firstCursor string
	for {
		args := map[string]any{"tags": []string{"bulk"}, "limit": 1000}
		if cursor != "" {
			args["cursor"] = cursor
		}
		res, m := call(t, cs, "memory_list", args)
		if res.IsError {
			t.Fatalf("page %d: %v", pages, m["error"])
		}
		if n := messageSize(t, res); n > ops.DefaultBudget {
			t.Fatalf("page %d is %d bytes, over the budget", pages, n)
		}
		for _, e := range m["entries"].([]any) {
			id := e.(map[string]any)["memory_entry_id"].(string)
			if seen[id] {
				t.Fatalf("%s listed twice", id)
			}
			seen[id] = true
		}
		pages++
		cursor, _ = m["next_cursor"].(string)
		if pages == 1 {
			firstCursor = cursor
		}
		if cursor == "" {
			break
		}
	}
	if len(seen) != 1200 || pages < 3 {
		t.Fatalf("%d notes in %d pages, want 1200 in several", len(seen), pages)
	}
	for name, tc := range map[string]struct {
		tool string
		args map[string]any
	}{
		"other filters": {"memory_list", map[string]any{"tags": []string{"other"}, "cursor": firstCursor}},
		"other list":    {"log", map[string]any{"cursor": firstCursor}},
		"altered":       {"memory_list", map[string]any{"tags": []string{"bulk"}, "cursor": strings.Replace(firstCursor, "e", "f", 1)}},
		"garbage":       {"memory_list", map[string]any{"cursor": "not-a-cursor"}},
		"budget 0":      {"memory_list", map[string]any{"budget": 0}},
		"budget < 0":    {"retrieve", map[string]any{"target": "notes.txt", "budget": -5}},
	} {
		res, m := call(t, cs, tc.tool, tc.args)
		e, _ := m["error"].(map[string]any)
		if !res.IsError || e["code"] != "INPUT_VALIDATION_FAILED" {
			t.Errorf("%s: want INPUT_VALIDATION_FAILED, got %v", name, m["error"])
		}
	}
	// Above the server maximum: capped, and the result says so.
	_, m := call(t, cs, "retrieve", map[string]any{"target": "notes.txt", "budget": 1 << 30})
	if !strings.Contains(fmt.Sprint(m["assumptions"]), "above this server's maximum") {
		t.Errorf("a capped budget is not reported: %v", m["assumptions"])
	}
}

// toolListBudget is the default tool list's budget: 14 KB, the size of the
// reference filesystem server's list (13.0 KB), issue 33.
const toolListBudget = 14_000

// fullToolListBudget is half of what tools/list cost before issue 17
// (43,146 bytes for the 18 tools of a full workspace, measured over stdio):
// the list of --toolsets all; plus 2,000 bytes for issue 30's notes side
// (memory_why, memory_forget, memory_outdated, and the evidence, stale and
// as-of arguments of memory_write and extract_overview) and 1,500 for its
// graph side (as_of and stale on the three graph queries, valid times of
// relations, and the graph_summary tool), and 1,100 for the graph_verify
// and graph_forget tools.
const fullToolListBudget = 43_146/2 + 2_000 + 1_500 + 1_100

// TestToolListSize: the default tool list (ops.DefaultToolsets) stays under
// its budget and --toolsets all under its own, every input property is
// described, no input uses a type union, and annotations are set on every
// tool.
func TestToolListSize(t *testing.T) {
	env := opstest.NewFull(t)
	allCS := connect(t, env)
	all, err := allCS.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(all); len(b) > fullToolListBudget {
		t.Errorf("the list of every tool is %d bytes, over its budget of %d", len(b), fullToolListBudget)
	}
	def, err := env.Table.Select(nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	env.Table = def
	cs := connect(t, env)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	t.Logf("tools/list: %d tools, %d bytes (budget %d)", len(res.Tools), len(b), toolListBudget)
	if len(b) > toolListBudget {
		for _, tool := range res.Tools {
			tb, _ := json.Marshal(tool)
			t.Logf("  %-22s %5d", tool.Name, len(tb))
		}
		t.Errorf("the default tool list is %d bytes, over its budget of %d", len(b), toolListBudget)
	}
	for _, tool := range all.Tools {
		if tool.Annotations == nil || tool.Annotations.OpenWorldHint == nil {
			t.Errorf("%s: annotations incomplete", tool.Name)
		}
		var in struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		ib, _ := json.Marshal(tool.InputSchema)
		_ = json.Unmarshal(ib, &in)
		for name, p := range in.Properties {
			if d, _ := p["description"].(string); d == "" {
				t.Errorf("%s.%s has no description", tool.Name, name)
			}
			if _, union := p["type"].([]any); union {
				t.Errorf("%s.%s has a type union %v", tool.Name, name, p["type"])
			}
		}
	}
}
