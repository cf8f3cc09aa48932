package ops

import (
	"context"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/wiki"
)

// AddAll registers every op of a family.
func (t *Table) AddAll(ops []*Op) {
	for _, op := range ops {
		t.Add(op)
	}
}

// MemoryOps are the memory keeper and extractor operations of svc.
func MemoryOps(svc *memory.Service) []*Op {
	envelope := func(name string, fn func(context.Context, any) (any, []memory.OpError, error)) func(context.Context, any) (*memory.OperationOutput, error) {
		return func(ctx context.Context, in any) (*memory.OperationOutput, error) {
			out, notices, err := fn(ctx, in)
			return memory.Envelope(name, out, notices, err), err
		}
	}
	overview := envelope("extract_overview", func(ctx context.Context, in any) (any, []memory.OpError, error) {
		return svc.Overview(ctx, in.(memory.OverviewInput))
	})
	details := envelope("extract_details", func(ctx context.Context, in any) (any, []memory.OpError, error) {
		return svc.Details(ctx, in.(memory.DetailsInput))
	})
	return []*Op{
		Typed(Spec{
			Name: "extract_overview", Title: "Memory overview", ReadOnly: true,
			Description: `Survey the workspace memory (notes in knowledge/, episodic/, procedural/ …) about a topic: a ranked source map of the notes that mention it, with related ontology entities.
Use it first when you need what the project already knows about something; then call extract_details on the best source. The envelope has success, result and errors (degraded-mode notices such as ONTOLOGY_UNAVAILABLE ride along with a successful result).`,
			Examples: []any{map[string]any{"target": "authentication", "depth": "medium"}},
		}, func(ctx context.Context, in memory.OverviewInput) (*memory.OperationOutput, error) {
			return overview(ctx, in)
		}),
		Typed(Spec{
			Name: "extract_details", Title: "Memory details", ReadOnly: true,
			Description: `Read one memory note (by id or path) or the part of it a scope names (a heading), with its metadata. Use it after extract_overview, on one of its sources.`,
			Examples:    []any{map[string]any{"target": "K-20260101-001", "scope": "Decision"}},
		}, func(ctx context.Context, in memory.DetailsInput) (*memory.OperationOutput, error) {
			return details(ctx, in)
		}),
		Typed(Spec{
			Name: "memory_write", Title: "Write a memory note",
			Description: `Create a memory note: memory_type is the tier (knowledge, episodic, procedural, …), with a title, markdown content and tags. Returns the new memory_entry_id and path. Write what was learned and its source, not guesses.`,
			Examples:    []any{map[string]any{"memory_type": "knowledge", "title": "Deploys need the staging token", "content": "Seen in docs/deploy.md:12-20.", "tags": []string{"deploy"}}},
		}, svc.Create),
		Typed(Spec{
			Name: "memory_list", Title: "List memory notes", ReadOnly: true, Method: "GET",
			Description: `List memory notes, optionally of one tier (memory_type) and having all the given tags. A page holds limit notes (default 100, at most 1000) within the message budget; total counts them all; pass next_cursor back as cursor for the next page.`,
			Examples:    []any{map[string]any{"memory_type": "knowledge"}, map[string]any{"limit": 50, "cursor": "<next_cursor>"}},
		}, func(ctx context.Context, in MemoryListInput) (*MemoryListOutput, error) {
			return ListMemory(ctx, svc, in)
		}),
		Typed(Spec{
			Name: "memory_read", Title: "Read a memory note", ReadOnly: true, Method: "GET",
			Description: `Read one memory note as it is on disk, by memory_entry_id or path.`,
			Examples:    []any{map[string]any{"target": "K-20260101-001"}},
		}, svc.Read),
	}
}

// MemoryListInput is the input of memory_list: filters and a page.
type MemoryListInput struct {
	Type   string   `json:"memory_type,omitempty" jsonschema:"only notes of this tier (knowledge, episodic, procedural …)"`
	Tags   []string `json:"tags,omitempty" jsonschema:"only notes having all these tags"`
	Limit  int      `json:"limit,omitempty" jsonschema:"at most this many notes per page (default 100, at most 1000)"`
	Cursor string   `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page, with the same filters"`
	Budget *int     `json:"budget,omitempty" jsonschema:"message size budget in bytes (default: the server's)"`
}

// MemoryListOutput is one page of notes.
type MemoryListOutput struct {
	Entries []memory.ListEntry `json:"entries" yaml:"entries"`
	// Total counts the notes of every page.
	Total int `json:"total" yaml:"total"`
	// NextCursor asks for the next page; empty on the last.
	NextCursor string `json:"next_cursor" yaml:"next_cursor"`
}

// ListMemory reads one page of memory notes (memory_list and `retrieve
// memory list --limit/--cursor`).
func ListMemory(ctx context.Context, svc *memory.Service, in MemoryListInput) (*MemoryListOutput, error) {
	if _, err := CallBudget(ctx, in.Budget); err != nil {
		return nil, err
	}
	spec := PageSpec{List: "memory_list", Filter: Fingerprint(in.Type, in.Tags), Cursor: in.Cursor, Limit: in.Limit, Default: 100, Max: 1000}
	if _, err := DecodeCursor(in.Cursor, spec.List, spec.Filter); err != nil {
		return nil, err
	}
	all, err := svc.List(ctx, memory.ListInput{Type: in.Type, Tags: in.Tags})
	if err != nil {
		return nil, err
	}
	p, err := Paginate(ctx, spec, all.Entries)
	if err != nil {
		return nil, err
	}
	return &MemoryListOutput{Entries: p.Items, Total: all.Total, NextCursor: p.Next}, nil
}

// GraphOps are the knowledge-graph operations of t.
func GraphOps(t *graph.Tools) []*Op {
	return []*Op{
		Typed(Spec{
			Name: "ingest", Title: "Ingest a document into the graph",
			Description: `Add a document's entities and relations to the knowledge graph. Give target (retrieved through retrieve, so the document keeps its citation) or content, plus the extraction (entities and relations, each relation with the supporting text). Relations whose supporting text is not in the document are dropped unless allow_unverified.`,
			Examples:    []any{map[string]any{"doc_id": "design", "title": "Design", "target": "docs/design.md", "extraction": map[string]any{"entities": []any{}, "relations": []any{}}}},
		}, t.Ingest),
		Typed(Spec{
			Name: "query", Title: "Query the graph", ReadOnly: true,
			Description: `Return the subgraph around a question's entities (bounded by max_nodes and depth, edges above min_confidence).`,
			Examples:    []any{map[string]any{"query": "Why does the system crash?"}},
		}, t.Query),
		Typed(Spec{
			Name: "query_with_evidence", Title: "Query the graph with evidence", ReadOnly: true,
			Description: `Like query, and every edge comes with its evidence chain: the supporting text and the citation of the document it came from. Use it when the answer must be cited.`,
			Examples:    []any{map[string]any{"query": "What causes the memory leak?"}},
		}, t.Evidence),
		Typed(Spec{
			Name: "ask", Title: "Ask (wiki first, then graph)",
			Description: `Answer a question from the wiki first (pages scoring at least min_wiki_score), else from the graph with evidence. answered_from says which ("wiki", "graph" or "none"). file_back=true writes a graph answer back as a wiki topic page.`,
			Examples:    []any{map[string]any{"query": "Why does the system crash?"}},
		}, t.Ask),
	}
}

// WikiHits is the output of wiki_search: one page of hits.
type WikiHits struct {
	Hits []wiki.Hit `json:"hits" yaml:"hits"`
	// NextCursor asks for the next page; empty on the last.
	NextCursor string `json:"next_cursor" yaml:"next_cursor"`
}

// WikiSearchInput is the input of wiki_search.
type WikiSearchInput struct {
	Query  string `json:"query" jsonschema:"words to look for in the wiki's pages"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many hits per page (default 10, at most 100)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page, with the same query"`
	Budget *int   `json:"budget,omitempty" jsonschema:"message size budget in bytes (default: the server's)"`
}

// SearchWiki reads one page of wiki hits (wiki_search and `retrieve wiki
// search --limit/--cursor`).
func SearchWiki(ctx context.Context, w *wiki.Wiki, in WikiSearchInput) (*WikiHits, error) {
	if _, err := CallBudget(ctx, in.Budget); err != nil {
		return nil, err
	}
	spec := PageSpec{List: "wiki_search", Filter: Fingerprint(in.Query), Cursor: in.Cursor, Limit: in.Limit, Default: 10, Max: 100}
	c, err := DecodeCursor(in.Cursor, spec.List, spec.Filter)
	if err != nil {
		return nil, err
	}
	limit, err := Limit(in.Limit, spec.Default, spec.Max)
	if err != nil {
		return nil, err
	}
	hits, err := w.Search(ctx, wiki.SearchInput{Query: in.Query, Limit: c.Offset + limit + 1})
	if err != nil {
		return nil, err
	}
	p, err := Paginate(ctx, spec, hits)
	if err != nil {
		return nil, err
	}
	out := &WikiHits{Hits: p.Items, NextCursor: p.Next}
	if out.Hits == nil {
		out.Hits = []wiki.Hit{}
	}
	return out, nil
}

// LintInput is wiki_lint's (empty) input.
type LintInput struct{}

// WikiOps are the wiki operations of w.
func WikiOps(w *wiki.Wiki) []*Op {
	return []*Op{
		Typed(Spec{
			Name: "wiki_search", Title: "Search the wiki", ReadOnly: true, Method: "GET",
			Description: `Rank the workspace wiki's pages for a query (score 0..1, with a snippet and the page's citation). Read a hit with wiki_read. Pass next_cursor back as cursor for more hits.`,
			Examples:    []any{map[string]any{"query": "memory leak", "limit": 5}},
		}, func(ctx context.Context, in WikiSearchInput) (*WikiHits, error) { return SearchWiki(ctx, w, in) }),
		Typed(Spec{
			Name: "wiki_read", Title: "Read a wiki page", ReadOnly: true, Method: "GET",
			Description: `Read a wiki page by slug ("memory-leak", or "topic/why-crash" with its category) with its citation and links.`,
			Examples:    []any{map[string]any{"slug": "memory-leak"}},
		}, w.Read),
		Typed(Spec{
			Name: "wiki_write", Title: "Write a wiki page",
			Description: `Write (or overwrite) a wiki page in a category (entity, concept, topic, source …) with a title and markdown content; updates index.md and log.md. Cite your sources in the content.`,
			Examples:    []any{map[string]any{"category": "topic", "title": "Why the system crashes", "content": "..."}},
		}, w.Write),
		Typed(Spec{
			Name: "wiki_lint", Title: "Lint the wiki", ReadOnly: true, Method: "GET",
			Description: `Check the wiki: broken links, orphan pages, pages missing from the index.`,
		}, func(ctx context.Context, _ LintInput) (*wiki.LintOutput, error) { return w.Lint(ctx) }),
	}
}
