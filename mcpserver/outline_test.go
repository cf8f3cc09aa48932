package mcpserver_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// TestOutlineTool: outline over MCP outlines a file, and pages through a
// directory of source files (an item is one file's outline) within the
// budget, every file once, files without symbols and ignored files left
// out; bad limits, cursors, kinds and targets outside the workspace are
// INPUT_VALIDATION_FAILED.
func TestOutlineTool(t *testing.T) {
	env := opstest.NewFull(t)
	const n = 120
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "package pkg\n\n")
		for j := range 12 {
			fmt.Fprintf(&b, "// Func%03d_%02d does a thing.\nfunc Func%03d_%02d(a, b int) int { return a + b }\n\n", i, j, i, j)
		}
		env.WS.Write(fmt.Sprintf("src/pkg/f%03d.go", i), b.String())
	}
	env.WS.Write("src/pkg/empty.go", "package pkg\n")
	env.WS.Write("src/pkg/notes.md", "# Not code\n")
	env.WS.Write("src/.gitignore", "gen/\n")
	env.WS.Write("src/gen/g.go", "package gen\n\nfunc Generated() {}\n")
	env.WS.InitGit()
	cs := connect(t, env)

	res, m := call(t, cs, "outline", map[string]any{"target": "src/pkg/f000.go", "kinds": []string{"function"}})
	if res.IsError {
		t.Fatal(m["error"])
	}
	o := m["outlines"].([]any)
	if len(o) != 1 || len(o[0].(map[string]any)["symbols"].([]any)) != 12 {
		t.Fatalf("file outline = %v", m)
	}

	seen := map[string]bool{}
	cursor, pages, first := "", 0, ""
	for {
		args := map[string]any{"target": "src"}
		if cursor != "" {
			args["cursor"] = cursor
		}
		res, m := call(t, cs, "outline", args)
		if res.IsError {
			t.Fatalf("page %d: %v", pages, m["error"])
		}
		if size := messageSize(t, res); size > ops.DefaultBudget {
			t.Fatalf("page %d: %d bytes, over the budget", pages, size)
		}
		if m["files"] != float64(n+1) {
			t.Fatalf("files = %v, want %d (the .go files, not notes.md nor the ignored gen/)", m["files"], n+1)
		}
		for _, o := range m["outlines"].([]any) {
			target := o.(map[string]any)["target"].(string)
			if seen[target] || strings.HasSuffix(target, "empty.go") {
				t.Fatalf("%s listed twice or without symbols", target)
			}
			seen[target] = true
		}
		pages++
		cursor, _ = m["next_cursor"].(string)
		if pages == 1 {
			first = cursor
		}
		if cursor == "" {
			break
		}
	}
	if len(seen) != n || pages < 3 {
		t.Fatalf("%d files in %d pages, want %d in several", len(seen), pages, n)
	}
	_, m = call(t, cs, "outline", map[string]any{"target": "src", "limit": 5})
	if len(m["outlines"].([]any)) != 5 || m["next_cursor"] == "" {
		t.Errorf("limit 5: %v outlines, next %v", len(m["outlines"].([]any)), m["next_cursor"])
	}

	for name, args := range map[string]map[string]any{
		"ErrLimitNegative": {"target": "src", "limit": -1},
		"ErrLimitOverMax":  {"target": "src", "limit": ops.MaxOutlineLimit + 1},
		"ErrOtherKinds":    {"target": "src", "kinds": []string{"method"}, "cursor": first},
		"ErrOtherTarget":   {"target": "src/pkg", "cursor": first},
		"ErrForged":        {"target": "src", "cursor": "e30.0011223344556677"},
		"ErrLogCursor":     {"target": "src", "cursor": logCursor()},
		"ErrBadKind":       {"target": "src", "kinds": []string{"functions"}},
		"ErrOtherSource":   {"target": "doc:d1"}, // the graph source: not the workspace
		"ErrEmpty":         {"target": ""},
		"ErrBudget":        {"target": "src", "budget": 10},
	} {
		t.Run(name, func(t *testing.T) {
			res, m := call(t, cs, "outline", args)
			e, _ := m["error"].(map[string]any)
			if !res.IsError || e["code"] != "INPUT_VALIDATION_FAILED" || e["hint"] == "" {
				t.Errorf("want INPUT_VALIDATION_FAILED with a hint, got %v", m["error"])
			}
		})
	}
	t.Run("ErrMissingFile", func(t *testing.T) {
		res, m := call(t, cs, "outline", map[string]any{"target": "src/nope.go"})
		if e, _ := m["error"].(map[string]any); !res.IsError || e["code"] != "PATH_NOT_FOUND" {
			t.Errorf("missing file: %v", m["error"])
		}
	})
}

// logCursor is a cursor of the log: a cursor of another list.
func logCursor() string {
	c := ops.Cursor{List: "retrieval_log", Filter: ops.Fingerprint(), Offset: 1}
	return c.Encode()
}
