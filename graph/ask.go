package graph

import (
	"context"
	"fmt"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/wiki"
)

// AskWikiScore is the wiki score (0..1, see wiki.Search) at or above which
// the best wiki page answers a question without a graph query.
const AskWikiScore = 0.75

// AskInput is a wiki-first question.
type AskInput struct {
	QueryInput
	// MinWikiScore overrides AskWikiScore when > 0.
	MinWikiScore float64 `json:"min_wiki_score,omitempty"`
	// FileBack writes a graph answer back as a topic page with its
	// evidence chain and citations.
	FileBack bool `json:"file_back,omitempty"`
}

// WikiAnswer is a wiki page that answers, with its citation.
type WikiAnswer struct {
	Slug     string  `json:"slug"`
	Category string  `json:"category"`
	Title    string  `json:"title"`
	Score    float64 `json:"score"`
	Citation string  `json:"citation"`
	Hash     string  `json:"hash"`
	Content  string  `json:"content"`
}

// AskOutput says where the answer came from: "wiki" (WikiPages set),
// "graph" (Evidence set) or "none".
type AskOutput struct {
	Query     string          `json:"query"`
	Answered  string          `json:"answered_from"`
	WikiPages []WikiAnswer    `json:"wiki_pages"`
	WikiHits  []wiki.Hit      `json:"wiki_hits"`
	Evidence  *EvidenceOutput `json:"evidence"`
	FiledBack *wiki.PageRef   `json:"filed_back"`
}

// Ask searches the wiki first; pages scoring at least the threshold answer.
// Otherwise it runs the evidence query, and with FileBack files the answer
// as a topic page.
func (t *Tools) Ask(ctx context.Context, in AskInput) (*AskOutput, error) {
	out, _, err := t.AskAnswer(ctx, in)
	return out, err
}

// AskAnswer is Ask that also returns the evidence answer cut into items
// (nil when the wiki answered), so that a server can send its evidence a
// page at a time.
func (t *Tools) AskAnswer(ctx context.Context, in AskInput) (*AskOutput, *Answer, error) {
	if err := in.defaults(); err != nil {
		return nil, nil, err
	}
	min := in.MinWikiScore
	if min <= 0 {
		min = AskWikiScore
	}
	out := &AskOutput{Query: in.Query, Answered: "none", WikiPages: []WikiAnswer{}, WikiHits: []wiki.Hit{}}
	if in.AsOf != "" && in.FileBack {
		return nil, nil, retrieve.Errorf(retrieve.CodeInputValidation, "file_back files today's wiki page; it does not take as_of").
			WithHint("ask without as_of to file the answer back, or without file_back to ask the past")
	}
	// The wiki keeps no history: a question about the past asks the graph.
	if t.Wiki != nil && in.AsOf == "" {
		hits, err := t.Wiki.Search(ctx, wiki.SearchInput{Query: in.Query, Limit: 5})
		if err != nil {
			return nil, nil, err
		}
		out.WikiHits = hits
		for _, h := range hits {
			if h.Score < min {
				break
			}
			p, err := t.Wiki.Read(ctx, wiki.ReadInput{Slug: h.Slug, Category: h.Category})
			if err != nil {
				return nil, nil, err
			}
			out.WikiPages = append(out.WikiPages, WikiAnswer{Slug: h.Slug, Category: h.Category, Title: p.Title, Score: h.Score,
				Citation: p.Citation, Hash: p.Hash, Content: p.Content})
		}
		if len(out.WikiPages) > 0 {
			out.Answered = "wiki"
			return out, nil, nil
		}
	}
	a, err := t.EvidenceAnswer(ctx, in.QueryInput)
	if err != nil {
		return nil, nil, err
	}
	ev := a.Evidence(a.Items)
	out.Evidence = ev
	if len(ev.Subgraph.Nodes) == 0 {
		return out, a, nil
	}
	out.Answered = "graph"
	if in.FileBack {
		if t.Wiki == nil {
			return nil, nil, retrieve.Errorf(retrieve.CodeInvalidOperation, "no wiki to file the answer in").WithHint("run in a workspace")
		}
		ref, err := t.Wiki.Write(ctx, wiki.WriteInput{Category: "topic", Title: in.Query, Content: t.answerPage(ctx, ev),
			Summary: ev.EvidenceChain, Tags: []string{"answer"}})
		if err != nil {
			return nil, nil, err
		}
		out.FiledBack = ref
	}
	return out, a, nil
}

// answerPage is the topic page of a graph answer: the evidence chain, each
// path with the quoted text and citation of every hop, and the sources.
func (t *Tools) answerPage(ctx context.Context, ev *EvidenceOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n**Evidence chain:** %s\n\n## Paths\n\n", ev.Query, ev.EvidenceChain)
	for _, p := range ev.Paths {
		fmt.Fprintf(&b, "- %s (confidence %.2f)\n", p.Chain, p.Confidence)
		for _, h := range p.Hops {
			text := "(no supporting text)"
			if h.SupportingText != nil {
				text = `"` + strings.Join(strings.Fields(*h.SupportingText), " ") + `"`
			}
			src, dst := h.From, h.To
			if h.Direction == "backward" {
				src, dst = h.To, h.From
			}
			fmt.Fprintf(&b, "  - %s --[%s]--> %s: %s — `%s`", src, h.Type, dst, text, h.Citation.Reference)
			if h.Citation.DocumentReference != "" {
				fmt.Fprintf(&b, " from `%s`", h.Citation.DocumentReference)
			}
			if h.Citation.DocumentHash != "" {
				fmt.Fprintf(&b, " (%s)", h.Citation.DocumentHash)
			}
			b.WriteString("\n")
		}
	}
	var links []string
	for _, id := range sortedKeys(ev.Subgraph.Nodes) {
		n := ev.Subgraph.Nodes[id]
		if t.Wiki != nil {
			if _, err := t.Wiki.Read(ctx, wiki.ReadInput{Slug: wiki.Slug(n.Name), Category: "entity"}); err == nil {
				links = append(links, "[["+wiki.Slug(n.Name)+"]]")
			}
		}
	}
	if len(links) > 0 {
		fmt.Fprintf(&b, "\n## Entities\n\n%s\n", strings.Join(links, ", "))
	}
	b.WriteString("\n## Sources\n\n")
	for _, d := range ev.SupportingDocuments {
		fmt.Fprintf(&b, "- %s (`%s`)", d.DocTitle, DocReference(d.DocID, ""))
		if d.Reference != "" {
			fmt.Fprintf(&b, " from `%s` %s", d.Reference, d.Hash)
		}
		b.WriteString("\n")
	}
	return b.String()
}
