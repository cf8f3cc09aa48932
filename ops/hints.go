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
//
// Args names the tool's arguments that the command's positional arguments
// are, in order (retrieve quote REF "text" → target, text), so that a
// hint's example command becomes the tool's arguments.
var Commands = []struct {
	CLI, Tool string
	Args      []string
}{
	{"retrieve memory overview", "extract_overview", []string{"query"}},
	{"retrieve memory details", "extract_details", []string{"target"}},
	{"retrieve memory create", "memory_write", nil},
	{"retrieve memory list", "memory_list", nil},
	{"retrieve memory read", "memory_read", []string{"target"}},
	{"retrieve graph ingest", "graph_ingest", nil},
	{"retrieve graph query", "graph_query", []string{"query"}},
	{"retrieve graph evidence", "graph_evidence", []string{"query"}},
	{"retrieve graph ask", "graph_ask", []string{"query"}},
	{"retrieve wiki search", "wiki_search", []string{"query"}},
	{"retrieve wiki read", "wiki_read", []string{"target"}},
	{"retrieve wiki write", "wiki_write", nil},
	{"retrieve wiki lint", "wiki_lint", nil},
	{"retrieve session list", "session_list", nil},
	{"retrieve session show", "session_show", []string{"session_id"}},
	{"retrieve session verify", "session_verify", []string{"session_id"}},
	{"retrieve verify", "verify_citation", []string{"retrieval_id"}},
	{"retrieve quote", "check_quote", []string{"target", "text"}},
	{"retrieve check", "check_citations", nil},
	{"retrieve cite", "cite_retrieval", []string{"retrieval_id"}},
	{"retrieve log", "retrieval_log", nil},
	{"retrieve show", "show_retrieval", []string{"retrieval_id"}},
	{"retrieve outline", "outline", []string{"target"}},
	{"retrieve get", "retrieve", []string{"target"}},
}

// hintRewriters are the two directions of Commands as regular
// expressions, longest names first so that "retrieve memory list" is not
// read as "retrieve memory".
var hintRewriters = sync.OnceValue(func() (r struct{ toTool, toCLI, posArg *regexp.Regexp }) {
	var cli, tools []string
	for _, c := range Commands {
		cli = append(cli, regexp.QuoteMeta(c.CLI))
		if c.Tool != "retrieve" && c.Tool != "outline" { // ordinary words too
			tools = append(tools, regexp.QuoteMeta(c.Tool))
		}
	}
	// A positional argument: a quoted string, a placeholder (ID, <id>) or
	// a path, URL or reference (a token with '.', '/' or ':' in it).
	word := "[^\\s,;()\"'`<>]"
	pos := `"[^"]*"|'[^']*'|<[^>\s]+>|[A-Z][A-Z_]*\b|` + word + `*[./:]` + word + `*[^\s,;()"'` + "`" + `<>.]`
	r.toTool = regexp.MustCompile("`?(" + strings.Join(cli, "|") + `)\b((?:[ \t]+(?:` + pos + `))*)((?:\s+--[a-z][a-z-]*(?:\s+(?:"[^"]*"|[^\s-][^\s,;)` + "`" + `]*))?)*)` + "`?")
	r.toCLI = regexp.MustCompile(`\b(` + strings.Join(tools, "|") + `)\b`)
	r.posArg = regexp.MustCompile(pos)
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
		hint = r.toTool.ReplaceAllStringFunc(hint, func(m string) string {
			sub := r.toTool.FindStringSubmatch(m)
			tool := ""
			var names []string
			for _, c := range Commands {
				if c.CLI == sub[1] {
					tool, names = c.Tool, c.Args
				}
			}
			name := "the " + tool + " tool"
			if transport == "http" {
				name = "/v1/" + tool
			}
			var args []string
			rest := ""
			for i, p := range r.posArg.FindAllString(sub[2], -1) {
				if i < len(names) {
					args = append(args, names[i]+": "+p)
				} else {
					rest += " " + p
				}
			}
			if fa := flagArgs(sub[3]); fa != "" {
				args = append(args, fa)
			}
			if len(args) > 0 {
				name += " (" + strings.Join(args, ", ") + ")"
			}
			return name + rest
		})
		return bareFlags(hint)
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

// bareFlagRe is a CLI flag in a hint's prose ("narrow it with --lines"),
// with the value of --format.
var bareFlagRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(^|[\\s(])--([a-z][a-z-]*)(?:\\s+(" + strings.Join(retrieve.RequestFormats, "|") + ")\\b)?")
})

// inCLIAside says that the end of before is inside a parenthesis about
// the CLI ("(in the CLI: --file, --url or --stdin)"), left as it is.
func inCLIAside(before string) bool {
	open := strings.LastIndexByte(before, '(')
	return open > strings.LastIndexByte(before, ')') && strings.Contains(before[open:], "CLI")
}

// bareFlags names a tool's arguments for the flags a hint's prose names
// ("--max-bytes" → "`max_bytes`", "--format binary" → "`format: binary`"),
// except in a clause that names a command without a tool (`retrieve init
// --force` is for the person who runs the server) and in an aside about
// the CLI.
func bareFlags(hint string) string {
	var b strings.Builder
	last := 0
	for _, m := range bareFlagRe().FindAllStringSubmatchIndex(hint, -1) {
		clause := hint[strings.LastIndexAny(hint[:m[0]], ",;.")+1 : m[0]]
		if strings.Contains(clause, "retrieve ") || strings.Count(hint[:m[0]], "`")%2 == 1 || inCLIAside(hint[:m[0]]) {
			continue
		}
		b.WriteString(hint[last:m[3]])
		arg := strings.ReplaceAll(hint[m[4]:m[5]], "-", "_")
		if m[6] >= 0 {
			arg += ": " + hint[m[6]:m[7]]
		}
		b.WriteString("`" + arg + "`")
		last = m[1]
	}
	b.WriteString(hint[last:])
	return b.String()
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
