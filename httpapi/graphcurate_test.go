package httpapi_test

import (
	"testing"

	"github.com/retrieve-dev/retrieve/httpapi"
)

// /v1/graph_verify and /v1/graph_forget: a changed source makes its edge
// stale; a dry run lists, the forget tombstones and names its ledger
// entry, which /v1/log lists; forget of nothing is 400.
func TestGraphCurateRoutes(t *testing.T) {
	env, c := start(t, httpapi.Options{})
	if status, m := c.call("POST", "/v1/graph_ingest", `{"doc_id": "notes", "title": "Notes", "target": "notes.txt", "extraction": {
		"entities": [{"name": "alpha", "type": "letter"}, {"name": "beta", "type": "letter"}],
		"relations": [{"source": "alpha", "target": "beta", "type": "precedes", "confidence": 1, "supporting_text": "alpha"}]}}`); status != 200 {
		t.Fatalf("ingest: %d %v", status, m)
	}
	env.WS.Write("notes.txt", "omega\nbeta\n")
	if status, m := c.call("POST", "/v1/graph_verify", `{}`); status != 200 || m["stale"] != float64(1) || m["changed"] != float64(1) {
		t.Fatalf("verify: %d %v", status, m)
	}
	if status, m := c.call("POST", "/v1/graph_forget", `{"source": "notes.txt", "dry_run": true}`); status != 200 || m["dry_run"] != true ||
		m["total"].(map[string]any)["edges"] != float64(1) || m["ledger_id"] != nil {
		t.Fatalf("dry run: %d %v", status, m)
	}
	status, m := c.call("POST", "/v1/graph_forget", `{"source": "notes.txt"}`)
	if status != 200 || m["total"].(map[string]any)["edges"] != float64(1) || m["ledger_id"] == nil {
		t.Fatalf("forget: %d %v", status, m)
	}
	id := m["ledger_id"].(string)
	status, m = c.call("GET", "/v1/log?op=all", "")
	found := false
	for _, e := range m["entries"].([]any) {
		e := e.(map[string]any)
		found = found || e["retrieval_id"] == id && e["op"] == "forget" && e["target"] == "notes.txt"
	}
	if status != 200 || !found {
		t.Fatalf("the forget's ledger entry %s is not in the log: %d %v", id, status, m)
	}
	if status, m := c.call("POST", "/v1/graph_forget", `{}`); status != 400 || m["error"].(map[string]any)["code"] != "INPUT_VALIDATION_FAILED" {
		t.Fatalf("forget of nothing: %d %v", status, m)
	}
}
