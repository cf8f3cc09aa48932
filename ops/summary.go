package ops

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/memory"
)

// SummaryInput is the input of graph_summary: the overview (every list
// cut at limit), or one list a page at a time (list and cursor).
type SummaryInput struct {
	Limit  int    `json:"limit,omitempty" jsonschema:"Items per list (default 10)."`
	List   string `json:"list,omitempty" jsonschema:"Page this list only (a key of more)."`
	Cursor string `json:"cursor,omitempty" jsonschema:"more[list] or next_cursor."`
	Budget *int   `json:"budget,omitempty" jsonschema:"Message budget in bytes."`
}

// NotesSummary counts the memory notes by tier (their memory_type) and
// tag, and the stale ones (0 without a memory index, where marks live).
type NotesSummary struct {
	Notes    int               `json:"notes"`
	ByTier   []graph.TypeCount `json:"by_tier"`
	ByTag    []graph.TypeCount `json:"by_tag"`
	TagTotal int               `json:"tag_total"`
	Stale    int               `json:"stale"`
}

// SummaryOutput is the overview of the graph and the notes. More names
// each list cut at the limit with the cursor of its next page (call again
// with list and cursor); a paged call fills that list only, with
// next_cursor.
type SummaryOutput struct {
	Graph *graph.Summary `json:"graph"`
	Notes *NotesSummary  `json:"notes"`
	// Assumptions say what the counts took for granted (the notes counted
	// as of the last full check of their files).
	Assumptions []string          `json:"assumptions,omitempty"`
	More        map[string]string `json:"more,omitempty"`
	List        string            `json:"list,omitempty"`
	NextCursor  string            `json:"next_cursor,omitempty"`
}

// Summary lists: the graph's (graph.Summary*) and the notes'.
const (
	SummaryNoteTags  = "note_tags"
	SummaryNoteTiers = "note_tiers"
	// DefaultSummaryLimit and MaxSummaryLimit bound a summary list.
	DefaultSummaryLimit = 10
	MaxSummaryLimit     = 200
)

var summaryLists = []string{graph.SummaryEntityTypes, graph.SummaryRelationTypes, graph.SummaryMostConnected, graph.SummaryRecentlyStale, SummaryNoteTiers, SummaryNoteTags}

// Summarize is graph_summary and `retrieve graph summary`: a few KB
// whatever the size of the graph and the notes. svc may be nil (no
// notes).
func Summarize(ctx context.Context, t *graph.Tools, svc *memory.Service, in SummaryInput) (*SummaryOutput, error) {
	if _, err := CallBudget(ctx, in.Budget); err != nil {
		return nil, err
	}
	if in.List != "" && !slices.Contains(summaryLists, in.List) {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "list %q is not one of %v", in.List, summaryLists).WithHint("page a list that more names")
	}
	spec := PageSpec{List: "graph_summary", Filter: Fingerprint(in.List), Cursor: in.Cursor, Limit: in.Limit, Default: DefaultSummaryLimit, Max: MaxSummaryLimit, Reserve: 1024}
	c, limit, err := spec.Start()
	if err != nil {
		return nil, err
	}
	// Each list is read to one past the page, to know whether it goes on.
	s, err := t.Summary(ctx, in.List, c.Offset+limit+1)
	if err != nil {
		return nil, err
	}
	out := &SummaryOutput{Graph: s, List: in.List, More: map[string]string{}}
	if svc != nil && (in.List == "" || in.List == SummaryNoteTags || in.List == SummaryNoteTiers) {
		var checked time.Time
		if out.Notes, checked, err = notesSummary(ctx, svc); err != nil {
			return nil, err
		}
		if !checked.IsZero() {
			out.Assumptions = append(out.Assumptions, fmt.Sprintf("notes counted from the memory index as of its last full check of the note files, %s: notes added, removed or moved since are counted, one edited in place since (without a rename) with its tags of then; a memory search checks every file", checked.UTC().Format(time.RFC3339)))
		}
	}
	// Cut every list: the overview to the first page (more: the next
	// one's cursor), a paged list to its page.
	cut := func(name string, n int, keep func(lo, hi int)) error {
		if in.List != "" && in.List != name {
			keep(0, 0)
			return nil
		}
		ls := spec
		ls.Filter = Fingerprint(name)
		if in.List == "" {
			ls.Cursor = ""
		}
		p, err := Paginate(ctx, ls, make([]struct{}, n))
		if err != nil {
			return err
		}
		keep(p.Cursor.Offset, p.Cursor.Offset+len(p.Items))
		if in.List == name {
			out.NextCursor = p.Next
		} else if p.Next != "" {
			out.More[name] = p.Next
		}
		return nil
	}
	steps := []summaryList{
		{graph.SummaryEntityTypes, len(s.EntityTypes), func(lo, hi int) { s.EntityTypes = s.EntityTypes[lo:hi] }},
		{graph.SummaryRelationTypes, len(s.RelationTypes), func(lo, hi int) { s.RelationTypes = s.RelationTypes[lo:hi] }},
		{graph.SummaryMostConnected, len(s.MostConnected), func(lo, hi int) { s.MostConnected = s.MostConnected[lo:hi] }},
		{graph.SummaryRecentlyStale, len(s.RecentlyStale), func(lo, hi int) { s.RecentlyStale = s.RecentlyStale[lo:hi] }},
	}
	if out.Notes != nil {
		steps = append(steps,
			summaryList{SummaryNoteTiers, len(out.Notes.ByTier), func(lo, hi int) { out.Notes.ByTier = out.Notes.ByTier[lo:hi] }},
			summaryList{SummaryNoteTags, len(out.Notes.ByTag), func(lo, hi int) { out.Notes.ByTag = out.Notes.ByTag[lo:hi] }})
	}
	for _, st := range steps {
		if err := cut(st.name, st.n, st.keep); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// summaryList is one list of a summary: its name, length, and how to keep
// the items lo to hi of it.
type summaryList struct {
	name string
	n    int
	keep func(lo, hi int)
}

// notesSummary counts the notes from the memory index (memory.Counts:
// aggregates of its tables, no note read while the index is current),
// else through the memory list (the cached listing memory_list pages: a
// second summary reads no note while the tier folders are unchanged).
func notesSummary(ctx context.Context, svc *memory.Service) (*NotesSummary, time.Time, error) {
	absent := func(err error) bool {
		return retrieve.ErrorCode(err) == retrieve.CodeNotFound || retrieve.ErrorCode(err) == retrieve.CodePathNotFound
	}
	if c, ok, err := svc.Counts(ctx); ok {
		if err != nil {
			if absent(err) {
				return nil, time.Time{}, nil
			}
			return nil, time.Time{}, err
		}
		return &NotesSummary{Notes: c.Notes, ByTier: countsOf(c.ByTier), ByTag: countsOf(c.ByTag), TagTotal: len(c.ByTag), Stale: c.Stale}, c.CheckedAt, nil
	}
	all, err := listMemoryCached(ctx, svc, memory.ListInput{}, Fingerprint("", []string(nil)))
	if err != nil {
		if absent(err) {
			return nil, time.Time{}, nil
		}
		return nil, time.Time{}, err
	}
	// The counts of a listing are counted once: a cached listing is the
	// same object until a note changes.
	if c, ok := notesCounts.Load(svc); ok && c.(*notesCount).list == all {
		return c.(*notesCount).summary(), time.Time{}, nil
	}
	tiers, tags := map[string]int{}, map[string]int{}
	for _, e := range all.Entries {
		tiers[e.Type]++
		for _, t := range e.Tags {
			tags[t]++
		}
	}
	c := &notesCount{list: all, s: NotesSummary{Notes: all.Total, ByTier: countsOf(tiers), ByTag: countsOf(tags), TagTotal: len(tags)}}
	notesCounts.Store(svc, c)
	return c.summary(), time.Time{}, nil
}

// notesCounts keeps the counts of the last listing of each memory service.
var notesCounts sync.Map // *memory.Service → *notesCount

type notesCount struct {
	list *memory.ListOutput
	s    NotesSummary
}

// summary is a copy the caller may cut.
func (c *notesCount) summary() *NotesSummary {
	s := c.s
	s.ByTier, s.ByTag = slices.Clone(s.ByTier), slices.Clone(s.ByTag)
	return &s
}

// countsOf sorts counts, most first, then by name.
func countsOf(m map[string]int) []graph.TypeCount {
	out := make([]graph.TypeCount, 0, len(m))
	for k, n := range m {
		out = append(out, graph.TypeCount{Type: k, Count: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Type < out[j].Type
	})
	return out
}
