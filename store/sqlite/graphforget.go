package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/store/internal/sqlcommon"
)

var onlyNodes = sqlcommon.OnlyNodes(func(int) string { return "?1" })

// tx runs fn in a write transaction, again when SQLite was busy.
func (g *Graph) tx(ctx context.Context, op string, fn func(tx *sql.Tx) error) error {
	err := retry(ctx, func() error {
		tx, err := g.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := fn(tx); err != nil {
			return err
		}
		return tx.Commit()
	})
	if err != nil {
		return g.gerr(op, err)
	}
	return nil
}

// forgetEdges removes doc's evidence from at most limit (all when limit
// < 0) live edges, in key order, one transaction: the versions whose
// primary evidence it was retired as forgotten (text erased), the edges
// that no other document supports gone (stUnsupport).
func forgetEdges(ctx context.Context, tx *sql.Tx, doc string, now int64, limit int) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT source, target, type FROM (SELECT source, target, type FROM graph_edge_evidence WHERE doc_id = ?1
		UNION SELECT source, target, type FROM graph_edges WHERE source_document = ?1) ORDER BY source, target, type LIMIT ?2`, doc, limit)
	if err != nil {
		return 0, err
	}
	keys, err := sqlcommon.ScanKeys(rows)
	rows.Close()
	if err != nil {
		return 0, err
	}
	st := &txStmts{ctx: ctx, tx: tx, stmt: map[string]*sql.Stmt{}, degree: degrees{}}
	defer st.close()
	for _, e := range keys {
		if _, err := stUnsupport(st, e, doc, graph.RetiredForgotten, now); err != nil {
			return 0, err
		}
	}
	return len(keys), nil
}

// ForgetEdges implements graph.Store.
func (g *Graph) ForgetEdges(ctx context.Context, docID string, now int64, limit int) (int, error) {
	n := 0
	err := g.tx(ctx, "forget edges", func(tx *sql.Tx) (err error) {
		n, err = forgetEdges(ctx, tx, docID, now, limit)
		return err
	})
	return n, err
}

// ForgetDocument implements graph.Store.
func (g *Graph) ForgetDocument(ctx context.Context, docID string, now int64) (*graph.ForgetCounts, error) {
	var c *graph.ForgetCounts
	err := g.tx(ctx, "forget document", func(tx *sql.Tx) error {
		c = &graph.ForgetCounts{}
		var err error
		if c.Edges, err = forgetEdges(ctx, tx, docID, now, -1); err != nil {
			return err
		}
		nodes, err := txIDs(ctx, tx, onlyNodes, docID)
		if err != nil {
			return err
		}
		list := jsonList(nodes)
		if _, err := tx.ExecContext(ctx, `UPDATE graph_nodes SET retired_at = ?, source_document = '' WHERE id IN `+inJSON, now, list); err != nil {
			return err
		}
		for _, q := range []string{
			`DELETE FROM graph_keywords WHERE node_id IN ` + inJSON,
			`DELETE FROM graph_node_fts WHERE node_id IN ` + inJSON,
			`DELETE FROM graph_node_chunks WHERE node_id IN ` + inJSON,
		} {
			if _, err := tx.ExecContext(ctx, q, list); err != nil {
				return err
			}
		}
		c.Nodes = len(nodes)
		steps := []struct {
			q string
			n *int
		}{
			{`UPDATE graph_edges_retired SET supporting_text = '', stale_diff = '', reason = 'forgotten' WHERE source_document = ?1 AND reason <> 'forgotten'`, &c.RetiredVersions},
			{`UPDATE graph_document_versions SET title = '', content = '' WHERE doc_id = ?1 AND content <> ''`, &c.Versions},
			{`DELETE FROM graph_node_chunks WHERE chunk_id IN (SELECT chunk_id FROM graph_chunks WHERE doc_id = ?1)`, nil},
			{`UPDATE graph_nodes SET source_document = '' WHERE source_document = ?1`, nil},
			{`DELETE FROM graph_chunk_fts WHERE chunk_id IN (SELECT chunk_id FROM graph_chunks WHERE doc_id = ?1)`, nil},
			{`DELETE FROM graph_chunks WHERE doc_id = ?1`, &c.Chunks},
			{`UPDATE graph_documents SET title = '', content = '', forgotten_at = ?2 WHERE id = ?1`, nil},
		}
		for _, s := range steps {
			args := []any{docID}
			if strings.Contains(s.q, "?2") {
				args = append(args, now)
			}
			r, err := tx.ExecContext(ctx, s.q, args...)
			if err != nil {
				return err
			}
			if s.n != nil {
				*s.n = int(affected(r))
			}
		}
		return nil
	})
	return c, err
}

// ForgetPreview implements graph.Store.
func (g *Graph) ForgetPreview(ctx context.Context, docID string, limit int) (*graph.ForgetCounts, []*graph.Edge, error) {
	c := &graph.ForgetCounts{}
	err := g.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM graph_edge_evidence WHERE doc_id = ?1),
		(SELECT count(*) FROM graph_edge_evidence v WHERE v.doc_id = ?1 AND EXISTS (SELECT 1 FROM graph_edge_evidence o
			WHERE o.source = v.source AND o.target = v.target AND o.type = v.type AND o.doc_id <> ?1)),
		(SELECT count(*) FROM graph_edges_retired WHERE source_document = ?1 AND reason <> 'forgotten'),
		(SELECT count(*) FROM (`+onlyNodes+`)),
		(SELECT count(*) FROM graph_chunks WHERE doc_id = ?1),
		(SELECT count(*) FROM graph_document_versions WHERE doc_id = ?1 AND content <> '')`, docID).
		Scan(&c.Edges, &c.EdgesKept, &c.RetiredVersions, &c.Nodes, &c.Chunks, &c.Versions)
	if err != nil {
		return nil, nil, g.gerr("preview forget", err)
	}
	edges, err := g.DocumentEdges(ctx, docID)
	if err != nil {
		return nil, nil, err
	}
	return c, edges[:min(limit, len(edges))], nil
}

// GraphSummaryCounts implements graph.Store: the rows the triggers of
// migration 3 keep.
func (g *Graph) GraphSummaryCounts(ctx context.Context) (*graph.SummaryCounts, error) {
	c := &graph.SummaryCounts{}
	rows, err := g.query(ctx, `SELECT name, n FROM graph_counts`)
	if err != nil {
		return nil, g.gerr("count", err)
	}
	defer rows.Close()
	dst := map[string]*int{"documents": &c.Documents, "forgotten": &c.ForgottenDocuments, "chunks": &c.Chunks, "entities": &c.Entities,
		"edges": &c.Edges, "retired": &c.RetiredEdges, "stale": &c.StaleEdges}
	for rows.Next() {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			return nil, g.gerr("count", err)
		}
		if p := dst[name]; p != nil {
			*p = n
		}
	}
	return c, g.gerr2("count", rows.Err())
}

func (g *Graph) typeCounts(ctx context.Context, op, q string, args ...any) ([]graph.TypeCount, error) {
	rows, err := g.query(ctx, q, args...)
	if err != nil {
		return nil, g.gerr(op, err)
	}
	defer rows.Close()
	out := []graph.TypeCount{}
	for rows.Next() {
		var c graph.TypeCount
		if err := rows.Scan(&c.Type, &c.Count); err != nil {
			return nil, g.gerr(op, err)
		}
		out = append(out, c)
	}
	return out, g.gerr2(op, rows.Err())
}

// GraphTypeCounts implements graph.Store.
func (g *Graph) GraphTypeCounts(ctx context.Context, kind string, limit int) ([]graph.TypeCount, int, error) {
	out, err := g.typeCounts(ctx, "count types", `SELECT type, n FROM graph_type_counts WHERE kind = ? AND n > 0 ORDER BY n DESC, type LIMIT ?`, kind, limit)
	if err != nil {
		return nil, 0, err
	}
	var total int
	if err := g.db.QueryRowContext(ctx, `SELECT count(*) FROM graph_type_counts WHERE kind = ? AND n > 0`, kind).Scan(&total); err != nil {
		return nil, 0, g.gerr("count types", err)
	}
	return out, total, nil
}

// GraphHubs implements graph.Store.
func (g *Graph) GraphHubs(ctx context.Context, limit int) ([]graph.TypeCount, error) {
	return g.typeCounts(ctx, "find hubs", `SELECT node_id, degree FROM graph_degree WHERE degree > 0 ORDER BY degree DESC, node_id LIMIT ?`, limit)
}

// GraphRecentlyStale implements graph.Store.
func (g *Graph) GraphRecentlyStale(ctx context.Context, limit int) ([]*graph.Edge, error) {
	return g.edges(ctx, "read stale edges", scanEdge, `SELECT `+edgeCols+` FROM graph_edges WHERE stale_at > 0 ORDER BY stale_at DESC, source, target, type LIMIT ?`, limit)
}

// GraphDocumentTextAt implements graph.Store.
func (g *Graph) GraphDocumentTextAt(ctx context.Context, id string, at int64) (string, error) {
	var text string
	err := g.db.QueryRowContext(ctx, `SELECT content FROM graph_documents WHERE id = ?1 AND recorded_at <= ?2 AND forgotten_at = 0
		UNION ALL SELECT content FROM graph_document_versions WHERE doc_id = ?1 AND recorded_at <= ?2 AND retired_at > ?2 LIMIT 1`, id, at).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", g.gerr("read document", err)
	}
	return text, nil
}
