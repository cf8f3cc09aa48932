package ops_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// ingestNotes puts notes.txt in the graph through graph_ingest, retrieved
// with its citation: two edges, one quoting "alpha", one "gamma".
func ingestNotes(t *testing.T, env *opstest.Env) {
	t.Helper()
	op, _ := env.Table.Lookup("graph_ingest")
	in := `{"doc_id": "notes", "title": "Notes", "target": "notes.txt", "extraction": {
		"entities": [{"name": "alpha", "type": "letter"}, {"name": "beta", "type": "letter"}, {"name": "gamma", "type": "letter"}],
		"relations": [{"source": "alpha", "target": "beta", "type": "precedes", "confidence": 1, "supporting_text": "alpha"},
		              {"source": "beta", "target": "gamma", "type": "precedes", "confidence": 1, "supporting_text": "gamma"}]}}`
	if oc := env.Table.Call(context.Background(), op, json.RawMessage(in), "mcp"); oc.Err != nil {
		t.Fatalf("ingest: %v", oc.Err)
	}
}

// graph_verify and graph_forget through the table as an MCP client calls
// them, with a transport's progress in the context: a changed source makes
// exactly the edge whose text left it stale; a forget's dry run lists and
// changes nothing, the real one tombstones, records its ledger entry and
// reports progress; forget of nothing is INPUT_VALIDATION_FAILED.
func TestGraphCurateTools(t *testing.T) {
	env := opstest.NewFull(t)
	ingestNotes(t, env)
	var steps []string
	ctx := ops.WithProgress(context.Background(), func(done, total int, msg string) {
		steps = append(steps, msg)
	})
	call := func(name, in string) (any, string) {
		t.Helper()
		op, ok := env.Table.Lookup(name)
		if !ok {
			t.Fatalf("no op %s", name)
		}
		oc := env.Table.Call(ctx, op, json.RawMessage(in), "mcp")
		if oc.Err != nil {
			return nil, string(oc.Err.Code)
		}
		return oc.Value, ""
	}
	env.WS.Write("notes.txt", "omega\nbeta\ngamma\ndelta\n")
	out, e := call("graph_verify", `{}`)
	rep, _ := out.(*graph.VerifyReport)
	if e != "" || rep.Documents != 1 || rep.Changed != 1 || rep.Stale != 1 || rep.Fresh != 1 || len(rep.StaleEdges) != 1 ||
		rep.StaleEdges[0].From != "alpha" || rep.StaleEdges[0].Diff == "" {
		t.Fatalf("verify: %v %+v", e, out)
	}
	if len(steps) != 1 || steps[0] != "verifying documents" {
		t.Fatalf("verify progress: %v", steps)
	}
	if _, e := call("graph_verify", `{"doc_ids": ["no-such-doc"]}`); e == "" {
		t.Fatal("verify of an unknown document succeeded")
	}
	out, e = call("graph_forget", `{"source": "notes.txt", "dry_run": true}`)
	f, _ := out.(*graph.ForgetOutput)
	if e != "" || !f.DryRun || len(f.Documents) != 1 || f.Total.Edges != 2 || len(f.Documents[0].Edges) != 2 || f.LedgerID != "" {
		t.Fatalf("dry run: %v %+v", e, out)
	}
	out, e = call("graph_forget", `{"source": "notes.txt"}`)
	f, _ = out.(*graph.ForgetOutput)
	if e != "" || f.DryRun || f.Total.Edges != 2 || f.By != "agent (MCP/HTTP)" || f.LedgerID == "" {
		t.Fatalf("forget: %v %+v", e, out)
	}
	if steps[len(steps)-1] != "forgetting edges" {
		t.Fatalf("forget progress: %v", steps)
	}
	out, e = call("graph_query", `{"query": "alpha"}`)
	if b, _ := json.Marshal(out); e != "" || strings.Contains(string(b), `"precedes"`) {
		t.Fatalf("a forgotten edge is still found: %v %s", e, b)
	}
	if _, e := call("graph_forget", `{}`); e != "INPUT_VALIDATION_FAILED" {
		t.Fatalf("forget of nothing: %q", e)
	}
	// The forget's ledger entry records no retrieval: show_retrieval says
	// so instead of returning an empty result.
	if out, e := call("show_retrieval", `{"retrieval_id": "`+f.LedgerID+`"}`); e != "INVALID_OPERATION" {
		t.Fatalf("show of a forget entry: %q %+v", e, out)
	}
}
