package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/store/internal/sqlcommon"
	"github.com/retrieve-dev/retrieve/wiki"
)

// Graph is the PostgreSQL implementation of graph.Store and wiki.Index
// (component "graph"): the same tables as the SQLite store, with generated
// tsvector columns and GIN indexes in place of FTS5, ranked with
// ts_rank_cd.
type Graph struct {
	db  *DB
	own bool
	// folded is when this handle last folded the summary's pending
	// changes (unix nanoseconds; foldAgg).
	folded atomic.Int64
}

var (
	_ graph.Store = (*Graph)(nil)
	_ wiki.Index  = (*Graph)(nil)
)

// NewGraph returns the graph of an open store (whose migrations Open
// applied). Closing the graph does not close db.
func NewGraph(db *DB) *Graph { return &Graph{db: db} }

// OpenGraph opens the store at rawURL for the graph alone. Closing the
// graph closes the pool.
func OpenGraph(ctx context.Context, rawURL string) (*Graph, error) {
	db, err := Open(ctx, rawURL, Options{})
	if err != nil {
		return nil, err
	}
	return &Graph{db: db, own: true}, nil
}

// Close closes the pool when the graph opened it.
func (g *Graph) Close() error {
	if g.own {
		return g.db.Close()
	}
	return nil
}

func (g *Graph) gerr(op string, err error) error {
	if err == nil {
		return nil
	}
	return wrap(g.db.where, "graph store: "+op, err)
}

// do runs fn, again when the connection broke.
func (g *Graph) do(ctx context.Context, op string, fn func() error) error {
	_, err := g.db.retry(ctx, fn)
	return g.gerr(op, err)
}

// conflict reports a deadlock or serialization failure between concurrent
// writers, after which the transaction is simply run again.
func conflict(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}

// ApplyGraph implements graph.Store. Rows are written in key order so that
// concurrent batches take their locks in the same order; a deadlock that
// still happens is retried.
func (g *Graph) ApplyGraph(ctx context.Context, b *graph.Batch) (*graph.Applied, error) {
	defer g.folded.Store(0) // what this handle writes, its next summary sees
	var res *graph.Applied
	err := g.do(ctx, "write", func() error {
		for i := 0; ; i++ {
			err := pgx.BeginFunc(ctx, g.db.pool, func(tx pgx.Tx) error {
				r, err := applyTx(ctx, tx, b)
				res = r
				return err
			})
			if err == nil || !conflict(err) || i >= 5 || ctx.Err() != nil {
				return err
			}
			time.Sleep(time.Duration(10*(i+1)) * time.Millisecond)
		}
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func pgParam(n int) string { return fmt.Sprintf("$%d", n) }

// batchDoc is what writing a batch's document decided.
type batchDoc struct {
	replaced string        // the id of the document whose old version the batch replaces
	oldEdges []*graph.Edge // the keys of that version's edges
}

func sendBatch(ctx context.Context, tx pgx.Tx, bt *pgx.Batch) error {
	if bt.Len() == 0 {
		return nil
	}
	return tx.SendBatch(ctx, bt).Close()
}

func queueChunks(bt *pgx.Batch, d *graph.Document) {
	for _, c := range d.Chunks {
		bt.Queue(`INSERT INTO graph_chunks (chunk_id, doc_id, idx, text) VALUES ($1, $2, $3, $4)`, c.ChunkID, d.ID, c.Index, stripNUL(c.Text))
	}
}

func applyDoc(ctx context.Context, tx pgx.Tx, b *graph.Batch, res *graph.Applied) (*batchDoc, error) {
	d, bd := b.Document, &batchDoc{}
	if d == nil {
		return bd, nil
	}
	tag, err := tx.Exec(ctx, `INSERT INTO graph_documents (id, title, source, content, ingestion_date, reference, hash, retrieval_id, version, recorded_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9) ON CONFLICT (id) DO NOTHING`,
		d.ID, stripNUL(d.Title), stripNUL(d.Source), stripNUL(d.Content), d.IngestionDate, stripNUL(d.Reference), d.Hash, d.RetrievalID, b.Now)
	if err != nil {
		return nil, err
	}
	bt := &pgx.Batch{}
	if tag.RowsAffected() == 1 {
		res.DocumentAdded, res.Version = true, 1
		queueChunks(bt, d)
		return bd, sendBatch(ctx, tx, bt)
	}
	var content string
	var forgotten int64
	if err := tx.QueryRow(ctx, `SELECT content, version, forgotten_at FROM graph_documents WHERE id = $1 FOR UPDATE`, d.ID).Scan(&content, &res.Version, &forgotten); err != nil {
		return nil, err
	}
	if content == stripNUL(d.Content) && forgotten == 0 {
		return bd, nil
	}
	// A new version: keep the old text, replace the chunks, and note the
	// old version's edges (retired unless the batch states them again).
	var oldChunks []string
	if err := tx.QueryRow(ctx, `SELECT coalesce(array_agg(chunk_id), '{}') FROM graph_chunks WHERE doc_id = $1`, d.ID).Scan(&oldChunks); err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, `SELECT source, target, type FROM graph_edges WHERE source_document = $1`, d.ID)
	if err != nil {
		return nil, err
	}
	bd.oldEdges, err = sqlcommon.ScanKeys(rows)
	rows.Close()
	if err != nil {
		return nil, err
	}
	bt.Queue(`INSERT INTO graph_document_versions (doc_id, version, title, source, content, ingestion_date, reference, hash, retrieval_id, recorded_at, retired_at)
		SELECT id, version, title, source, content, ingestion_date, reference, hash, retrieval_id, recorded_at, $1 FROM graph_documents WHERE id = $2
		ON CONFLICT DO NOTHING`, b.Now, d.ID)
	bt.Queue(`UPDATE graph_documents SET title = $1, source = $2, content = $3, ingestion_date = $4, reference = $5, hash = $6, retrieval_id = $7,
		version = version + 1, recorded_at = $8, forgotten_at = 0 WHERE id = $9`,
		stripNUL(d.Title), stripNUL(d.Source), stripNUL(d.Content), d.IngestionDate, stripNUL(d.Reference), d.Hash, d.RetrievalID, b.Now, d.ID)
	bt.Queue(`DELETE FROM graph_chunks WHERE doc_id = $1`, d.ID)
	if gone := sqlcommon.ChunkIDsGone(oldChunks, d.Chunks); len(gone) > 0 {
		bt.Queue(`DELETE FROM graph_node_chunks WHERE chunk_id = ANY($1)`, gone)
	}
	queueChunks(bt, d)
	res.Version++
	bd.replaced = d.ID
	return bd, sendBatch(ctx, tx, bt)
}

func applyNodes(ctx context.Context, tx pgx.Tx, b *graph.Batch, res *graph.Applied, entityNew map[string]int) error {
	nodes := sqlcommon.SortedNodes(b)
	if len(nodes) == 0 {
		return nil
	}
	bt := &pgx.Batch{}
	for _, n := range nodes {
		bt.Queue(`INSERT INTO graph_nodes (id, name, type, source_document, recorded_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
			n.ID, stripNUL(n.Name), n.Type, string(n.SourceDocument), b.Now)
	}
	br := tx.SendBatch(ctx, bt)
	added := make([]bool, len(nodes))
	for i := range nodes {
		tag, err := br.Exec()
		if err != nil {
			br.Close()
			return err
		}
		added[i] = tag.RowsAffected() == 1
	}
	if err := br.Close(); err != nil {
		return err
	}
	// A forgotten node stated again comes back (its keywords with it).
	// FOR SHARE: a forget that retires one of these nodes waits for this
	// batch (and sees its edges), or this batch waits for it (and revives).
	if _, err := tx.Exec(ctx, `SELECT id FROM graph_nodes WHERE id = ANY($1) ORDER BY id FOR SHARE`, nodeIDs(nodes)); err != nil {
		return err
	}
	var revived []string
	if err := tx.QueryRow(ctx, `WITH r AS (UPDATE graph_nodes SET retired_at = 0, recorded_at = $1 WHERE id = ANY($2) AND retired_at > 0 RETURNING id)
		SELECT coalesce(array_agg(id), '{}') FROM r`, b.Now, nodeIDs(nodes)).Scan(&revived); err != nil {
		return err
	}
	bt = &pgx.Batch{}
	for i, n := range nodes {
		if added[i] {
			res.NodesAdded++
			entityNew[n.Type]++
		} else if n.SourceDocument != "" {
			bt.Queue(`UPDATE graph_nodes SET source_document = $1 WHERE id = $2 AND source_document = ''`, string(n.SourceDocument), n.ID)
		}
		if added[i] || slices.Contains(revived, n.ID) {
			for _, t := range graph.Keywords(n.Name) {
				bt.Queue(`INSERT INTO graph_keywords (token, node_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, t, n.ID)
			}
		}
		chunks := append([]string(nil), n.SourceChunks...)
		sort.Strings(chunks)
		for _, c := range chunks {
			bt.Queue(`INSERT INTO graph_node_chunks (node_id, chunk_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, n.ID, c)
		}
	}
	return sendBatch(ctx, tx, bt)
}

func nodeIDs(nodes []*graph.Node) []string {
	ids := make([]string, len(nodes))
	for i, n := range nodes {
		ids[i] = n.ID
	}
	return ids
}

var (
	rewritesRow   = sqlcommon.Rewrites("", pgParam, 5)
	rewritesUp    = sqlcommon.Rewrites("g.", pgParam, 12)
	retiredInsert = `INSERT INTO graph_edges_retired (` + sqlcommon.RetiredEdgeColumns + `) SELECT ` + edgeCols + `, $1, `
)

func applyEdges(ctx context.Context, tx pgx.Tx, b *graph.Batch, bd *batchDoc, res *graph.Applied, relationNew map[string]int) error {
	edges := sqlcommon.SortedEdges(b)
	if len(edges) > 0 {
		bt := &pgx.Batch{}
		for _, e := range edges {
			doc, text, chunk := string(e.SourceDocument), stripNUL(string(e.SupportingText)), string(e.ChunkID)
			// Lock the row, keep the version a rewrite replaces, then write.
			bt.Queue(`SELECT 1 FROM graph_edges WHERE source = $1 AND target = $2 AND type = $3 FOR UPDATE`, e.Source, e.Target, e.Type)
			bt.Queue(retiredInsert+`'superseded' FROM graph_edges WHERE source = $2 AND target = $3 AND type = $4 AND `+rewritesRow+` ON CONFLICT DO NOTHING`,
				b.Now, e.Source, e.Target, e.Type, e.Confidence, bd.replaced, bd.replaced, text, chunk, e.Confidence, e.Unverified)
			// xmax = 0: the row was inserted, not updated; no row: kept.
			bt.Queue(`INSERT INTO graph_edges AS g (source, target, type, confidence, source_document, supporting_text, chunk_id, unverified, valid_from, valid_to, recorded_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
				ON CONFLICT (source, target, type) DO UPDATE SET confidence = excluded.confidence, source_document = excluded.source_document,
					supporting_text = excluded.supporting_text, chunk_id = excluded.chunk_id, unverified = excluded.unverified,
					valid_from = excluded.valid_from, valid_to = excluded.valid_to, recorded_at = excluded.recorded_at, stale_at = 0, stale_diff = ''
				WHERE `+rewritesUp+`
				RETURNING (xmax = 0)`,
				e.Source, e.Target, e.Type, e.Confidence, doc, text, chunk, e.Unverified, e.ValidFrom, e.ValidTo, b.Now,
				e.Confidence, bd.replaced, bd.replaced, text, chunk, e.Confidence, e.Unverified)
			bt.Queue(evSQL().upsert, e.Source, e.Target, e.Type, doc, chunk, text, e.Confidence, e.Unverified, b.Now)
			bt.Queue(evSQL().stale, e.Source, e.Target, e.Type)
		}
		br := tx.SendBatch(ctx, bt)
		for _, e := range edges {
			if _, err := br.Exec(); err != nil {
				br.Close()
				return fmt.Errorf("edge %s -> %s: %w", e.Source, e.Target, err)
			}
			tag, err := br.Exec()
			if err != nil {
				br.Close()
				return fmt.Errorf("edge %s -> %s: %w", e.Source, e.Target, err)
			}
			res.EdgesRetired += int(tag.RowsAffected())
			var inserted bool
			err = br.QueryRow().Scan(&inserted)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				br.Close()
				return fmt.Errorf("edge %s -> %s: %w", e.Source, e.Target, err)
			}
			if inserted {
				res.EdgesAdded++
				relationNew[e.Type]++
			}
			for range 2 { // its evidence and stale mark
				if _, err := br.Exec(); err != nil {
					br.Close()
					return fmt.Errorf("evidence of edge %s -> %s: %w", e.Source, e.Target, err)
				}
			}
		}
		if err := br.Close(); err != nil {
			return err
		}
	}
	gone := sqlcommon.EdgesNotRestated(bd.oldEdges, b)
	if len(gone) == 0 {
		return nil
	}
	n, err := unsupport(ctx, tx, gone, bd.replaced, graph.RetiredSuperseded, b.Now)
	res.EdgesRetired += n
	return err
}

// evStatements are the statements of an edge's evidence (graph migration
// 3), built on first use (TestColdStartInitIsLazy).
type evStatements struct {
	upsert, stale, delete, repoint, orphanDel, mark string
	// retire and forget keep the version of a live edge (source $2,
	// target $3, type $4) whose primary evidence came from document $5,
	// retired at $1; forgotten, its text erased.
	retire, forget string
}

var evSQL = sync.OnceValue(func() evStatements {
	return evStatements{
		upsert: sqlcommon.EvidenceUpsert(pgParam), stale: sqlcommon.EvidenceStaleSync(pgParam), delete: sqlcommon.EvidenceDelete(pgParam),
		repoint: sqlcommon.EvidenceRepoint(pgParam), orphanDel: sqlcommon.EvidenceOrphanDelete(pgParam), mark: sqlcommon.EvidenceMark(pgParam),
		retire: retiredInsert + `'` + graph.RetiredSuperseded + `' FROM graph_edges WHERE source = $2 AND target = $3 AND type = $4 AND source_document = $5 ON CONFLICT DO NOTHING`,
		forget: `INSERT INTO graph_edges_retired (` + sqlcommon.RetiredEdgeColumns + `) SELECT ` + sqlcommon.ForgetEdgeColumns(pgParam) + ` FROM graph_edges
			WHERE source = $2 AND target = $3 AND type = $4 AND source_document = $5 ON CONFLICT DO NOTHING`,
	}
})

// unsupport removes doc's evidence from edges (key order, one pipelined
// batch): the versions whose primary evidence it was are retired (reason;
// a forgotten one with its text erased) and the edges go on with the best
// evidence left, or are gone when none is left (the count returned).
func unsupport(ctx context.Context, tx pgx.Tx, edges []*graph.Edge, doc, reason string, now int64) (int, error) {
	ev := evSQL()
	retire := ev.retire
	if reason == graph.RetiredForgotten {
		retire = ev.forget
	}
	bt := &pgx.Batch{}
	for _, e := range edges {
		bt.Queue(`SELECT 1 FROM graph_edges WHERE source = $1 AND target = $2 AND type = $3 FOR UPDATE`, e.Source, e.Target, e.Type)
		bt.Queue(ev.delete, e.Source, e.Target, e.Type, doc)
		bt.Queue(retire, now, e.Source, e.Target, e.Type, doc)
		bt.Queue(ev.repoint, e.Source, e.Target, e.Type, now, doc)
		bt.Queue(ev.orphanDel, e.Source, e.Target, e.Type, doc)
		bt.Queue(ev.stale, e.Source, e.Target, e.Type)
	}
	br := tx.SendBatch(ctx, bt)
	n := 0
	for range edges {
		for i := range 6 {
			tag, err := br.Exec()
			if err != nil {
				br.Close()
				return 0, err
			}
			if i == 4 {
				n += int(tag.RowsAffected())
			}
		}
	}
	return n, br.Close()
}

func applyTx(ctx context.Context, tx pgx.Tx, b *graph.Batch) (*graph.Applied, error) {
	res := &graph.Applied{}
	entityNew, relationNew := map[string]int{}, map[string]int{}
	bd, err := applyDoc(ctx, tx, b, res)
	if err != nil {
		return nil, err
	}
	if err := applyNodes(ctx, tx, b, res, entityNew); err != nil {
		return nil, err
	}
	if err := applyEdges(ctx, tx, b, bd, res, relationNew); err != nil {
		return nil, err
	}
	counts, maxes := sqlcommon.OntologyRows(b, entityNew, relationNew)
	bt := &pgx.Batch{}
	for _, c := range counts {
		bt.Queue(`INSERT INTO graph_ontology AS o (kind, type, count) VALUES ($1, $2, $3)
			ON CONFLICT (kind, type) DO UPDATE SET count = o.count + excluded.count`, c.Kind, c.Type, c.N)
	}
	for _, c := range maxes {
		bt.Queue(`INSERT INTO graph_ontology AS o (kind, type, count) VALUES ($1, $2, $3)
			ON CONFLICT (kind, type) DO UPDATE SET count = greatest(o.count, excluded.count)`, c.Kind, c.Type, c.N)
	}
	if err := sendBatch(ctx, tx, bt); err != nil {
		return nil, err
	}
	return res, nil
}

// GraphDocument implements graph.Store.
func (g *Graph) GraphDocument(ctx context.Context, id string) (*graph.Document, error) {
	var d *graph.Document
	found := true
	err := g.do(ctx, "read document", func() error {
		d = &graph.Document{ID: id, Chunks: []graph.Chunk{}}
		err := g.db.pool.QueryRow(ctx, `SELECT title, source, content, ingestion_date, reference, hash, retrieval_id FROM graph_documents WHERE id = $1`, id).
			Scan(&d.Title, &d.Source, &d.Content, &d.IngestionDate, &d.Reference, &d.Hash, &d.RetrievalID)
		if errors.Is(err, pgx.ErrNoRows) {
			found = false
			return nil
		}
		if err != nil {
			return err
		}
		rows, err := g.db.pool.Query(ctx, `SELECT chunk_id, idx, text FROM graph_chunks WHERE doc_id = $1 ORDER BY idx`, id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c graph.Chunk
			if err := rows.Scan(&c.ChunkID, &c.Index, &c.Text); err != nil {
				return err
			}
			d.Chunks = append(d.Chunks, c)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, retrieve.Errorf(retrieve.CodeNotFound, "no graph document %q", id).WithHint("list documents with `retrieve graph stats` or ingest it with `retrieve graph ingest`")
	}
	return d, nil
}

// each runs a query and calls scan for every row, again from the start
// (after reset) when the connection broke.
func (g *Graph) each(ctx context.Context, op string, reset func(), scan func(pgx.Rows) error, q string, args ...any) error {
	return g.do(ctx, op, func() error {
		if reset != nil {
			reset()
		}
		rows, err := g.db.pool.Query(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}

// GraphChunks implements graph.Store.
func (g *Graph) GraphChunks(ctx context.Context, ids []string) (map[string]graph.ChunkRef, error) {
	out := map[string]graph.ChunkRef{}
	err := g.each(ctx, "read chunks", func() { clear(out) }, func(r pgx.Rows) error {
		var c graph.ChunkRef
		if err := r.Scan(&c.ChunkID, &c.DocID, &c.Index, &c.Text); err != nil {
			return err
		}
		out[c.ChunkID] = c
		return nil
	}, `SELECT chunk_id, doc_id, idx, text FROM graph_chunks WHERE chunk_id = ANY($1)`, ids)
	if err != nil {
		return nil, err
	}
	return out, nil
}

const nodeSelect = `SELECT n.id, n.name, n.type, n.source_document, n.recorded_at,
	coalesce((SELECT array_agg(c.chunk_id ORDER BY c.chunk_id) FROM graph_node_chunks c WHERE c.node_id = n.id), '{}')
	FROM graph_nodes n`

func scanNode(r pgx.Rows) (*graph.Node, error) {
	n := &graph.Node{}
	var doc string
	if err := r.Scan(&n.ID, &n.Name, &n.Type, &doc, &n.RecordedAt, &n.SourceChunks); err != nil {
		return nil, err
	}
	n.SourceDocument = graph.NullString(doc)
	if n.SourceChunks == nil {
		n.SourceChunks = []string{}
	}
	return n, nil
}

// GraphNodes implements graph.Store.
func (g *Graph) GraphNodes(ctx context.Context, ids []string) (map[string]*graph.Node, error) {
	out := map[string]*graph.Node{}
	err := g.each(ctx, "read nodes", func() { clear(out) }, func(r pgx.Rows) error {
		n, err := scanNode(r)
		if err != nil {
			return err
		}
		out[n.ID] = n
		return nil
	}, nodeSelect+` WHERE n.id = ANY($1) AND n.retired_at = 0`, ids)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// NodeIDsByName implements graph.Store.
func (g *Graph) NodeIDsByName(ctx context.Context, names []string) (map[string]string, error) {
	out := map[string]string{}
	err := g.each(ctx, "find nodes", func() { clear(out) }, func(r pgx.Rows) error {
		var n, id string
		if err := r.Scan(&n, &id); err != nil {
			return err
		}
		out[n] = id
		return nil
	}, `SELECT name, id FROM graph_nodes WHERE name = ANY($1)`, names)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (g *Graph) ids(ctx context.Context, op, q string, args ...any) ([]string, error) {
	var out []string
	err := g.each(ctx, op, func() { out = out[:0] }, func(r pgx.Rows) error {
		var id string
		if err := r.Scan(&id); err != nil {
			return err
		}
		out = append(out, id)
		return nil
	}, q, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// NodesByKeyword implements graph.Store.
func (g *Graph) NodesByKeyword(ctx context.Context, tokens []string, limit int) ([]string, error) {
	if len(tokens) == 0 {
		return nil, nil
	}
	return g.ids(ctx, "search keywords", `SELECT node_id FROM graph_keywords WHERE token = ANY($1)
		GROUP BY node_id ORDER BY count(*) DESC, node_id LIMIT $2`, tokens, limit)
}

// orQuery ORs the tokens for websearch_to_tsquery, each quoted (no
// operator injection; websearch_to_tsquery never fails on its input).
func orQuery(tokens []string) string {
	parts := make([]string, 0, len(tokens))
	for _, t := range tokens {
		t = strings.TrimSpace(strings.ReplaceAll(stripNUL(t), `"`, " "))
		if t != "" {
			parts = append(parts, `"`+t+`"`)
		}
	}
	return strings.Join(parts, " or ")
}

// SearchNodeNames implements graph.Store.
func (g *Graph) SearchNodeNames(ctx context.Context, tokens []string, limit int) ([]string, error) {
	q := orQuery(tokens)
	if q == "" {
		return nil, nil
	}
	return g.ids(ctx, "search names", `SELECT id FROM graph_nodes, websearch_to_tsquery('english', $1) q
		WHERE tsv @@ q AND retired_at = 0 ORDER BY ts_rank_cd(tsv, q) DESC, id LIMIT $2`, q, limit)
}

// SearchChunkNodes implements graph.Store: the 20 best chunks, then their
// nodes by the rank of their best chunk.
func (g *Graph) SearchChunkNodes(ctx context.Context, tokens []string, limit int) ([]string, error) {
	q := orQuery(tokens)
	if q == "" {
		return nil, nil
	}
	return g.ids(ctx, "search chunks", `SELECT nc.node_id FROM
		(SELECT chunk_id, ts_rank_cd(tsv, q) AS r FROM graph_chunks, websearch_to_tsquery('english', $1) q
			WHERE tsv @@ q ORDER BY r DESC, chunk_id LIMIT 20) f
		JOIN graph_node_chunks nc ON nc.chunk_id = f.chunk_id
		GROUP BY nc.node_id ORDER BY max(f.r) DESC, nc.node_id LIMIT $2`, q, limit)
}

const edgeOrder = ` ORDER BY confidence DESC, source, target, type`

// IncidentEdges implements graph.Store: index-only reads of the traversal
// columns (the evidence columns stay empty).
func (g *Graph) IncidentEdges(ctx context.Context, ids []string, minConfidence float64) ([]*graph.Edge, error) {
	return g.incident(ctx, `SELECT source, target, type, confidence, unverified, stale_at FROM graph_edges WHERE source = ANY($1) AND confidence >= $2
		UNION SELECT source, target, type, confidence, unverified, stale_at FROM graph_edges WHERE target = ANY($1) AND confidence >= $2`+edgeOrder,
		ids, minConfidence)
}

// IncidentEdgesAt implements graph.Store.
func (g *Graph) IncidentEdgesAt(ctx context.Context, ids []string, minConfidence float64, at int64) ([]*graph.Edge, error) {
	return g.incident(ctx, `SELECT source, target, type, confidence, unverified, stale_at FROM graph_edges WHERE source = ANY($1) AND confidence >= $2 AND recorded_at <= $3
		UNION SELECT source, target, type, confidence, unverified, stale_at FROM graph_edges WHERE target = ANY($1) AND confidence >= $2 AND recorded_at <= $3
		UNION SELECT source, target, type, confidence, unverified, stale_at FROM graph_edges_retired
			WHERE source = ANY($1) AND confidence >= $2 AND recorded_at <= $3 AND retired_at > $3 AND reason <> 'forgotten'
		UNION SELECT source, target, type, confidence, unverified, stale_at FROM graph_edges_retired
			WHERE target = ANY($1) AND confidence >= $2 AND recorded_at <= $3 AND retired_at > $3 AND reason <> 'forgotten'`+edgeOrder,
		ids, minConfidence, at)
}

func (g *Graph) incident(ctx context.Context, q string, args ...any) ([]*graph.Edge, error) {
	var out []*graph.Edge
	err := g.each(ctx, "read edges", func() { out = out[:0] }, func(r pgx.Rows) error {
		e := &graph.Edge{}
		if err := r.Scan(&e.Source, &e.Target, &e.Type, &e.Confidence, &e.Unverified, &e.StaleAt); err != nil {
			return err
		}
		out = append(out, e)
		return nil
	}, q, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EdgesAmongAt implements graph.Store.
func (g *Graph) EdgesAmongAt(ctx context.Context, ids []string, minConfidence float64, at int64) ([]*graph.Edge, error) {
	var out []*graph.Edge
	err := g.each(ctx, "read edges", func() { out = out[:0] }, func(r pgx.Rows) error {
		e, err := sqlcommon.ScanRetiredEdge(r)
		if err != nil {
			return err
		}
		out = append(out, e)
		return nil
	}, `SELECT `+edgeCols+`, 0::bigint, '' FROM graph_edges WHERE source = ANY($1) AND target = ANY($1) AND confidence >= $2 AND recorded_at <= $3
		UNION ALL SELECT `+sqlcommon.RetiredEdgeColumns+` FROM graph_edges_retired
		WHERE source = ANY($1) AND target = ANY($1) AND confidence >= $2 AND recorded_at <= $3 AND retired_at > $3 AND reason <> 'forgotten'`+edgeOrder,
		ids, minConfidence, at)
	if err != nil {
		return nil, err
	}
	return out, nil
}

const edgeCols = sqlcommon.EdgeColumns

func scanEdge(r pgx.Rows) (*graph.Edge, error) { return sqlcommon.ScanEdge(r) }

// EdgesAmong implements graph.Store.
func (g *Graph) EdgesAmong(ctx context.Context, ids []string, minConfidence float64) ([]*graph.Edge, error) {
	var out []*graph.Edge
	err := g.each(ctx, "read edges", func() { out = out[:0] }, func(r pgx.Rows) error {
		e, err := scanEdge(r)
		if err != nil {
			return err
		}
		out = append(out, e)
		return nil
	}, `SELECT `+edgeCols+` FROM graph_edges WHERE source = ANY($1) AND target = ANY($1) AND confidence >= $2`+edgeOrder, ids, minConfidence)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// GraphDocumentIDs implements graph.Store.
func (g *Graph) GraphDocumentIDs(ctx context.Context) ([]string, error) {
	return g.ids(ctx, "list documents", `SELECT id FROM graph_documents WHERE forgotten_at = 0 ORDER BY id`)
}

// DocumentEdges implements graph.Store.
func (g *Graph) DocumentEdges(ctx context.Context, docID string) ([]*graph.Edge, error) {
	return g.edgeRows(ctx, "read edges", sqlcommon.DocumentEvidence(pgParam), docID)
}

// EdgeEvidence implements graph.Store.
func (g *Graph) EdgeEvidence(ctx context.Context, source, target, typ string) ([]*graph.Edge, error) {
	return g.edgeRows(ctx, "read evidence", sqlcommon.EvidenceOfEdge(pgParam), source, target, typ)
}

// edgeRows runs a query of EdgeColumns and reads its edges.
func (g *Graph) edgeRows(ctx context.Context, op, q string, args ...any) ([]*graph.Edge, error) {
	var out []*graph.Edge
	err := g.each(ctx, op, func() { out = out[:0] }, func(r pgx.Rows) error {
		e, err := scanEdge(r)
		if err != nil {
			return err
		}
		out = append(out, e)
		return nil
	}, q, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// MarkStale implements graph.Store: one transaction, rows in key order.
func (g *Graph) MarkStale(ctx context.Context, marks []graph.StaleMark) (int, error) {
	defer g.folded.Store(0) // what this handle writes, its next summary sees
	sorted := append([]graph.StaleMark(nil), marks...)
	sort.Slice(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		return a.Source+"\x00"+a.Target+"\x00"+a.Type < b.Source+"\x00"+b.Target+"\x00"+b.Type
	})
	n := 0
	err := g.do(ctx, "mark stale edges", func() error {
		n = 0
		return pgx.BeginFunc(ctx, g.db.pool, func(tx pgx.Tx) error {
			bt := &pgx.Batch{}
			for _, m := range sorted {
				bt.Queue(`SELECT 1 FROM graph_edges WHERE source = $1 AND target = $2 AND type = $3 FOR UPDATE`, m.Source, m.Target, m.Type)
				bt.Queue(evSQL().mark, m.StaleAt, stripNUL(m.Diff), m.Source, m.Target, m.Type, m.Doc, m.RecordedAt)
				bt.Queue(evSQL().stale, m.Source, m.Target, m.Type)
			}
			br := tx.SendBatch(ctx, bt)
			for range sorted {
				for i := range 3 {
					tag, err := br.Exec()
					if err != nil {
						br.Close()
						return err
					}
					if i == 1 {
						n += int(tag.RowsAffected())
					}
				}
			}
			return br.Close()
		})
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// GraphDocumentInfo implements graph.Store.
func (g *Graph) GraphDocumentInfo(ctx context.Context, ids []string) (map[string]*graph.Document, error) {
	out := map[string]*graph.Document{}
	err := g.each(ctx, "read documents", func() { clear(out) }, func(r pgx.Rows) error {
		d := &graph.Document{}
		if err := r.Scan(&d.ID, &d.Title, &d.Source, &d.IngestionDate, &d.Reference, &d.Hash, &d.RetrievalID, &d.Version, &d.RecordedAt, &d.ForgottenAt); err != nil {
			return err
		}
		out[d.ID] = d
		return nil
	}, `SELECT id, title, source, ingestion_date, reference, hash, retrieval_id, version, recorded_at, forgotten_at FROM graph_documents WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// GraphOntology implements graph.Store.
func (g *Graph) GraphOntology(ctx context.Context) (*graph.Ontology, error) {
	o := &graph.Ontology{EntityTypes: map[string]int{}, RelationTypes: map[string]int{}}
	err := g.each(ctx, "read ontology", func() { clear(o.EntityTypes); clear(o.RelationTypes) }, func(r pgx.Rows) error {
		var kind, t string
		var n int
		if err := r.Scan(&kind, &t, &n); err != nil {
			return err
		}
		if kind == "entity" {
			o.EntityTypes[t] = n
		} else {
			o.RelationTypes[t] = n
		}
		return nil
	}, `SELECT kind, type, count FROM graph_ontology`)
	if err != nil {
		return nil, err
	}
	return o, nil
}

// GraphStats implements graph.Store.
func (g *Graph) GraphStats(ctx context.Context) (*graph.Stats, error) {
	s := &graph.Stats{}
	err := g.do(ctx, "count", func() error {
		return g.db.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM graph_documents WHERE forgotten_at = 0), (SELECT count(*) FROM graph_chunks),
			(SELECT count(*) FROM graph_nodes WHERE retired_at = 0), (SELECT count(*) FROM graph_edges)`).Scan(&s.Documents, &s.Chunks, &s.Nodes, &s.Edges)
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// EachDocument implements graph.Store.
func (g *Graph) EachDocument(ctx context.Context, fn func(*graph.Document) error) error {
	ids, err := g.ids(ctx, "list documents", `SELECT id FROM graph_documents WHERE forgotten_at = 0 ORDER BY id`)
	if err != nil {
		return err
	}
	return sqlcommon.EachDocument(ctx, ids, g.GraphDocument, fn)
}

// walk pages through a table in key order, so that fn (which may be slow:
// it writes the export) never holds a connection.
func walk[T any](ctx context.Context, g *Graph, op string, page func(after []string) (string, []any), key func(T) []string,
	scan func(pgx.Rows) (T, error), fn func(T) error) error {
	var after []string
	for {
		q, args := page(after)
		var batch []T
		err := g.each(ctx, op, func() { batch = batch[:0] }, func(r pgx.Rows) error {
			x, err := scan(r)
			if err != nil {
				return err
			}
			batch = append(batch, x)
			return nil
		}, q, args...)
		if err != nil {
			return err
		}
		for _, x := range batch {
			if err := fn(x); err != nil {
				return err
			}
		}
		if len(batch) < walkPage {
			return nil
		}
		after = key(batch[len(batch)-1])
	}
}

const walkPage = 1000

// EachNode implements graph.Store.
func (g *Graph) EachNode(ctx context.Context, fn func(*graph.Node) error) error {
	return walk(ctx, g, "list nodes", func(after []string) (string, []any) {
		if after == nil {
			return nodeSelect + ` WHERE n.retired_at = 0 ORDER BY n.id LIMIT $1`, []any{walkPage}
		}
		return nodeSelect + ` WHERE n.retired_at = 0 AND n.id > $2 ORDER BY n.id LIMIT $1`, []any{walkPage, after[0]}
	}, func(n *graph.Node) []string { return []string{n.ID} }, scanNode, fn)
}

// EachEdge implements graph.Store.
func (g *Graph) EachEdge(ctx context.Context, fn func(*graph.Edge) error) error {
	return walk(ctx, g, "list edges", func(after []string) (string, []any) {
		if after == nil {
			return `SELECT ` + edgeCols + ` FROM graph_edges ORDER BY source, target, type LIMIT $1`, []any{walkPage}
		}
		return `SELECT ` + edgeCols + ` FROM graph_edges WHERE (source, target, type) > ($2, $3, $4) ORDER BY source, target, type LIMIT $1`,
			[]any{walkPage, after[0], after[1], after[2]}
	}, func(e *graph.Edge) []string { return []string{e.Source, e.Target, e.Type} }, scanEdge, fn)
}

// Analyze refreshes the planner statistics of the graph tables, after a
// large import: until autovacuum gets to them, queries can be several
// times slower (see docs/store.md).
func (g *Graph) Analyze(ctx context.Context) error {
	return g.do(ctx, "analyze", func() error {
		_, err := g.db.pool.Exec(ctx, `ANALYZE graph_documents, graph_chunks, graph_nodes, graph_node_chunks, graph_keywords, graph_edges, wiki_pages`)
		return err
	})
}

// PutWikiPage implements wiki.Index.
func (g *Graph) PutWikiPage(ctx context.Context, p *wiki.Page) error {
	return g.do(ctx, "index wiki page", func() error {
		_, err := g.db.pool.Exec(ctx, `INSERT INTO wiki_pages (category, slug, title, summary, body, hash, size, mtime) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (category, slug) DO UPDATE SET title = excluded.title, summary = excluded.summary, body = excluded.body,
			hash = excluded.hash, size = excluded.size, mtime = excluded.mtime`,
			p.Category, p.Slug, stripNUL(p.Title), stripNUL(p.Summary), stripNUL(p.Body), p.Hash, p.Size, p.ModTime)
		return err
	})
}

// DeleteWikiPage implements wiki.Index.
func (g *Graph) DeleteWikiPage(ctx context.Context, category, slug string) error {
	return g.do(ctx, "unindex wiki page", func() error {
		_, err := g.db.pool.Exec(ctx, `DELETE FROM wiki_pages WHERE category = $1 AND slug = $2`, category, slug)
		return err
	})
}

// WikiPages implements wiki.Index.
func (g *Graph) WikiPages(ctx context.Context) ([]*wiki.Page, error) {
	var out []*wiki.Page
	err := g.each(ctx, "list wiki pages", func() { out = out[:0] }, func(r pgx.Rows) error {
		p := &wiki.Page{}
		if err := r.Scan(&p.Category, &p.Slug, &p.Title, &p.Summary, &p.Hash, &p.Size, &p.ModTime); err != nil {
			return err
		}
		out = append(out, p)
		return nil
	}, `SELECT category, slug, title, summary, hash, size, mtime FROM wiki_pages ORDER BY category, slug`)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SearchWiki implements wiki.Index: ts_rank_cd with a title (and slug) hit
// weighted 4 times a body hit, as the bm25 weights of the SQLite store.
func (g *Graph) SearchWiki(ctx context.Context, tokens []string, limit int) ([]*wiki.Page, error) {
	q := orQuery(tokens)
	if q == "" {
		return nil, nil
	}
	var out []*wiki.Page
	err := g.each(ctx, "search wiki", func() { out = out[:0] }, func(r pgx.Rows) error {
		p := &wiki.Page{}
		if err := r.Scan(&p.Category, &p.Slug, &p.Title, &p.Summary, &p.Body, &p.Hash, &p.Size, &p.ModTime); err != nil {
			return err
		}
		out = append(out, p)
		return nil
	}, `SELECT category, slug, title, summary, body, hash, size, mtime FROM wiki_pages, websearch_to_tsquery('english', $1) q
		WHERE tsv @@ q ORDER BY ts_rank_cd('{0.25, 0.25, 0.25, 1.0}', tsv, q) DESC, category, slug LIMIT $2`, q, limit)
	if err != nil {
		return nil, err
	}
	return out, nil
}
