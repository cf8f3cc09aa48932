package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/retrieve-dev/retrieve/graph"
)

// summaryNodesSQL reads the live nodes the hubs ($1 of them) and the ends
// of the stale edges ($2 of them) name, as GraphHubs and
// GraphRecentlyStale list them.
const summaryNodesSQL = nodeSelect + ` WHERE n.retired_at = 0 AND n.id IN (
	(SELECT a.key FROM graph_agg a WHERE a.kind = 'degree' AND a.n > 0 ORDER BY a.n DESC, a.key LIMIT $1)
	UNION ALL (SELECT e.source FROM graph_edges e WHERE e.stale_at > 0 ORDER BY e.stale_at DESC, e.source, e.target, e.type LIMIT $2)
	UNION ALL (SELECT e.target FROM graph_edges e WHERE e.stale_at > 0 ORDER BY e.stale_at DESC, e.source, e.target, e.type LIMIT $2))`

// GraphSummaryParts implements graph.SummaryReader: the summary's reads
// (and the fold of the pending counts, as foldAgg does it) in one
// pipelined batch, so one round trip whatever the lists. The batch is one
// implicit transaction: the reads see the fold.
func (g *Graph) GraphSummaryParts(ctx context.Context, want func(string) bool, limit int) (*graph.SummaryParts, error) {
	now, fold := g.foldDue()
	var p *graph.SummaryParts
	err := g.do(ctx, "read the summary", func() error {
		p = &graph.SummaryParts{}
		b := &pgx.Batch{}
		if fold {
			b.Queue(foldAggSQL)
		}
		counts := func(dst *[]graph.TypeCount, total *int) func(pgx.Rows) error {
			return func(r pgx.Rows) error {
				var c graph.TypeCount
				var err error
				if total != nil {
					err = r.Scan(&c.Type, &c.Count, total)
				} else {
					err = r.Scan(&c.Type, &c.Count)
				}
				if err == nil && (c.Type != "" || c.Count > 0) {
					*dst = append(*dst, c)
				}
				return err
			}
		}
		var countRows []graph.TypeCount
		queue(b, counts(&countRows, nil), countsSQL)
		if want(graph.SummaryEntityTypes) {
			queue(b, counts(&p.EntityTypes, &p.EntityTypeTotal), typeCountsSQL, "entity", limit)
		}
		if want(graph.SummaryRelationTypes) {
			queue(b, counts(&p.RelationTypes, &p.RelationTypeTotal), typeCountsSQL, "relation", limit)
		}
		hubs, stale := 0, 0
		if want(graph.SummaryMostConnected) {
			hubs = limit
			queue(b, counts(&p.Hubs, nil), hubsSQL, limit)
		}
		if want(graph.SummaryRecentlyStale) {
			stale = limit
			queue(b, func(r pgx.Rows) error {
				e, err := scanEdge(r)
				if err == nil {
					p.Stale = append(p.Stale, e)
				}
				return err
			}, staleSQL, limit)
		}
		p.Nodes = map[string]*graph.Node{}
		if hubs+stale > 0 {
			queue(b, func(r pgx.Rows) error {
				n, err := scanNode(r)
				if err == nil {
					p.Nodes[n.ID] = n
				}
				return err
			}, summaryNodesSQL, hubs, stale)
		}
		if err := g.db.pool.SendBatch(ctx, b).Close(); err != nil {
			return err
		}
		setCounts(&p.Counts, countRows)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if fold {
		g.folded.Store(now)
	}
	return p, nil
}

// queue adds a query to b whose rows scan reads, one at a time.
func queue(b *pgx.Batch, scan func(pgx.Rows) error, q string, args ...any) {
	b.Queue(q, args...).Query(func(rows pgx.Rows) error {
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}
