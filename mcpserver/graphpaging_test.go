package mcpserver_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// ingestHub ingests, through graph_ingest, a hub with n spokes, each
// relation with a long supporting text, so that the evidence of a query
// about the hub is far over the message budget.
func ingestHub(t *testing.T, call func(string, map[string]any) map[string]any, n int) {
	t.Helper()
	var text strings.Builder
	entities := []any{map[string]any{"name": "hub", "type": "system"}}
	var relations []any
	for i := range n {
		spoke := fmt.Sprintf("spoke%03d", i)
		sentence := fmt.Sprintf("The hub links %s through a long and winding path that is described here at length, number %d.", spoke, i)
		text.WriteString(sentence + "\n")
		entities = append(entities, map[string]any{"name": spoke, "type": "component"})
		relations = append(relations, map[string]any{"source": "hub", "target": spoke, "type": "links to", "confidence": 0.9, "supporting_text": strings.TrimSuffix(sentence, ".")})
	}
	m := call("graph_ingest", map[string]any{"doc_id": "hubdoc", "title": "Hub", "content": text.String(),
		"extraction": map[string]any{"entities": entities, "relations": relations}})
	if m["edges_added"] != float64(n) {
		t.Fatalf("ingest = %v", m)
	}
}

// TestPagingGraph: graph_query and graph_evidence answers over the budget
// are read completely in pages: every page fits the budget, every edge
// comes once with the nodes it joins, every edge id resolves through
// retrieve as graph:edge/<id>; bad limits and foreign cursors are
// INPUT_VALIDATION_FAILED.
func TestPagingGraph(t *testing.T) {
	env := opstest.NewFull(t)
	cs := connect(t, env)
	mustCall := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, m := call(t, cs, name, args)
		if res.IsError {
			t.Fatalf("%s %v: %v", name, args, m["error"])
		}
		if n := messageSize(t, res); n > ops.DefaultBudget {
			t.Fatalf("%s: %d bytes, over the %d budget", name, n, ops.DefaultBudget)
		}
		return m
	}
	const spokes = 150
	ingestHub(t, mustCall, spokes)
	query := map[string]any{"query": "what does the hub link?", "max_nodes": 500}

	firstCursor := map[string]string{}
	for _, tool := range []string{"graph_query", "graph_evidence"} {
		t.Run(tool, func(t *testing.T) {
			edges, paths, pages := map[string]bool{}, 0, 0
			cursor := ""
			for {
				args := map[string]any{}
				for k, v := range query {
					args[k] = v
				}
				if cursor != "" {
					args["cursor"] = cursor
				}
				m := mustCall(tool, args)
				sub := m
				if tool == "graph_evidence" {
					sub = m["subgraph"].(map[string]any)
					paths += len(m["paths"].([]any))
				}
				nodes := sub["nodes"].(map[string]any)
				for _, e := range sub["edges"].([]any) {
					e := e.(map[string]any)
					id := e["id"].(string)
					if edges[id] {
						t.Fatalf("edge %s on two pages", id)
					}
					edges[id] = true
					if nodes[e["source"].(string)] == nil || nodes[e["target"].(string)] == nil {
						t.Fatalf("page %d lacks the nodes of edge %s", pages, id)
					}
				}
				if m["total_edges"] != float64(spokes) {
					t.Fatalf("total_edges = %v", m["total_edges"])
				}
				pages++
				cursor, _ = m["next_cursor"].(string)
				if pages == 1 {
					firstCursor[tool] = cursor
				}
				if cursor == "" {
					break
				}
			}
			if len(edges) != spokes || pages < 2 {
				t.Fatalf("%d edges in %d pages, want %d in several", len(edges), pages, spokes)
			}
			if tool == "graph_evidence" && paths != spokes {
				t.Errorf("%d paths over the pages, want one per spoke (%d)", paths, spokes)
			}
			// Every edge id is a citation retrieve resolves.
			for id := range edges {
				res, m := call(t, cs, "retrieve", map[string]any{"target": "graph:edge/" + id})
				data, _ := m["retrieved"].(map[string]any)["data"].(map[string]any)
				if res.IsError || m["citation"].(map[string]any)["reference"] != "graph:edge/"+id || data["type"] != "connects to" {
					t.Fatalf("retrieve graph:edge/%s = %v", id, m)
				}
				break
			}
		})
	}
	// graph_ask answers from the graph with the first page of the evidence;
	// graph_evidence takes its cursor and gives the rest.
	t.Run("Ask", func(t *testing.T) {
		m := mustCall("graph_ask", query)
		ev, _ := m["evidence"].(map[string]any)
		if m["answered_from"] != "graph" || ev == nil || ev["next_cursor"] == "" || ev["total_edges"] != float64(spokes) {
			t.Fatalf("ask = %v", m)
		}
		edges := len(ev["subgraph"].(map[string]any)["edges"].([]any))
		for cursor := ev["next_cursor"].(string); cursor != ""; {
			args := map[string]any{"cursor": cursor}
			for k, v := range query {
				args[k] = v
			}
			page := mustCall("graph_evidence", args)
			edges += len(page["subgraph"].(map[string]any)["edges"].([]any))
			cursor = page["next_cursor"].(string)
		}
		if edges != spokes {
			t.Errorf("ask's page and the graph_evidence pages after it hold %d edges, want %d", edges, spokes)
		}
	})
	t.Run("Limit", func(t *testing.T) {
		m := mustCall("graph_query", map[string]any{"query": "hub", "max_nodes": 500, "limit": 7})
		if n := len(m["edges"].([]any)); n != 7 || m["next_cursor"] == "" {
			t.Errorf("limit 7: %d edges, next_cursor %q", n, m["next_cursor"])
		}
		res, m := call(t, cs, "graph_query", map[string]any{"query": "hub", "max_nodes": 500, "limit": 0, "budget": 1 << 20})
		if res.IsError {
			t.Fatal(m["error"])
		}
		if n := len(m["edges"].([]any)); n != ops.DefaultGraphLimit {
			t.Errorf("limit 0: %d edges, want the default %d", n, ops.DefaultGraphLimit)
		}
	})
	for name, tc := range map[string]struct {
		tool string
		args map[string]any
	}{
		"ErrLimitNegative":  {"graph_query", map[string]any{"query": "hub", "limit": -1}},
		"ErrLimitOverMax":   {"graph_evidence", map[string]any{"query": "hub", "limit": ops.MaxGraphLimit + 1}},
		"ErrBudgetZero":     {"graph_query", map[string]any{"query": "hub", "budget": 0}},
		"ErrOtherFilters":   {"graph_query", map[string]any{"query": "hub", "max_nodes": 500, "cursor": firstCursor["graph_query"]}},
		"ErrOtherQuery":     {"graph_evidence", map[string]any{"query": "spoke", "max_nodes": 500, "cursor": firstCursor["graph_evidence"]}},
		"ErrQueryCursor":    {"graph_evidence", map[string]any{"query": "what does the hub link?", "max_nodes": 500, "cursor": firstCursor["graph_query"]}},
		"ErrMemoryCursor":   {"memory_list", map[string]any{"cursor": firstCursor["graph_query"]}},
		"ErrAlteredCursor":  {"graph_query", map[string]any{"query": "what does the hub link?", "max_nodes": 500, "cursor": strings.Replace(firstCursor["graph_query"], "e", "f", 1)}},
		"ErrForgedCursor":   {"graph_query", map[string]any{"query": "hub", "cursor": "eyJsIjoiZ3JhcGhfcXVlcnkiLCJmIjoiIiwibyI6MH0.0000000000000000"}},
		"ErrUnknownEdge":    {"retrieve", map[string]any{"target": "graph:edge/ffffffffffff.000000000000"}},
		"ErrMalformedEdge":  {"retrieve", map[string]any{"target": "graph:edge/nope"}},
		"ErrGraphReference": {"retrieve", map[string]any{"target": "graph:vertex/hub"}},
	} {
		t.Run(name, func(t *testing.T) {
			res, m := call(t, cs, tc.tool, tc.args)
			e, _ := m["error"].(map[string]any)
			want := "INPUT_VALIDATION_FAILED"
			if strings.HasPrefix(name, "ErrUnknownEdge") || strings.HasPrefix(name, "ErrMalformedEdge") {
				want = "NOT_FOUND"
			}
			if !res.IsError || e["code"] != want || e["hint"] == "" {
				t.Errorf("want %s with a hint, got %v", want, m["error"])
			}
		})
	}
}
