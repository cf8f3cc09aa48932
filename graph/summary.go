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

// Summary counts the graph and lists the first limit items of each list
// (all of list only, when list is set: the first limit of it).
func (t *Tools) Summary(ctx context.Context, list string, limit int) (*Summary, error) {
	s := &Summary{EntityTypes: []TypeCount{}, RelationTypes: []TypeCount{}, MostConnected: []Hub{}, RecentlyStale: []StaleItem{}}
	c, err := t.Store.GraphSummaryCounts(ctx)
	if err != nil {
		return nil, err
	}
	s.SummaryCounts = *c
	want := func(name string) bool { return list == "" || list == name }
	if want(SummaryEntityTypes) {
		if s.EntityTypes, s.EntityTypeTotal, err = t.Store.GraphTypeCounts(ctx, "entity", limit); err != nil {
			return nil, err
		}
	}
	if want(SummaryRelationTypes) {
		if s.RelationTypes, s.RelationTypeTotal, err = t.Store.GraphTypeCounts(ctx, "relation", limit); err != nil {
			return nil, err
		}
	}
	if want(SummaryMostConnected) {
		if s.MostConnected, err = t.hubs(ctx, limit); err != nil {
			return nil, err
		}
	}
	if want(SummaryRecentlyStale) {
		if s.RecentlyStale, err = t.recentlyStale(ctx, limit); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (t *Tools) hubs(ctx context.Context, limit int) ([]Hub, error) {
	counts, err := t.Store.GraphHubs(ctx, limit)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(counts))
	for i, c := range counts {
		ids[i] = c.Type
	}
	nodes, err := t.Store.GraphNodes(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]Hub, 0, len(counts))
	for _, c := range counts {
		h := Hub{ID: c.Type, Degree: c.Count}
		if n := nodes[c.Type]; n != nil {
			h.Name, h.Type = n.Name, n.Type
		}
		out = append(out, h)
	}
	return out, nil
}

func (t *Tools) recentlyStale(ctx context.Context, limit int) ([]StaleItem, error) {
	edges, err := t.Store.GraphRecentlyStale(ctx, limit)
	if err != nil {
		return nil, err
	}
	names, err := edgeNames(ctx, t.Store, edges)
	if err != nil {
		return nil, err
	}
	out := make([]StaleItem, 0, len(edges))
	for _, e := range edges {
		out = append(out, StaleItem{Edge: EdgeReference(e), Chain: names[e.Source] + " --[" + e.Type + "]--> " + names[e.Target],
			DocID: string(e.SourceDocument), StaleSince: FromMicros(e.StaleAt)})
	}
	return out, nil
}
