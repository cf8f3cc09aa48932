package ops_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// graph_summary through the table as an MCP call: the graph's and the
// notes' counts, each list cut at the limit with the cursor of its next
// page in more, and that cursor pages the list to its end.
func TestGraphSummaryOp(t *testing.T) {
	env := opstest.NewFull(t)
	ctx := context.Background()
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		op, ok := env.Table.Lookup(name)
		if !ok {
			t.Fatalf("no %s", name)
		}
		raw, _ := json.Marshal(args)
		oc := env.Table.Call(ctx, op, raw, "mcp")
		if oc.Err != nil {
			t.Fatalf("%s: %v", name, oc.Err)
		}
		var m map[string]any
		b, _ := json.Marshal(oc.Value)
		_ = json.Unmarshal(b, &m)
		return m
	}
	var text strings.Builder
	entities := []any{map[string]any{"name": "hub", "type": "system"}}
	var relations []any
	for i := range 12 {
		spoke := fmt.Sprintf("spoke%02d", i)
		fmt.Fprintf(&text, "The hub links %s. ", spoke)
		entities = append(entities, map[string]any{"name": spoke, "type": fmt.Sprintf("kind%02d", i)})
		relations = append(relations, map[string]any{"source": "hub", "target": spoke, "type": "links to", "confidence": 0.9, "supporting_text": "hub links " + spoke})
	}
	call("graph_ingest", map[string]any{"doc_id": "hub", "title": "Hub", "content": text.String(), "extraction": map[string]any{"entities": entities, "relations": relations}})
	call("memory_write", map[string]any{"memory_type": "semantic", "title": "Hub notes", "content": "The hub links spokes.", "tags": []string{"hub", "design"}})
	s := call("graph_summary", map[string]any{"limit": 5})
	g := s["graph"].(map[string]any)
	if g["edges"] != float64(12) || g["entities"] != float64(13) || g["entity_type_total"] != float64(13) {
		t.Fatalf("graph part: %v", g)
	}
	hubs := g["most_connected"].([]any)
	if len(hubs) != 5 || hubs[0].(map[string]any)["name"] != "hub" || hubs[0].(map[string]any)["degree"] != float64(12) {
		t.Errorf("most connected: %v", hubs)
	}
	notes := s["notes"].(map[string]any) // the env holds a note of its own
	if notes["notes"] != float64(2) || !strings.Contains(fmt.Sprint(notes["by_tag"]), "type:hub") {
		t.Errorf("notes part: %v", notes)
	}
	more := s["more"].(map[string]any)
	if more["entity_types"] == nil || more["most_connected"] == nil || more["note_tags"] != nil {
		t.Fatalf("more: %v", more)
	}
	if b, _ := json.Marshal(s); len(b) > 4096 {
		t.Errorf("the overview is %d bytes", len(b))
	}
	// Page the entity types to the end: all 13, each once.
	seen := map[string]bool{}
	for _, it := range g["entity_types"].([]any) {
		seen[it.(map[string]any)["type"].(string)] = true
	}
	cursor := more["entity_types"].(string)
	for cursor != "" {
		p := call("graph_summary", map[string]any{"list": "entity_types", "limit": 5, "cursor": cursor})
		for _, it := range p["graph"].(map[string]any)["entity_types"].([]any) {
			typ := it.(map[string]any)["type"].(string)
			if seen[typ] {
				t.Errorf("type %s twice", typ)
			}
			seen[typ] = true
		}
		if len(p["graph"].(map[string]any)["most_connected"].([]any)) != 0 {
			t.Error("a paged list carries the other lists")
		}
		cursor, _ = p["next_cursor"].(string)
	}
	if len(seen) != 13 {
		t.Errorf("paged entity types: %d of 13", len(seen))
	}
	op, _ := env.Table.Lookup("graph_summary")
	if oc := env.Table.Call(ctx, op, json.RawMessage(`{"list":"most_connected","cursor":"`+more["entity_types"].(string)+`"}`), "mcp"); oc.Err == nil {
		t.Error("a cursor of another list was taken")
	}
}
