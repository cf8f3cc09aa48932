//go:build unix

package ops_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// BenchmarkGraphPage is the server-side cost of one graph_evidence call
// over MCP on an answer of 300 edges (about 6 pages at the default
// budget): the first page, a page deep in the answer (its cursor), and
// the whole answer in one call (a budget that holds it), for comparison:
// a page runs the whole query again and cuts it.
func BenchmarkGraphPage(b *testing.B) {
	env := opstest.NewFull(b)
	ctx := context.Background()
	const spokes = 300
	var text strings.Builder
	entities := []any{map[string]any{"name": "hub", "type": "system"}}
	var relations []any
	for i := range spokes {
		spoke := fmt.Sprintf("spoke%03d", i)
		fmt.Fprintf(&text, "The hub links %s through a described path, number %d.\n", spoke, i)
		entities = append(entities, map[string]any{"name": spoke, "type": "component"})
		relations = append(relations, map[string]any{"source": "hub", "target": spoke, "type": "links to", "confidence": 0.9, "supporting_text": "hub links " + spoke})
	}
	in, _ := json.Marshal(map[string]any{"doc_id": "hub", "title": "Hub", "content": text.String(), "extraction": map[string]any{"entities": entities, "relations": relations}})
	ingest, _ := env.Table.Lookup("graph_ingest")
	if oc := env.Table.Call(ctx, ingest, in, "mcp"); oc.Err != nil {
		b.Fatal(oc.Err)
	}
	op, _ := env.Table.Lookup("graph_evidence")
	call := func(b *testing.B, args map[string]any) map[string]any {
		raw, _ := json.Marshal(args)
		oc := env.Table.Call(ctx, op, raw, "mcp")
		if oc.Err != nil {
			b.Fatal(oc.Err)
		}
		var m map[string]any
		j, _ := json.Marshal(oc.Value)
		_ = json.Unmarshal(j, &m)
		return m
	}
	query := func() map[string]any { return map[string]any{"query": "what does the hub link?", "max_nodes": 400} }
	// The cursor of the last page.
	var last string
	for c := ""; ; {
		args := query()
		args["cursor"] = c
		m := call(b, args)
		if m["next_cursor"] == "" {
			break
		}
		c, last = m["next_cursor"].(string), m["next_cursor"].(string)
	}
	whole := query()
	whole["budget"] = 1 << 20
	whole["limit"] = 1000
	deep := query()
	deep["cursor"] = last
	for _, c := range []struct {
		name string
		args map[string]any
	}{{"first", query()}, {"last", deep}, {"whole", whole}} {
		b.Run(c.name, func(b *testing.B) {
			before := opstest.CPUTime()
			for b.Loop() {
				call(b, c.args)
			}
			// CPU time (user+sys) per call: steadier than wall time on a
			// machine shared with other work.
			b.ReportMetric(float64(opstest.CPUTime()-before)/float64(b.N), "cpu-ns/op")
		})
	}
}
