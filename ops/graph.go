package ops

import (
	"context"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/wiki"
)

// GraphQueryInput is the input of graph_query and graph_evidence: the
// query and a page.
type GraphQueryInput struct {
	graph.QueryInput
	Limit  int    `json:"limit,omitempty" jsonschema:"Edges per page (default 100)."`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page."`
	Budget *int   `json:"budget,omitempty" jsonschema:"Message budget in bytes."`
}

// PageEdge is an edge of a page with its id (cite it as graph:edge/<id>)
// and its times: when it held (valid_from, valid_to, as its evidence or
// writer dated it), when the store recorded it and, in an as-of answer,
// when it was retired since; stale_since when its evidence changed in the
// source.
type PageEdge struct {
	ID string `json:"id"`
	*graph.Edge
	ValidFrom  string `json:"valid_from,omitempty"`
	ValidTo    string `json:"valid_to,omitempty"`
	RecordedAt string `json:"recorded_at,omitempty"`
	RetiredAt  string `json:"retired_at,omitempty"`
	StaleSince string `json:"stale_since,omitempty"`
}

// PageSubgraph is the part of a subgraph a page holds: its edges, with
// their ids, and the nodes they join.
type PageSubgraph struct {
	Nodes map[string]*graph.Node `json:"nodes"`
	Edges []PageEdge             `json:"edges"`
}

func pageSubgraph(sub *graph.Subgraph) PageSubgraph {
	ps := PageSubgraph{Nodes: sub.Nodes, Edges: make([]PageEdge, len(sub.Edges))}
	for i, e := range sub.Edges {
		ps.Edges[i] = PageEdge{ID: graph.EdgeID(e), Edge: e, ValidFrom: e.ValidFrom, ValidTo: e.ValidTo,
			RecordedAt: graph.FromMicros(e.RecordedAt), RetiredAt: graph.FromMicros(e.RetiredAt), StaleSince: graph.FromMicros(e.StaleAt)}
	}
	return ps
}

// GraphQueryOutput is one page of a query's subgraph.
type GraphQueryOutput struct {
	PageSubgraph
	// TotalNodes and TotalEdges count the whole subgraph.
	TotalNodes int `json:"total_nodes"`
	TotalEdges int `json:"total_edges"`
	// NextCursor asks for the next page; empty on the last.
	NextCursor string `json:"next_cursor"`
	// Assumptions are the whole answer's: the as-of time, stale edges.
	Assumptions []string `json:"assumptions,omitempty"`
}

// GraphEvidenceOutput is one page of a query's evidence: the fields of
// graph.EvidenceOutput for the page's edges (confidence is the whole
// answer's), and the page's place in the whole.
type GraphEvidenceOutput struct {
	Query               string             `json:"query"`
	Subgraph            PageSubgraph       `json:"subgraph"`
	SupportingDocuments []graph.SupportDoc `json:"supporting_documents"`
	EvidenceChain       string             `json:"evidence_chain"`
	Paths               []graph.Path       `json:"paths"`
	Confidence          float64            `json:"confidence"`
	TotalNodes          int                `json:"total_nodes"`
	TotalEdges          int                `json:"total_edges"`
	NextCursor          string             `json:"next_cursor"`
	Assumptions         []string           `json:"assumptions,omitempty"`
}

// Graph pages: an item is an edge (or a node no edge touches); see
// graph.Answer.
const (
	DefaultGraphLimit = 100
	MaxGraphLimit     = 1000
)

// graphSpec is the page spec of a query's answer in list (graph_query or
// graph_evidence): its cursors are bound to the query and its flags.
func graphSpec(list string, q graph.QueryInput, limit int, cursor string) PageSpec {
	return PageSpec{List: list, Filter: Fingerprint(q.Query, q.MaxNodes, q.Depth, q.MinConfidence, q.IncludeUnverified, q.AsOf, q.Stale),
		Cursor: cursor, Limit: limit, Default: DefaultGraphLimit, Max: MaxGraphLimit, Reserve: 512 + 2*len(q.Query)}
}

func graphPage(ctx context.Context, list string, in GraphQueryInput, answer func(context.Context, graph.QueryInput) (*graph.Answer, error)) (*graph.Answer, *Page[graph.Item], error) {
	if _, err := CallBudget(ctx, in.Budget); err != nil {
		return nil, nil, err
	}
	q := in.QueryInput
	spec := graphSpec(list, q, in.Limit, in.Cursor)
	// Refuse a bad cursor or limit before running the query.
	if _, _, err := spec.Start(); err != nil {
		return nil, nil, err
	}
	a, err := answer(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	p, err := Paginate(ctx, spec, a.Items)
	if err != nil {
		return nil, nil, err
	}
	return a, p, nil
}

// QueryGraph reads one page of a query's subgraph (graph_query and
// `retrieve graph query --limit/--cursor`).
func QueryGraph(ctx context.Context, t *graph.Tools, in GraphQueryInput) (*GraphQueryOutput, error) {
	a, p, err := graphPage(ctx, "graph_query", in, t.QueryAnswer)
	if err != nil {
		return nil, err
	}
	return &GraphQueryOutput{PageSubgraph: pageSubgraph(a.Subgraph(p.Items)), TotalNodes: a.TotalNodes, TotalEdges: a.TotalEdges, NextCursor: p.Next,
		Assumptions: a.Assumptions}, nil
}

// EvidenceGraph reads one page of a query's evidence (graph_evidence and
// `retrieve graph evidence --limit/--cursor`).
func EvidenceGraph(ctx context.Context, t *graph.Tools, in GraphQueryInput) (*GraphEvidenceOutput, error) {
	a, p, err := graphPage(ctx, "graph_evidence", in, t.EvidenceAnswer)
	if err != nil {
		return nil, err
	}
	return evidencePage(a, p), nil
}

func evidencePage(a *graph.Answer, p *Page[graph.Item]) *GraphEvidenceOutput {
	ev := a.Evidence(p.Items)
	return &GraphEvidenceOutput{Query: ev.Query, Subgraph: pageSubgraph(ev.Subgraph), SupportingDocuments: ev.SupportingDocuments, EvidenceChain: ev.EvidenceChain,
		Paths: ev.Paths, Confidence: ev.Confidence, TotalNodes: a.TotalNodes, TotalEdges: a.TotalEdges, NextCursor: p.Next, Assumptions: a.Assumptions}
}

// GraphAskOutput is the output of graph_ask: graph.AskOutput whose
// evidence is the first page of a graph answer; its next_cursor continues
// with graph_evidence (the same query and flags).
type GraphAskOutput struct {
	Query     string               `json:"query"`
	Answered  string               `json:"answered_from"`
	WikiPages []graph.WikiAnswer   `json:"wiki_pages"`
	WikiHits  []wiki.Hit           `json:"wiki_hits"`
	Evidence  *GraphEvidenceOutput `json:"evidence"`
	FiledBack *wiki.PageRef        `json:"filed_back"`
}

// AskGraph answers wiki-first (graph_ask and `retrieve graph ask`); a graph
// answer's evidence comes as its first page, within the message budget
// (a page of graph_evidence, whose cursor it gives). A filed-back page
// holds the whole answer.
func AskGraph(ctx context.Context, t *graph.Tools, in graph.AskInput) (*GraphAskOutput, error) {
	out, a, err := t.AskAnswer(ctx, in)
	if err != nil {
		return nil, err
	}
	res := &GraphAskOutput{Query: out.Query, Answered: out.Answered, WikiPages: out.WikiPages, WikiHits: out.WikiHits, FiledBack: out.FiledBack}
	if a == nil {
		return res, nil
	}
	spec := graphSpec("graph_evidence", in.QueryInput, 0, "")
	spec.Reserve += 2 * jsonLen(res)
	p, err := Paginate(ctx, spec, a.Items)
	if err != nil {
		return nil, err
	}
	res.Evidence = evidencePage(a, p)
	return res, nil
}
