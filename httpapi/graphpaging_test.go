package httpapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/httpapi"
)

// TestGraphPaging: /v1/graph_evidence pages by limit and cursor, each page
// valid against the OpenAPI document; an edge id is a graph:edge/
// citation /v1/retrieve resolves; a cursor of other filters and a bad
// limit are 400 INPUT_VALIDATION_FAILED.
func TestGraphPaging(t *testing.T) {
	_, c := start(t, httpapi.Options{})
	var text strings.Builder
	entities := []any{map[string]any{"name": "hub", "type": "system"}}
	var relations []any
	for i := range 25 {
		spoke := fmt.Sprintf("spoke%02d", i)
		fmt.Fprintf(&text, "The hub feeds %s.\n", spoke)
		entities = append(entities, map[string]any{"name": spoke, "type": "component"})
		relations = append(relations, map[string]any{"source": "hub", "target": spoke, "type": "uses", "confidence": 1, "supporting_text": "hub feeds " + spoke})
	}
	body, _ := json.Marshal(map[string]any{"doc_id": "hub", "title": "Hub", "content": text.String(), "extraction": map[string]any{"entities": entities, "relations": relations}})
	if status, m := c.call("POST", "/v1/graph_ingest", string(body)); status != 200 || m["edges_added"] != float64(25) {
		t.Fatalf("ingest: %d %v", status, m)
	}
	seen := map[string]bool{}
	cursor, pages, first := "", 0, ""
	for {
		req, _ := json.Marshal(map[string]any{"query": "hub", "limit": 10, "cursor": cursor})
		status, m := c.call("POST", "/v1/graph_evidence", string(req))
		if status != 200 {
			t.Fatalf("page %d: %d %v", pages, status, m)
		}
		for _, e := range m["subgraph"].(map[string]any)["edges"].([]any) {
			seen[e.(map[string]any)["id"].(string)] = true
		}
		for _, p := range m["paths"].([]any) {
			hop := p.(map[string]any)["hops"].([]any)[0].(map[string]any)
			if !seen[strings.TrimPrefix(hop["edge"].(string), "graph:edge/")] {
				t.Errorf("page %d: a path's edge %v is not on its page", pages, hop["edge"])
			}
		}
		pages++
		cursor = m["next_cursor"].(string)
		if pages == 1 {
			first = cursor
		}
		if cursor == "" {
			break
		}
	}
	if len(seen) != 25 || pages != 3 {
		t.Fatalf("%d edges in %d pages, want 25 in 3", len(seen), pages)
	}
	for id := range seen {
		status, m := c.call("POST", "/v1/retrieve", fmt.Sprintf(`{"target":"graph:edge/%s"}`, id))
		if status != 200 || m["citation"].(map[string]any)["reference"] != "graph:edge/"+id {
			t.Fatalf("retrieve graph:edge/%s: %d %v", id, status, m)
		}
		break
	}
	for name, q := range map[string]string{
		"ErrOtherFilters": fmt.Sprintf(`{"query":"spoke","cursor":%q}`, first),
		"ErrQueryCursor":  fmt.Sprintf(`{"query":"hub","limit":10,"cursor":%q}`, first),
		"ErrLimit":        `{"query":"hub","limit":-3}`,
		"ErrLimitOverMax": `{"query":"hub","limit":5000}`,
	} {
		status, m := c.call("POST", "/v1/graph_query", q)
		if status != 400 || m["error"].(map[string]any)["code"] != "INPUT_VALIDATION_FAILED" {
			t.Errorf("%s: %d %v", name, status, m)
		}
	}
	status, m := c.call("POST", "/v1/retrieve", `{"target":"graph:edge/ffffffffffff.000000000000"}`)
	if status != 404 || m["error"].(map[string]any)["code"] != "NOT_FOUND" {
		t.Errorf("unknown edge: %d %v", status, m)
	}
}
