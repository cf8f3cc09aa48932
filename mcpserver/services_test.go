package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve/mcpserver"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/ops/opstest"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// validateOutput checks a tool result against the full output schema of
// its op (the one docs/openapi.yaml publishes; tools/list carries none), or
// the error body on failure.
func validateOutput(t *testing.T, table *ops.Table, name string, res *mcp.CallToolResult) {
	t.Helper()
	op, ok := table.Lookup(name)
	if !ok {
		t.Fatalf("no op %s", name)
	}
	schema := op.Output
	if res.IsError {
		// A failure is the op's own envelope (result ops, memory) or {error}.
		schema = json.RawMessage(`{"anyOf": [` + string(op.Output) + `, {"type": "object", "required": ["error"]}]}`)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("out.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("out.json")
	if err != nil {
		t.Fatalf("%s: output schema: %v", name, err)
	}
	vb := mustMarshal(res.StructuredContent)
	v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(vb))
	if err := s.Validate(v); err != nil {
		t.Errorf("%s: structuredContent does not match its output schema: %v\n%s", name, err, vb)
	}
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// TestServiceTools calls every tool of memory, the graph and the wiki
// through MCP: one success and one error each, outputs checked against the
// advertised schemas, and the wiki page as a resource.
func TestServiceTools(t *testing.T) {
	env := opstest.NewFull(t)
	srv := mcpserver.New(env.Table, mcpserver.Options{Store: env.Deps.Store, Resources: []mcpserver.Resource{mcpserver.WikiResource(env.Wiki)}})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tl := range list.Tools {
		tools[tl.Name] = tl
	}
	for _, want := range []string{"extract_overview", "extract_details", "memory_write", "memory_list", "memory_read", "graph_ingest", "graph_query", "graph_evidence", "graph_ask", "wiki_search", "wiki_read", "wiki_write", "wiki_lint"} {
		if tools[want] == nil {
			t.Fatalf("tool %s missing", want)
		}
	}
	if tools["memory_write"].Annotations.ReadOnlyHint || !tools["wiki_read"].Annotations.ReadOnlyHint {
		t.Error("readOnlyHint wrong")
	}
	tr := &transcript{root: env.WS.Root}
	for _, c := range []struct {
		name   string
		args   map[string]any
		failed bool
	}{
		{"wiki_write", map[string]any{"category": "topic", "title": "Why deploys fail", "content": "# Why deploys fail\n\nThe staging token expires. See [[memory-leak]].\n"}, false},
		{"wiki_write", map[string]any{"category": "nope", "title": "x", "content": "y"}, true},
		{"wiki_read", map[string]any{"slug": "why-deploys-fail"}, false},
		{"wiki_read", map[string]any{"slug": "absent-page"}, true},
		{"wiki_search", map[string]any{"query": "staging token"}, false},
		{"wiki_lint", map[string]any{}, false},
		{"memory_list", map[string]any{"memory_type": "semantic"}, false},
		{"memory_list", map[string]any{"memory_type": "bogus"}, true},
		{"memory_write", map[string]any{"memory_type": "semantic", "title": "Tokens rotate weekly", "content": "From the ops runbook.", "tags": []string{"deploy"}}, false},
		{"memory_read", map[string]any{"target": "sem-20250120-001"}, false},
		{"extract_overview", map[string]any{"target": "staging token"}, false},
		{"extract_overview", map[string]any{"target": ""}, true},
		{"extract_details", map[string]any{"target": "semantic/deploys-need-the-staging-token.md"}, false},
		{"graph_query", map[string]any{"query": "Why do deploys fail?"}, false},
		{"graph_query", map[string]any{"query": ""}, true},
		{"query_with_evidence", map[string]any{"query": "Why do deploys fail?"}, false}, // a former name
		{"graph_ask", map[string]any{"query": "Why do deploys fail?"}, false},
		{"graph_ingest", map[string]any{"doc_id": "x"}, true},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.name, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s: protocol error %v", c.name, err)
		}
		tr.add(fmt.Sprintf("tools/call %s %s", c.name, mustJSON(c.args)), res)
		if res.IsError != c.failed {
			t.Errorf("%s %v: isError %v: %v", c.name, c.args, res.IsError, res.Content[0].(*mcp.TextContent).Text)
			continue
		}
		if c.failed {
			b, _ := json.Marshal(res.StructuredContent)
			if !bytes.Contains(b, []byte(`"code"`)) || !bytes.Contains(b, []byte(`"hint"`)) {
				t.Errorf("%s: error without {code, hint}: %s", c.name, b)
			}
		}
		validateOutput(t, env.Table, c.name, res)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "retrieve://wiki/topic/why-deploys-fail"})
	if err != nil || !bytes.Contains([]byte(rr.Contents[0].Text), []byte("staging token expires")) {
		t.Fatalf("wiki resource: %v %+v", err, rr)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "retrieve://wiki/topic/absent"}); err == nil {
		t.Fatal("absent wiki page read as a resource")
	}
	tr.check(t, "services.txtar")
}
