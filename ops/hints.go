package ops

import (
	"regexp"
	"strings"
	"sync"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/memory"
)

// Commands pairs every CLI command with the tool (and /v1 route) that does
// the same. Hints are written once, naming either form; each edge rewrites
// them for its reader (HintFor): an MCP client is told the tool, an HTTP
// client the route, a CLI user the command. A command without a tool
// (init, gc, serve) is left as it is: it is for the person who runs the
// server.
var Commands = []struct{ CLI, Tool string }{
	{"retrieve memory overview", "extract_overview"},
	{"retrieve memory details", "extract_details"},
	{"retrieve memory create", "memory_write"},
	{"retrieve memory list", "memory_list"},
	{"retrieve memory read", "memory_read"},
	{"retrieve graph ingest", "graph_ingest"},
	{"retrieve graph query", "graph_query"},
	{"retrieve graph evidence", "graph_evidence"},
	{"retrieve graph ask", "graph_ask"},
	{"retrieve wiki search", "wiki_search"},
	{"retrieve wiki read", "wiki_read"},
	{"retrieve wiki write", "wiki_write"},
	{"retrieve wiki lint", "wiki_lint"},
	{"retrieve session list", "session_list"},
	{"retrieve session show", "session_show"},
	{"retrieve session verify", "session_verify"},
	{"retrieve verify", "verify_citation"},
	{"retrieve quote", "check_quote"},
	{"retrieve check", "check_citations"},
	{"retrieve cite", "cite_retrieval"},
	{"retrieve log", "retrieval_log"},
	{"retrieve show", "show_retrieval"},
	{"retrieve outline", "outline"},
	{"retrieve get", "retrieve"},
}

// hintRewriters are the two directions of Commands as regular
// expressions, longest names first so that "retrieve memory list" is not
// read as "retrieve memory".
var hintRewriters = sync.OnceValue(func() (r struct{ toTool, toCLI *regexp.Regexp }) {
	var cli, tools []string
	for _, c := range Commands {
		cli = append(cli, regexp.QuoteMeta(c.CLI))
		if c.Tool != "retrieve" && c.Tool != "outline" { // ordinary words too
			tools = append(tools, regexp.QuoteMeta(c.Tool))
		}
	}
	r.toTool = regexp.MustCompile("`?(" + strings.Join(cli, "|") + `)\b((?:\s+--[a-z][a-z-]*(?:\s+(?:"[^"]*"|[^\s-][^\s,;)` + "`" + `]*))?)*)` + "`?")
	r.toCLI = regexp.MustCompile(`\b(` + strings.Join(tools, "|") + `)\b`)
	return r
})

// HintFor rewrites a hint for the reader on transport: "mcp" names tools
// ("retrieve log --status ok" → "the retrieval_log tool (status: ok)"),
// "http" routes (/v1/retrieval_log), "cli" commands ("graph_query" →
// "retrieve graph query").
func HintFor(transport, hint string) string {
	if hint == "" {
		return hint
	}
	r := hintRewriters()
	switch transport {
	case "mcp", "http":
		return r.toTool.ReplaceAllStringFunc(hint, func(m string) string {
			sub := r.toTool.FindStringSubmatch(m)
			tool := ""
			for _, c := range Commands {
				if c.CLI == sub[1] {
					tool = c.Tool
				}
			}
			name := "the " + tool + " tool"
			if transport == "http" {
				name = "/v1/" + tool
			}
			if args := flagArgs(sub[2]); args != "" {
				name += " (" + args + ")"
			}
			return name
		})
	case "cli":
		return r.toCLI.ReplaceAllStringFunc(hint, func(m string) string {
			for _, c := range Commands {
				if c.Tool == m {
					return "`" + c.CLI + "`"
				}
			}
			return m
		})
	}
	return hint
}

var flagRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`--([a-z][a-z-]*)(?:\s+("[^"]*"|[^\s-]\S*))?`)
})

// flagArgs turns CLI flags into argument names: "--format-hints Usage"
// → "format_hints: Usage".
func flagArgs(flags string) string {
	var out []string
	for _, m := range flagRe().FindAllStringSubmatch(flags, -1) {
		name := strings.ReplaceAll(m[1], "-", "_")
		if m[2] == "" {
			out = append(out, name+": true")
		} else {
			out = append(out, name+": "+m[2])
		}
	}
	return strings.Join(out, ", ")
}

// rewriteHints rewrites the hints an op's output carries for transport:
// a result's error, the memory envelope's errors, an error body.
func rewriteHints(transport string, oc *Outcome) {
	if oc.Err != nil && oc.Err.Hint != "" {
		e := *oc.Err // errors may be shared values: rewrite a copy
		e.Hint = HintFor(transport, e.Hint)
		oc.Err = &e
	}
	switch v := oc.Value.(type) {
	case *retrieve.Result:
		if v != nil && v.Error != nil {
			e := *v.Error
			e.Hint = HintFor(transport, e.Hint)
			v.Error = &e
		}
	case *memory.OperationOutput:
		if v != nil {
			for i := range v.Errors {
				v.Errors[i].Hint = HintFor(transport, v.Errors[i].Hint)
			}
		}
	case ErrorBody:
		if v.Error != nil {
			e := *v.Error
			e.Hint = HintFor(transport, e.Hint)
			oc.Value = ErrorBody{Error: &e}
		}
	}
}
