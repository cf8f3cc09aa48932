package ops

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sync"
	"time"

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
		seedShaped(renameArgs(Typed(Spec{
			Name: "extract_overview", Title: "Memory overview", ReadOnly: true,
			Description: `A ranked map of the memory's notes about a topic, with related ontology entities; read one with extract_details. Envelope: success, result, errors (notices too).`,
			Examples:    []any{map[string]any{"target": "deploy", "depth": "shallow"}},
			Describe: map[string]string{"target": "Topic to look for (seed 004: target).", "depth": "How much to read (default medium).", "knowledge_type": "Only this tier.",
				"limit": "At most this many sources.", "hops": "Ontology hops to follow.",
				"stale": "Stale notes: rank (last), include, exclude, only.", "as_of": "As of this date."},
			Enums: map[string][]string{"depth": {memory.DepthShallow, memory.DepthMedium}, "knowledge_type": memory.Tiers},
		}, func(ctx context.Context, in memory.OverviewInput) (*memory.OperationOutput, error) {
			return overview(ctx, in)
		}), map[string]string{"query": "target"}), "scope", "format_hints"),
		seedShaped(Typed(Spec{
			Name: "extract_details", Title: "Memory details", ReadOnly: true,
			Description: `Read one memory note (a path, or a query's best match), whole or the part a scope names, with its metadata.`,
			Examples:    []any{map[string]any{"target": "deploy", "scope": "section", "format_hints": "Install"}},
			Describe: map[string]string{"target": "Note path, or a query.",
				"scope":        "full (default), section or specific.",
				"format_hints": "section: a heading; specific: code, tables, lists, links."},
			Enums: map[string][]string{"scope": {memory.ScopeFull, memory.ScopeSection, memory.ScopeSpecific}},
		}, func(ctx context.Context, in memory.DetailsInput) (*memory.OperationOutput, error) {
			return details(ctx, in)
		}), "depth", "knowledge_type"),
		Typed(Spec{
			Name: "memory_write", Title: "Write a memory note",
			Description: `Create a memory note from its evidence (citations that must resolve).`,
			Examples:    []any{map[string]any{"memory_type": "semantic", "title": "Deploy token", "content": "Needed.", "evidence": []string{"docs/deploy.md:12-20"}}},
			Describe: map[string]string{"memory_type": "Tier.", "title": "Note title.", "content": "Markdown body.",
				"tags": "Tags.", "metadata": "Extra key/values.", "evidence": "References or retrieval ids.",
				"session_id": "Links your session.",
				"valid_from": "Holds since."},
			Enums: map[string][]string{"memory_type": memory.Tiers},
		}, svc.Create),
		Typed(Spec{
			Name: "memory_why", Title: "Why a memory note says what it says", ReadOnly: true, Method: "GET",
			Description: `A note's citations re-checked now, and its status (stale…).`,
			Examples:    []any{map[string]any{"target": "sem-20260416-001"}},
			Describe:    map[string]string{"target": "Note id or path.", "no_verify": "Do not re-check."},
		}, svc.Why),
		Typed(Spec{
			Name: "memory_forget", Title: "Forget the notes derived from a source or session", Destructive: true,
			Description: `Tombstone the notes citing source (or written in session_id): they leave retrieval, stay for audit; the ledger records it. dry_run lists them.`,
			Examples:    []any{map[string]any{"source": "docs/deploy.md", "dry_run": true}},
			Describe: map[string]string{"source": "Path, reference or retrieval id.", "session_id": "A session.",
				"dry_run": "Only list.", "reason": "Why."},
		}, func(ctx context.Context, in memory.ForgetInput) (*memory.ForgetOutput, error) {
			in.By = "agent (MCP/HTTP)"
			in.Progress = ProgressOf(ctx, "forgetting notes")
			return svc.Forget(ctx, in)
		}),
		Typed(Spec{
			Name: "memory_outdated", Title: "Mark a memory note outdated", Destructive: true,
			Description: `Mark a note outdated by a citation that contradicts it; it leaves retrieval, stays for audit.`,
			Examples:    []any{map[string]any{"target": "sem-20260416-001", "by": "docs/deploy.md:30-34", "reason": "no token now"}},
			Describe:    map[string]string{"target": "Note id or path.", "by": "The contradicting citation.", "reason": "Why."},
		}, func(ctx context.Context, in memory.OutdatedInput) (*memory.OutdatedOutput, error) {
			in.Who = "agent (MCP/HTTP)"
			return svc.Outdated(ctx, in)
		}),
		Typed(Spec{
			Name: "memory_list", Title: "List memory notes", ReadOnly: true, Method: "GET",
			Description: `List memory notes (of one tier, with all given tags), a page at a time; total counts all. Pass next_cursor back as cursor.`,
			Examples:    []any{map[string]any{"memory_type": "semantic", "limit": 50}},
			Enums:       map[string][]string{"memory_type": memory.Tiers},
		}, func(ctx context.Context, in MemoryListInput) (*MemoryListOutput, error) {
			return ListMemory(ctx, svc, in)
		}),
		Typed(Spec{
			Name: "memory_read", Title: "Read a memory note", ReadOnly: true, Method: "GET",
			Description: `Read one memory note as it is on disk, by memory_entry_id or path.`,
			Examples:    []any{map[string]any{"target": "K-20260101-001"}},
			Describe:    map[string]string{"target": "Note id or path."},
		}, svc.Read),
	}
}

// MemoryListInput is the input of memory_list: filters and a page.
type MemoryListInput struct {
	Type   string   `json:"memory_type,omitempty" jsonschema:"Only notes of this tier."`
	Tags   []string `json:"tags,omitempty" jsonschema:"Only notes with all these tags."`
	Limit  int      `json:"limit,omitempty" jsonschema:"Notes per page (default 100, at most 1000)."`
	Cursor string   `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page."`
	Budget *int     `json:"budget,omitempty" jsonschema:"Message budget in bytes."`
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
	if _, _, err := spec.Start(); err != nil {
		return nil, err
	}
	all, err := listMemoryCached(ctx, svc, memory.ListInput{Type: in.Type, Tags: in.Tags}, spec.Filter)
	if err != nil {
		return nil, err
	}
	p, err := Paginate(ctx, spec, all.Entries)
	if err != nil {
		return nil, err
	}
	return &MemoryListOutput{Entries: p.Items, Total: all.Total, NextCursor: p.Next}, nil
}

// memoryLists keeps the last full listing of each memory service, so that
// paging through 20,000 notes does not parse every note again for every
// page. A listing is reused while the tier folders are unchanged (a note
// created, deleted or written by the keeper, which renames, changes its
// folder) and for at most memoryListTTL, so that a note edited in place
// shows within that time.
var memoryLists sync.Map // *memory.Service → *memoryList

const memoryListTTL = 30 * time.Second

type memoryList struct {
	key string
	at  time.Time
	out *memory.ListOutput
}

func listMemoryCached(ctx context.Context, svc *memory.Service, in memory.ListInput, filter string) (*memory.ListOutput, error) {
	stamp := memoryStamp(svc)
	key := filter + "/" + stamp
	if c, ok := memoryLists.Load(svc); ok && stamp != "" && c.(*memoryList).key == key && time.Since(c.(*memoryList).at) < memoryListTTL {
		return c.(*memoryList).out, nil
	}
	out, err := svc.List(ctx, in)
	if err != nil {
		return nil, err
	}
	if stamp != "" {
		memoryLists.Store(svc, &memoryList{key: key, at: time.Now(), out: out})
	}
	return out, nil
}

// memoryStamp fingerprints svc's tier folders (read through its
// workspace): their modification times and sizes; "" when they cannot be
// read.
func memoryStamp(svc *memory.Service) string {
	h := sha256.New()
	for _, tier := range memory.Tiers {
		info, err := svc.FS().Stat(path.Join(svc.Dir(), tier))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return ""
		}
		fmt.Fprintf(h, "%s %d %d\n", tier, info.Size(), info.ModTime().UnixNano())
	}
	return hex.EncodeToString(h.Sum(nil))
}

// GraphOps are the knowledge-graph operations of t.
func GraphOps(t *graph.Tools) []*Op {
	return []*Op{
		Typed(Spec{
			Name: "graph_ingest", Title: "Ingest a document into the graph", Aliases: []string{"ingest"}, Destructive: true, OpenWorld: true,
			Description: `Add a document (target, retrieved with its citation, or content) and the entities and relations found in it (each quoting it in supporting_text) to the graph.`,
			Examples:    []any{map[string]any{"doc_id": "design", "title": "Design", "target": "docs/design.md", "extraction": map[string]any{"entities": []any{map[string]any{"name": "Cache", "type": "component"}}, "relations": []any{}}}},
			Describe: map[string]string{"doc_id": "Document id (new text under it is a new version).", "title": "Document title.", "target": "Retrieve the document from here.",
				"content": "Or the document's text.", "source": "Where content came from.", "reference": "Its citation.", "hash": "Its hash.",
				"retrieval_id": "Its retrieval.", "extraction": "Entities and relations found in it.", "allow_unverified": "Keep relations whose text is not in it."},
		}, t.Ingest),
		Typed(Spec{
			Name: "graph_query", Title: "Query the graph", ReadOnly: true, Aliases: []string{"query"},
			Description: `The subgraph around a question's entities, in pages of edges with their nodes; cite an edge as graph:edge/<id>.`,
			Examples:    []any{map[string]any{"query": "Why does the system crash?"}},
			Describe: map[string]string{"query": "The question.", "max_nodes": "Node cap.", "depth": "Traversal depth cap.",
				"min_confidence": "Skip edges below this confidence.", "include_unverified": "Follow unverified edges too.",
				"as_of": "Answer as known then.", "stale": "rank, include or exclude."},
		}, func(ctx context.Context, in GraphQueryInput) (*GraphQueryOutput, error) {
			return QueryGraph(ctx, t, in)
		}),
		Typed(Spec{
			Name: "graph_evidence", Title: "Query the graph with evidence", ReadOnly: true, Aliases: []string{"query_with_evidence"},
			Description: `Like graph_query, each edge with its supporting text and the citation of its document. Use it when the answer must be cited.`,
			Examples:    []any{map[string]any{"query": "What causes the memory leak?"}},
			Describe: map[string]string{"query": "The question.", "max_nodes": "Node cap.", "depth": "Traversal depth cap.",
				"min_confidence": "Skip edges below this confidence.", "include_unverified": "Follow unverified edges too.",
				"as_of": "Answer as known then.", "stale": "rank, include or exclude."},
		}, func(ctx context.Context, in GraphQueryInput) (*GraphEvidenceOutput, error) {
			return EvidenceGraph(ctx, t, in)
		}),
		Typed(Spec{
			Name: "graph_ask", Title: "Ask (wiki first, then graph)", Aliases: []string{"ask"}, Destructive: true,
			Description: `Answer from the wiki first (pages scoring min_wiki_score), else from the graph with evidence (graph_evidence takes its next_cursor); answered_from says which.`,
			Examples:    []any{map[string]any{"query": "Why does the system crash?"}},
			Describe: map[string]string{"query": "The question.", "max_nodes": "Node cap.", "depth": "Traversal depth cap.",
				"min_confidence": "Skip edges below this confidence.", "include_unverified": "Follow unverified edges too.",
				"as_of": "Answer as known then.", "stale": "rank, include or exclude.",
				"min_wiki_score": "Wiki score that answers.", "file_back": "Write a graph answer as a wiki topic page."},
		}, func(ctx context.Context, in graph.AskInput) (*GraphAskOutput, error) { return AskGraph(ctx, t, in) }),
		Typed(Spec{
			Name: "graph_verify", Title: "Re-check the graph's evidence against its sources",
			Description: `Re-retrieve each document's source: edges whose supporting text left it become stale (with the diff), others fresh. Writes only these marks.`,
			Examples:    []any{map[string]any{}},
		}, func(ctx context.Context, in GraphVerifyInput) (*graph.VerifyReport, error) {
			return t.Verify(ctx, graph.VerifyOptions{Docs: in.Docs, Progress: ProgressOf(ctx, "verifying documents")})
		}),
		Typed(Spec{
			Name: "graph_forget", Title: "Forget what the graph took from a source", Destructive: true,
			Description: `Tombstone the documents ingested from source (or doc_id), their edges, entities only they supported and chunks; ledger-recorded. dry_run lists.`,
			Examples:    []any{map[string]any{"source": "docs/deploy.md", "dry_run": true}},
		}, func(ctx context.Context, in GraphForgetInput) (*graph.ForgetOutput, error) {
			return t.Forget(ctx, graph.ForgetInput{Source: in.Source, DocID: in.DocID, DryRun: in.DryRun,
				By: "agent (MCP/HTTP)", Progress: ProgressOf(ctx, "forgetting edges")})
		}),
	}
}

// GraphVerifyInput is the input of graph_verify.
type GraphVerifyInput struct {
	Docs []string `json:"doc_ids,omitempty" jsonschema:"Only these documents (default all)."`
}

// GraphForgetInput is the input of graph_forget: a source or a document.
type GraphForgetInput struct {
	Source string `json:"source,omitempty" jsonschema:"Path or URL ingested from."`
	DocID  string `json:"doc_id,omitempty" jsonschema:"Or one document."`
	DryRun bool   `json:"dry_run,omitempty" jsonschema:"Only list."`
}

// SummaryOp is graph_summary: the overview of the graph and, when svc is
// set, of the memory notes.
func SummaryOp(t *graph.Tools, svc *memory.Service) *Op {
	return Typed(Spec{
		Name: "graph_summary", Title: "Summarize the graph and notes", ReadOnly: true, Aliases: []string{"summary"},
		Description: `Counts by type, tier and tag, the most connected entities and what went stale lately, a few KB; page a list with list and cursor.`,
		Examples:    []any{map[string]any{}},
	}, func(ctx context.Context, in SummaryInput) (*SummaryOutput, error) { return Summarize(ctx, t, svc, in) })
}

// WikiHits is the output of wiki_search: one page of hits.
type WikiHits struct {
	Hits []wiki.Hit `json:"hits" yaml:"hits"`
	// NextCursor asks for the next page; empty on the last.
	NextCursor string `json:"next_cursor" yaml:"next_cursor"`
}

// WikiSearchInput is the input of wiki_search.
type WikiSearchInput struct {
	Query  string `json:"query" jsonschema:"Words to look for."`
	Limit  int    `json:"limit,omitempty" jsonschema:"Hits per page (default 10, at most 100)."`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page."`
	Budget *int   `json:"budget,omitempty" jsonschema:"Message budget in bytes."`
}

// SearchWiki reads one page of wiki hits (wiki_search and `retrieve wiki
// search --limit/--cursor`).
func SearchWiki(ctx context.Context, w *wiki.Wiki, in WikiSearchInput) (*WikiHits, error) {
	if _, err := CallBudget(ctx, in.Budget); err != nil {
		return nil, err
	}
	spec := PageSpec{List: "wiki_search", Filter: Fingerprint(in.Query), Cursor: in.Cursor, Limit: in.Limit, Default: 10, Max: 100}
	c, limit, err := spec.Start()
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
			Description: `Rank the wiki's pages for a query (score 0..1, snippet, citation); read one with wiki_read. Pass next_cursor back as cursor.`,
			Examples:    []any{map[string]any{"query": "memory leak", "limit": 5}},
		}, func(ctx context.Context, in WikiSearchInput) (*WikiHits, error) { return SearchWiki(ctx, w, in) }),
		renameArgs(Typed(Spec{
			Name: "wiki_read", Title: "Read a wiki page", ReadOnly: true, Method: "GET",
			Description: `Read a wiki page by slug ("memory-leak", or "topic/why-crash" with its category) with its citation and links.`,
			Examples:    []any{map[string]any{"slug": "memory-leak"}},
			Describe:    map[string]string{"slug": "Page slug (old name: slug).", "category": "Its category when the slug is ambiguous."},
			Enums:       map[string][]string{"category": wiki.Categories},
		}, w.Read), map[string]string{"target": "slug"}),
		Typed(Spec{
			Name: "wiki_write", Title: "Write a wiki page", Destructive: true,
			Description: `Write (or overwrite) a wiki page of a category with a title and markdown content; updates index.md and log.md. Cite your sources in it.`,
			Examples:    []any{map[string]any{"category": "topic", "title": "Why the system crashes", "content": "..."}},
			Describe: map[string]string{"category": "Page category.", "title": "Page title.", "content": "Markdown.",
				"type": "Page type.", "tags": "Tags.", "summary": "One line for the index.", "source_document": "Source it summarizes."},
			Enums: map[string][]string{"category": wiki.Categories},
		}, w.Write),
		Typed(Spec{
			Name: "wiki_lint", Title: "Lint the wiki", ReadOnly: true, Method: "GET",
			Description: `Check the wiki: broken links, orphan pages, pages missing from the index.`,
		}, func(ctx context.Context, _ LintInput) (*wiki.LintOutput, error) { return w.Lint(ctx) }),
	}
}
