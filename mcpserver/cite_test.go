package mcpserver_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// TestCiteTool: cite_retrieval is `retrieve cite` over MCP: the citation
// of a recorded retrieval, in each style, that check_citations verifies;
// a failed retrieval or an unknown style is refused.
func TestCiteTool(t *testing.T) {
	cs := connect(t, opstest.NewFull(t))
	_, res := call(t, cs, "retrieve", map[string]any{"target": "notes.txt", "lines": "2-3"})
	id := fmt.Sprint(res["retrieval_id"])
	hash := fmt.Sprint(res["citation"].(map[string]any)["hash"])
	for style, want := range map[string]string{
		"markdown": `[notes.txt:2-3](notes.txt:2-3 "` + hash + `")`,
		"footnote": "[^notes]: notes.txt:2-3 " + hash,
		"csl-json": `"URL": "retrieval:` + id + `"`,
	} {
		r, out := call(t, cs, "cite_retrieval", map[string]any{"retrieval_id": id, "style": style, "label": "notes"})
		got := fmt.Sprint(out["citation"])
		if r.IsError || !strings.Contains(got, want) || out["hash"] != hash {
			t.Errorf("%s: got %v, want a citation holding %s", style, out, want)
		}
		if style == "csl-json" {
			continue
		}
		doc := "The notes say \"beta\" " + strings.TrimSpace(got) + "\n"
		if style == "footnote" {
			doc = "The notes say \"beta\" [^notes].\n\n" + got
		}
		_, rep := call(t, cs, "check_citations", map[string]any{"text": doc})
		if rep["citations"] != 1.0 || rep["ok"] != 1.0 {
			t.Errorf("%s: check_citations of %q = %v, want 1 citation ok", style, doc, rep)
		}
	}
	for name, args := range map[string]map[string]any{
		"ErrStyle":  {"retrieval_id": id, "style": "apa"},
		"ErrNoID":   {},
		"ErrFailed": {"retrieval_id": "0192f0c4-7a3e-7b61-9d2a-5b1e8f0c3d21"},
	} {
		r, out := call(t, cs, "cite_retrieval", args)
		if !r.IsError || out["error"] == nil {
			t.Errorf("%s: got %v, want an error", name, out)
		}
	}
}
