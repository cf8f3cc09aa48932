package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/store/internal/sqlcommon"
)

var onlyNodes = sqlcommon.OnlyNodes(pgParam)

// inTx runs fn in a transaction, again after a deadlock or serialization
// failure and when the connection broke.
func (g *Graph) inTx(ctx context.Context, op string, fn func(tx pgx.Tx) error) error {
	return g.do(ctx, op, func() error {
		var err error
		for i := 0; i < 6; i++ {
			if err = pgx.BeginFunc(ctx, g.db.pool, fn); err == nil || !conflict(err) || ctx.Err() != nil {
				return err
			}
		}
		return err
	})
}

// forgetEdges removes doc's evidence from at most limit (all when limit
// < 0) live edges, in key order (the lock order of the writers): the
// versions whose primary evidence it was retired as forgotten (text
// erased), the edges no other document supports gone (unsupport).
func forgetEdges(ctx context.Context, tx pgx.Tx, doc string, now int64, limit int) (int, error) {
	lim := any(limit)
	if limit < 0 {
		lim = nil
	}
	rows, err := tx.Query(ctx, `SELECT source, target, type FROM graph_edge_evidence WHERE doc_id = $1
		UNION SELECT source, target, type FROM graph_edges WHERE source_document = $1 ORDER BY source, target, type LIMIT $2`, doc, lim)
	if err != nil {
		return 0, err
	}
	keys, err := sqlcommon.ScanKeys(rows)
	rows.Close()
	if err != nil || len(keys) == 0 {
		return 0, err
	}
	if _, err := unsupport(ctx, tx, keys, doc, graph.RetiredForgotten, now); err != nil {
		return 0, err
	}
	return len(keys), nil
}

// ForgetEdges implements graph.Store.
func (g *Graph) ForgetEdges(ctx context.Context, docID string, now int64, limit int) (int, error) {
	defer g.folded.Store(0) // what this handle writes, its next summary sees
	n := 0
	err := g.inTx(ctx, "forget edges", func(tx pgx.Tx) (err error) {
		if _, err := tx.Exec(ctx, `SELECT 1 FROM graph_documents WHERE id = $1 FOR UPDATE`, docID); err != nil {
			return err
		}
		n, err = forgetEdges(ctx, tx, docID, now, limit)
		return err
	})
	return n, err
}

// ForgetDocument implements graph.Store. Each node to retire is locked
// (FOR UPDATE, which an ingest's FOR SHARE and a new edge's foreign key
// wait for) and checked again before it is retired.
func (g *Graph) ForgetDocument(ctx context.Context, docID string, now int64) (*graph.ForgetCounts, error) {
	defer g.folded.Store(0) // what this handle writes, its next summary sees
	var c *graph.ForgetCounts
	err := g.inTx(ctx, "forget document", func(tx pgx.Tx) error {
		c = &graph.ForgetCounts{}
		if _, err := tx.Exec(ctx, `SELECT 1 FROM graph_documents WHERE id = $1 FOR UPDATE`, docID); err != nil {
			return err
		}
		var err error
		if c.Edges, err = forgetEdges(ctx, tx, docID, now, -1); err != nil {
			return err
		}
		var nodes []string
		if err := tx.QueryRow(ctx, `SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM (`+onlyNodes+`) o`, docID).Scan(&nodes); err != nil {
			return err
		}
		if len(nodes) > 0 {
			if _, err := tx.Exec(ctx, `SELECT id FROM graph_nodes WHERE id = ANY($1) ORDER BY id FOR UPDATE`, nodes); err != nil {
				return err
			}
			// Again, now that no writer can link them: the ones still only
			// this document's.
			if err := tx.QueryRow(ctx, `SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM (`+onlyNodes+`) o`, docID).Scan(&nodes); err != nil {
				return err
			}
		}
		bt := &pgx.Batch{}
		bt.Queue(`UPDATE graph_nodes SET retired_at = $2, source_document = '' WHERE id = ANY($1)`, nodes, now)
		bt.Queue(`DELETE FROM graph_keywords WHERE node_id = ANY($1)`, nodes)
		bt.Queue(`DELETE FROM graph_node_chunks WHERE node_id = ANY($1)`, nodes)
		bt.Queue(`UPDATE graph_edges_retired SET supporting_text = '', stale_diff = '', reason = 'forgotten' WHERE source_document = $1 AND reason <> 'forgotten'`, docID)
		bt.Queue(`UPDATE graph_document_versions SET title = '', content = '' WHERE doc_id = $1 AND content <> ''`, docID)
		bt.Queue(`DELETE FROM graph_node_chunks WHERE chunk_id IN (SELECT chunk_id FROM graph_chunks WHERE doc_id = $1)`, docID)
		bt.Queue(`UPDATE graph_nodes SET source_document = '' WHERE source_document = $1`, docID)
		bt.Queue(`DELETE FROM graph_chunks WHERE doc_id = $1`, docID)
		bt.Queue(`UPDATE graph_documents SET title = '', content = '', forgotten_at = $2 WHERE id = $1`, docID, now)
		br := tx.SendBatch(ctx, bt)
		counts := []*int{nil, nil, nil, &c.RetiredVersions, &c.Versions, nil, nil, &c.Chunks, nil}
		for _, n := range counts {
			tag, err := br.Exec()
			if err != nil {
				br.Close()
				return err
			}
			if n != nil {
				*n = int(tag.RowsAffected())
			}
		}
		c.Nodes = len(nodes)
		return br.Close()
	})
	return c, err
}

// ForgetPreview implements graph.Store.
func (g *Graph) ForgetPreview(ctx context.Context, docID string, limit int) (*graph.ForgetCounts, []*graph.Edge, error) {
	c := &graph.ForgetCounts{}
	err := g.do(ctx, "preview forget", func() error {
		return g.db.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM graph_edge_evidence WHERE doc_id = $1),
			(SELECT count(*) FROM graph_edge_evidence v WHERE v.doc_id = $1 AND EXISTS (SELECT 1 FROM graph_edge_evidence o
				WHERE o.source = v.source AND o.target = v.target AND o.type = v.type AND o.doc_id <> $1)),
			(SELECT count(*) FROM graph_edges_retired WHERE source_document = $1 AND reason <> 'forgotten'),
			(SELECT count(*) FROM (`+onlyNodes+`) o),
			(SELECT count(*) FROM graph_chunks WHERE doc_id = $1),
			(SELECT count(*) FROM graph_document_versions WHERE doc_id = $1 AND content <> '')`, docID).
			Scan(&c.Edges, &c.EdgesKept, &c.RetiredVersions, &c.Nodes, &c.Chunks, &c.Versions)
	})
	if err != nil {
		return nil, nil, err
	}
	edges, err := g.DocumentEdges(ctx, docID)
	if err != nil {
		return nil, nil, err
	}
	return c, edges[:min(limit, len(edges))], nil
}

// foldEvery is how long the summary's reads of one handle go on from its
// last fold: the parts of one summary (counts, types, hubs) fold once.
const foldEvery = time.Second

// foldAgg folds the summary's pending changes (graph_agg_delta, which the
// triggers of graph migration 4 append to) into graph_agg, in key order:
// the rows a concurrent writer appends meanwhile are not deleted and wait
// for the next fold. Within foldEvery of this handle's last fold it does
// nothing: the counts are then as of that fold.
func (g *Graph) foldAgg(ctx context.Context) error {
	now, due := g.foldDue()
	if !due {
		return nil
	}
	defer g.folded.Store(now)
	return g.do(ctx, "fold the summary's counts", func() error {
		_, err := g.db.pool.Exec(ctx, foldAggSQL)
		return err
	})
}

// foldDue reports whether this handle's last fold is foldEvery old (or
// none was made), with the time to record once it folds.
func (g *Graph) foldDue() (now int64, due bool) {
	now = time.Now().UnixNano()
	last := g.folded.Load()
	return now, last == 0 || now-last >= int64(foldEvery)
}

// foldAggSQL moves graph_agg_delta's rows into graph_agg when it has one:
// the EXISTS (on the kind index) is a one-time filter, so an empty delta
// table is not scanned through its dead rows.
const foldAggSQL = `WITH d AS (DELETE FROM graph_agg_delta WHERE EXISTS (SELECT 1 FROM graph_agg_delta p WHERE p.kind >= '') RETURNING kind, key, n)
	INSERT INTO graph_agg (kind, key, n) SELECT kind, key, sum(n)::bigint FROM d GROUP BY kind, key ORDER BY kind, key
	ON CONFLICT (kind, key) DO UPDATE SET n = graph_agg.n + excluded.n`

// GraphSummaryCounts implements graph.Store: the rows graph_agg keeps.
func (g *Graph) GraphSummaryCounts(ctx context.Context) (*graph.SummaryCounts, error) {
	if err := g.foldAgg(ctx); err != nil {
		return nil, err
	}
	rows, err := g.typeCounts(ctx, "count", countsSQL)
	if err != nil {
		return nil, err
	}
	c := &graph.SummaryCounts{}
	setCounts(c, rows)
	return c, nil
}

const countsSQL = `SELECT key, n FROM graph_agg WHERE kind = 'count'`

// setCounts sets c from graph_agg's 'count' rows.
func setCounts(c *graph.SummaryCounts, rows []graph.TypeCount) {
	dst := map[string]*int{"documents": &c.Documents, "forgotten": &c.ForgottenDocuments, "chunks": &c.Chunks, "entities": &c.Entities,
		"edges": &c.Edges, "retired": &c.RetiredEdges, "stale": &c.StaleEdges}
	for _, r := range rows {
		if p := dst[r.Type]; p != nil {
			*p = r.Count
		}
	}
}

func (g *Graph) typeCounts(ctx context.Context, op, q string, args ...any) ([]graph.TypeCount, error) {
	var out []graph.TypeCount
	err := g.each(ctx, op, func() { out = out[:0] }, func(r pgx.Rows) error {
		var c graph.TypeCount
		if err := r.Scan(&c.Type, &c.Count); err != nil {
			return err
		}
		out = append(out, c)
		return nil
	}, q, args...)
	return out, err
}

// GraphTypeCounts implements graph.Store.
func (g *Graph) GraphTypeCounts(ctx context.Context, kind string, limit int) ([]graph.TypeCount, int, error) {
	if err := g.foldAgg(ctx); err != nil {
		return nil, 0, err
	}
	// The page and, in each row, how many types there are (one query).
	var out []graph.TypeCount
	total := 0
	err := g.each(ctx, "count types", func() { out, total = out[:0], 0 }, func(r pgx.Rows) error {
		var c graph.TypeCount
		if err := r.Scan(&c.Type, &c.Count, &total); err != nil {
			return err
		}
		if c.Type != "" || c.Count > 0 {
			out = append(out, c)
		}
		return nil
	}, typeCountsSQL, kind, limit)
	if err != nil {
		return nil, 0, err
	}
	if out == nil {
		out = []graph.TypeCount{}
	}
	return out, total, nil
}

// typeCountsSQL is a page of types of a kind and, in each row, how many
// types there are (one query).
const typeCountsSQL = `SELECT t.key, t.n, t.total FROM (SELECT key, n, count(*) OVER () AS total FROM graph_agg WHERE kind = $1 AND n > 0) t
	ORDER BY t.n DESC, t.key LIMIT $2`

// GraphHubs implements graph.Store.
func (g *Graph) GraphHubs(ctx context.Context, limit int) ([]graph.TypeCount, error) {
	if err := g.foldAgg(ctx); err != nil {
		return nil, err
	}
	return g.typeCounts(ctx, "find hubs", hubsSQL, limit)
}

const hubsSQL = `SELECT key, n FROM graph_agg WHERE kind = 'degree' AND n > 0 ORDER BY n DESC, key LIMIT $1`

// staleSQL lists the live edges found stale, most recently first.
const staleSQL = `SELECT ` + edgeCols + ` FROM graph_edges WHERE stale_at > 0 ORDER BY stale_at DESC, source, target, type LIMIT $1`

// GraphRecentlyStale implements graph.Store.
func (g *Graph) GraphRecentlyStale(ctx context.Context, limit int) ([]*graph.Edge, error) {
	var out []*graph.Edge
	err := g.each(ctx, "read stale edges", func() { out = out[:0] }, func(r pgx.Rows) error {
		e, err := scanEdge(r)
		if err != nil {
			return err
		}
		out = append(out, e)
		return nil
	}, staleSQL, limit)
	return out, err
}

// GraphDocumentTextAt implements graph.Store.
func (g *Graph) GraphDocumentTextAt(ctx context.Context, id string, at int64) (string, error) {
	var text string
	err := g.do(ctx, "read document", func() error {
		err := g.db.pool.QueryRow(ctx, `SELECT content FROM graph_documents WHERE id = $1 AND recorded_at <= $2 AND forgotten_at = 0
			UNION ALL SELECT content FROM graph_document_versions WHERE doc_id = $1 AND recorded_at <= $2 AND retired_at > $2 LIMIT 1`, id, at).Scan(&text)
		if errors.Is(err, pgx.ErrNoRows) {
			text = ""
			return nil
		}
		return err
	})
	return text, err
}
