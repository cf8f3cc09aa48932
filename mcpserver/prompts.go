package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve/ops"
)

// Workflow is one of the server's prompts: a main workflow an agent host
// offers its user as a slash command (/mcp__retrieve__cite_span in Claude
// Code). A prompt is served only when every tool it names is in the table
// (a --tools or --read-only server offers what it can run).
type Workflow struct {
	Prompt *mcp.Prompt
	// Tools are the tools the prompt's text tells the model to call.
	Tools []string
	// Text renders the user message from the prompt's arguments.
	Text func(args map[string]string) string
}

// Workflows are the prompts of the server, in the order hosts list them.
var Workflows = []Workflow{
	{
		Prompt: &mcp.Prompt{
			Name: "cite_span", Title: "Cite a file span",
			Description: "Read a file (or a span of it) with a checkable citation and answer from it, quoting and citing.",
			Arguments: []*mcp.PromptArgument{
				{Name: "target", Description: "What to read: a path, path:START-END, a URL, git:<rev>:<path>…", Required: true},
				{Name: "question", Description: "What to answer from it (optional)."},
			},
		},
		Tools: []string{"retrieve", "check_quote"},
		Text: func(a map[string]string) string {
			var b strings.Builder
			fmt.Fprintf(&b, "Call the retrieve tool with target %q and read retrieved.data.", a["target"])
			if q := a["question"]; q != "" {
				fmt.Fprintf(&b, " Then answer from it only: %s", q)
			}
			b.WriteString("\nQuote exactly and check each quotation with check_quote before you use it. Cite every claim as a Markdown link [citation.reference](citation.reference \"sha256:<citation.hash>\"). If retrieved.complete is false or extraction.truncated is true, say what was not read; if the tool returns an error, report its code and hint instead of guessing.")
			return b.String()
		},
	},
	{
		Prompt: &mcp.Prompt{
			Name: "check_citations", Title: "Check a document's citations",
			Description: "Check every citation and quotation of a Markdown draft against its source, and fix the findings.",
			Arguments: []*mcp.PromptArgument{
				{Name: "document", Description: "The Markdown text to check.", Required: true},
			},
		},
		Tools: []string{"check_citations"},
		Text: func(a map[string]string) string {
			return "Call the check_citations tool with this document as its markdown. For every finding that is not verified, fix the citation (re-retrieve the source with the retrieve tool and cite what it says) or remove the claim, and check again until nothing is left.\n\n" + a["document"]
		},
	},
	{
		Prompt: &mcp.Prompt{
			Name: "verify_session", Title: "Verify an agent session",
			Description: "Re-check every source an agent session read: verified, changed (with a diff) or unavailable.",
			Arguments: []*mcp.PromptArgument{
				{Name: "session_id", Description: "The session to verify; omit to pick the latest from session_list."},
			},
		},
		Tools: []string{"session_list", "session_verify"},
		Text: func(a map[string]string) string {
			id := a["session_id"]
			if id == "" {
				return "Call session_list, take the most recent session, then call session_verify with its session_id. Report how many sources are verified, changed and unavailable, and for each changed source show its diff and what in the session's answer depended on it."
			}
			return fmt.Sprintf("Call session_verify with session_id %q. Report how many sources are verified, changed and unavailable, and for each changed source show its diff and what in the session's answer depended on it.", id)
		},
	},
	{
		Prompt: &mcp.Prompt{
			Name: "ask_graph", Title: "Ask the graph, with evidence",
			Description: "Answer a question from the knowledge graph, every hop backed by the chunk of text it cites.",
			Arguments: []*mcp.PromptArgument{
				{Name: "question", Description: "The question, naming the entities it is about.", Required: true},
			},
		},
		Tools: []string{"graph_evidence"},
		Text: func(a map[string]string) string {
			return fmt.Sprintf("Answer this question from the knowledge graph: %s\nCall graph_evidence with the entities it names. Use only edges whose evidence was returned; quote each edge's evidence text and cite its doc:<doc_id>#<chunk_id> reference. If the graph has no path, say so: do not fill the gap from memory.", a["question"])
		},
	},
}

// addPrompts registers the workflows whose tools t serves.
func addPrompts(s *mcp.Server, t *ops.Table) {
	for _, w := range Workflows {
		if !servesAll(t, w.Tools) {
			continue
		}
		s.AddPrompt(w.Prompt, promptHandler(w))
	}
}

func servesAll(t *ops.Table, tools []string) bool {
	for _, name := range tools {
		if _, ok := t.Lookup(name); !ok {
			return false
		}
	}
	return true
}

func promptHandler(w Workflow) mcp.PromptHandler {
	return func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		args := map[string]string{}
		if req.Params != nil {
			args = req.Params.Arguments
		}
		for _, a := range w.Prompt.Arguments {
			if a.Required && strings.TrimSpace(args[a.Name]) == "" {
				return nil, fmt.Errorf("prompt %s: the argument %s is required", w.Prompt.Name, a.Name)
			}
		}
		return &mcp.GetPromptResult{
			Description: w.Prompt.Description,
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: w.Text(args)}}},
		}, nil
	}
}
