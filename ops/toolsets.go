package ops

import (
	"sort"
	"strings"

	"github.com/retrieve-dev/retrieve"
)

// Toolsets are the named groups of tools a server can be started with
// (`serve --toolsets`, RETRIEVE_TOOLSETS, `mcp install --toolsets`). Every
// op of the table belongs to exactly one (TestToolsetsCoverEveryOp), so
// every tool is reachable by naming its set. "all" names them all.
var Toolsets = map[string][]string{
	// read: fetch and check what a source says.
	"read": {"retrieve", "retrieve_many", "outline", "check_quote", "verify_citation", "check_citations"},
	// ledger: what was retrieved before.
	"ledger": {"retrieval_log", "show_retrieval", "cite_retrieval"},
	// memory: the agent's notes (seed 004).
	"memory": {"extract_overview", "extract_details", "memory_write", "memory_list", "memory_read", "memory_why"},
	// curate: retire knowledge (destructive; not served by default).
	"curate": {"memory_forget", "memory_outdated", "graph_forget"},
	// graph: the knowledge graph (seed 003).
	"graph": {"graph_ingest", "graph_query", "graph_evidence", "graph_ask", "graph_summary", "graph_verify"},
	// wiki: the workspace wiki.
	"wiki": {"wiki_search", "wiki_read", "wiki_write", "wiki_lint"},
	// session: recorded agent sessions.
	"session": {"session_list", "session_show", "session_verify"},
}

// DefaultToolsets are served when no toolset or tool is named: the tools an
// agent needs on every task, within the size of the reference filesystem
// server's tool list (docs/servers.md, "Toolsets").
var DefaultToolsets = []string{"read", "ledger", "memory"}

// ToolsetNames lists the toolsets, sorted, then "all".
func ToolsetNames() []string {
	out := make([]string, 0, len(Toolsets)+1)
	for n := range Toolsets {
		out = append(out, n)
	}
	sort.Strings(out)
	return append(out, "all")
}

// ToolsetOf returns the toolset of the op called name, or "".
func ToolsetOf(name string) string {
	for set, names := range Toolsets {
		for _, n := range names {
			if n == name {
				return set
			}
		}
	}
	return ""
}

// Select keeps the ops a server serves: the ones named in tools (current or
// former names) when any is, else those of toolsets (DefaultToolsets when
// empty; "all" for every op); with readOnly, only those that change nothing.
// An unknown tool or toolset name is INPUT_VALIDATION_FAILED with the names
// that exist.
func (t *Table) Select(toolsets, tools []string, readOnly bool) (*Table, error) {
	want := map[string]bool{}
	for _, n := range tools {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		op, ok := t.Lookup(n)
		if !ok {
			return nil, retrieve.Errorf(retrieve.CodeInputValidation, "no tool %q", n).
				WithHint("tools of this workspace: %s", strings.Join(t.Names(), ", "))
		}
		want[op.Name] = true
	}
	if len(want) == 0 {
		sets := toolsets
		if len(sets) == 0 {
			sets = DefaultToolsets
		}
		for _, s := range sets {
			s = strings.TrimSpace(s)
			switch {
			case s == "":
			case s == "all":
				for _, op := range t.Ops() {
					want[op.Name] = true
				}
			case Toolsets[s] != nil:
				for _, n := range Toolsets[s] {
					want[n] = true
				}
			default:
				return nil, retrieve.Errorf(retrieve.CodeInputValidation, "no toolset %q", s).
					WithHint("toolsets: %s", strings.Join(ToolsetNames(), ", "))
			}
		}
	}
	return t.Keep(func(op *Op) bool { return want[op.Name] && (!readOnly || op.ReadOnly) }), nil
}
