package ops_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// TestHintFor: one hint, written once, names the tool to an MCP client,
// the route to an HTTP client and the command to a CLI user.
func TestHintFor(t *testing.T) {
	for _, c := range []struct{ transport, hint, want string }{
		{"mcp", "cite a successful retrieval; retrieve log --status ok lists them", "cite a successful retrieval; the retrieval_log tool (status: ok) lists them"},
		{"http", "cite a successful retrieval; retrieve log --status ok lists them", "cite a successful retrieval; /v1/retrieval_log (status: ok) lists them"},
		{"mcp", "list entries with `retrieve log`", "list entries with the retrieval_log tool"},
		{"mcp", `pass what to look for, e.g. retrieve memory overview "flask templates"`, `pass what to look for, e.g. the extract_overview tool (query: "flask templates")`},
		{"mcp", `e.g. retrieve memory details --scope section --format-hints "Usage"`, `e.g. the extract_details tool (scope: section, format_hints: "Usage")`},
		{"cli", `e.g. retrieve memory details --scope section --format-hints "Usage"`, `e.g. retrieve memory details --scope section --format-hints "Usage"`},
		{"mcp", "search first with retrieve memory overview", "search first with the extract_overview tool"},
		{"mcp", "run `retrieve init` in the workspace", "run `retrieve init` in the workspace"},
		{"mcp", "retrieve only reads; nothing was changed", "retrieve only reads; nothing was changed"},
		// Positional arguments become the tool's arguments (issue 28).
		{"mcp", `pass the text to check: retrieve quote REF "text"`, `pass the text to check: the check_quote tool (target: REF, text: "text")`},
		{"http", `pass the text to check: retrieve quote REF "text"`, `pass the text to check: /v1/check_quote (target: REF, text: "text")`},
		{"mcp", "retrieve verify ID, retrieve verify result.json, or retrieve verify --all", "the verify_citation tool (retrieval_id: ID), the verify_citation tool (retrieval_id: result.json), or the verify_citation tool (all: true)"},
		{"mcp", "re-read it: retrieve get notes.txt:3-5 --max-bytes 100", "re-read it: the retrieve tool (target: notes.txt:3-5, max_bytes: 100)"},
		{"mcp", "retrieve log lists them", "the retrieval_log tool lists them"},
		// Flags in prose become argument names, except after a command
		// without a tool.
		{"mcp", "narrow it with --lines first, or retrieve it as text", "narrow it with `lines` first, or retrieve it as text"},
		{"http", "pass --format binary for base64, or raise --max-bytes", "pass `format: binary` for base64, or raise `max_bytes`"},
		{"cli", "narrow it with --lines first", "narrow it with --lines first"},
		{"mcp", "run `retrieve init --force` first", "run `retrieve init --force` first"},
		{"mcp", "run retrieve gc --keep 10 first", "run retrieve gc --keep 10 first"},
		{"mcp", "pass it as content (in the CLI: --file, --url or --stdin)", "pass it as content (in the CLI: --file, --url or --stdin)"},
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

// TestHintsNameTheToolPerTransport: the hints of real errors name the
// tool and its arguments to an MCP client and the route to an HTTP client
// — a positional argument's error included — never a CLI command or flag
// (issue 28; cmd/retrieve TestHintsNameTheCommand is the CLI's side).
func TestHintsNameTheToolPerTransport(t *testing.T) {
	env := opstest.New(t)
	env.WS.Write("blob.bin", "\x00\x01\x02binary")
	for _, c := range []struct{ op, in, mcp, http string }{
		{"check_quote", `{"target": "README.md", "text": ""}`, `the check_quote tool (target: REF, text: "text")`, `/v1/check_quote (target: REF, text: "text")`},
		{"retrieve", `{"target": "blob.bin", "lines": "1"}`, "`format: binary`", "`format: binary`"},
	} {
		for transport, want := range map[string]string{"mcp": c.mcp, "http": c.http} {
			o, _ := env.Table.Lookup(c.op)
			oc := env.Table.Call(context.Background(), o, json.RawMessage(c.in), transport)
			hint := ""
			if oc.Err != nil {
				hint = oc.Err.Hint
			} else if r, ok := oc.Value.(*retrieve.Result); ok && r.Error != nil {
				hint = r.Error.Hint
			}
			if !strings.Contains(hint, want) || strings.Contains(hint, "retrieve quote") || strings.Contains(hint, "--") {
				t.Errorf("%s %s over %s: hint %q, want it to name %s and no CLI form", c.op, c.in, transport, hint, want)
			}
		}
	}
}
