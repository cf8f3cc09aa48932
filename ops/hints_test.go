package ops_test

import (
	"testing"

	"github.com/retrieve-dev/retrieve/ops"
)

// TestHintFor: one hint, written once, names the tool to an MCP client,
// the route to an HTTP client and the command to a CLI user.
func TestHintFor(t *testing.T) {
	for _, c := range []struct{ transport, hint, want string }{
		{"mcp", "cite a successful retrieval; retrieve log --status ok lists them", "cite a successful retrieval; the retrieval_log tool (status: ok) lists them"},
		{"http", "cite a successful retrieval; retrieve log --status ok lists them", "cite a successful retrieval; /v1/retrieval_log (status: ok) lists them"},
		{"mcp", "list entries with `retrieve log`", "list entries with the retrieval_log tool"},
		{"mcp", `pass what to look for, e.g. retrieve memory overview "flask templates"`, `pass what to look for, e.g. the extract_overview tool "flask templates"`},
		{"mcp", `e.g. retrieve memory details --scope section --format-hints "Usage"`, `e.g. the extract_details tool (scope: section, format_hints: "Usage")`},
		{"cli", `e.g. retrieve memory details --scope section --format-hints "Usage"`, `e.g. retrieve memory details --scope section --format-hints "Usage"`},
		{"mcp", "search first with retrieve memory overview", "search first with the extract_overview tool"},
		{"mcp", "run `retrieve init` in the workspace", "run `retrieve init` in the workspace"},
		{"mcp", "retrieve only reads; nothing was changed", "retrieve only reads; nothing was changed"},
		{"mcp", "narrow it with --lines first, or retrieve it as text", "narrow it with --lines first, or retrieve it as text"},
		{"cli", "find them with graph_query or graph_evidence", "find them with `retrieve graph query` or `retrieve graph evidence`"},
		{"cli", "pass a retrieval_id from a result or from retrieval_log", "pass a retrieval_id from a result or from `retrieve log`"},
		{"cli", "retrieve log --status ok lists them", "retrieve log --status ok lists them"},
		{"cli", "pass a retrieval_id", "pass a retrieval_id"},
		{"mcp", "", ""},
	} {
		if got := ops.HintFor(c.transport, c.hint); got != c.want {
			t.Errorf("HintFor(%s, %q)\n got %q\nwant %q", c.transport, c.hint, got, c.want)
		}
	}
}
