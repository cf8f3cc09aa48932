package graph

import "context"

// Summary is a cheap overview of the graph: its sizes, the entity and
// relation types most used, the most connected entities and the edges
// found stale most recently — each list cut to a limit, with its full
// length, so that it stays a few KB whatever the size of the graph.
type Summary struct {
	SummaryCounts
	EntityTypes   []TypeCount `json:"entity_types"`
	RelationTypes []TypeCount `json:"relation_types"`
	// EntityTypeTotal and RelationTypeTotal count the distinct types.
	EntityTypeTotal   int         `json:"entity_type_total"`
	RelationTypeTotal int         `json:"relation_type_total"`
	MostConnected     []Hub       `json:"most_connected"`
	RecentlyStale     []StaleItem `json:"recently_stale"`
}

// Hub is an entity and how many live edges touch it.
type Hub struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Type   string `json:"type"`
	Degree int    `json:"degree"`
}

// StaleItem is an edge found stale, for the summary.
type StaleItem struct {
	Edge       string `json:"edge"`
	Chain      string `json:"chain"`
	DocID      string `json:"doc_id"`
	StaleSince string `json:"stale_since"`
}

// Summary lists, by name: the lists a summary holds, which a caller pages
// one at a time.
const (
	SummaryEntityTypes   = "entity_types"
	SummaryRelationTypes = "relation_types"
	SummaryMostConnected = "most_connected"
	SummaryRecentlyStale = "recently_stale"
)

// SummaryParts are what a summary reads from the store: the counts, the
// lists it wants (cut at their limit) and the live nodes that the hubs
// and the stale edges' ends name.
type SummaryParts struct {
	Counts            SummaryCounts
	EntityTypes       []TypeCount
	RelationTypes     []TypeCount
	EntityTypeTotal   int
	RelationTypeTotal int
	Hubs              []TypeCount
	Stale             []*Edge
	Nodes             map[string]*Node
}

// SummaryReader is a Store that reads a summary's parts at once (the
// PostgreSQL store: one pipelined round trip instead of seven). Lists
// not wanted (want false) stay empty.
type SummaryReader interface {
	GraphSummaryParts(ctx context.Context, want func(list string) bool, limit int) (*SummaryParts, error)
}

// Summary counts the graph and lists the first limit items of each list
// (all of list only, when list is set: the first limit of it).
func (t *Tools) Summary(ctx context.Context, list string, limit int) (*Summary, error) {
	want := func(name string) bool { return list == "" || list == name }
	var p *SummaryParts
	var err error
	if r, ok := t.Store.(SummaryReader); ok {
		p, err = r.GraphSummaryParts(ctx, want, limit)
	} else {
		p, err = ReadSummaryParts(ctx, t.Store, want, limit)
	}
	if err != nil {
		return nil, err
	}
	s := &Summary{SummaryCounts: p.Counts, EntityTypes: nonNil(p.EntityTypes), RelationTypes: nonNil(p.RelationTypes),
		EntityTypeTotal: p.EntityTypeTotal, RelationTypeTotal: p.RelationTypeTotal,
		MostConnected: make([]Hub, 0, len(p.Hubs)), RecentlyStale: make([]StaleItem, 0, len(p.Stale))}
	for _, c := range p.Hubs {
		h := Hub{ID: c.Type, Degree: c.Count}
		if n := p.Nodes[c.Type]; n != nil {
			h.Name, h.Type = n.Name, n.Type
		}
		s.MostConnected = append(s.MostConnected, h)
	}
	name := func(id string) string {
		if n := p.Nodes[id]; n != nil {
			return n.Name
		}
		return ""
	}
	for _, e := range p.Stale {
		s.RecentlyStale = append(s.RecentlyStale, StaleItem{Edge: EdgeReference(e), Chain: name(e.Source) + " --[" + e.Type + "]--> " + name(e.Target),
			DocID: string(e.SourceDocument), StaleSince: FromMicros(e.StaleAt)})
	}
	return s, nil
}

func nonNil(c []TypeCount) []TypeCount {
	if c == nil {
		return []TypeCount{}
	}
	return c
}

// ReadSummaryParts reads a summary's parts with the Store's reads, one
// after the other.
func ReadSummaryParts(ctx context.Context, st Store, want func(string) bool, limit int) (*SummaryParts, error) {
	p := &SummaryParts{}
	c, err := st.GraphSummaryCounts(ctx)
	if err != nil {
		return nil, err
	}
	p.Counts = *c
	if want(SummaryEntityTypes) {
		if p.EntityTypes, p.EntityTypeTotal, err = st.GraphTypeCounts(ctx, "entity", limit); err != nil {
			return nil, err
		}
	}
	if want(SummaryRelationTypes) {
		if p.RelationTypes, p.RelationTypeTotal, err = st.GraphTypeCounts(ctx, "relation", limit); err != nil {
			return nil, err
		}
	}
	var ids []string
	if want(SummaryMostConnected) {
		if p.Hubs, err = st.GraphHubs(ctx, limit); err != nil {
			return nil, err
		}
		for _, c := range p.Hubs {
			ids = append(ids, c.Type)
		}
	}
	if want(SummaryRecentlyStale) {
		if p.Stale, err = st.GraphRecentlyStale(ctx, limit); err != nil {
			return nil, err
		}
		for _, e := range p.Stale {
			ids = append(ids, e.Source, e.Target)
		}
	}
	p.Nodes = map[string]*Node{}
	if len(ids) > 0 {
		if p.Nodes, err = st.GraphNodes(ctx, uniq(ids)); err != nil {
			return nil, err
		}
	}
	return p, nil
}
