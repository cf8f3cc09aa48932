package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/store/internal/sqlcommon"
	"github.com/retrieve-dev/retrieve/wiki"
)

// graphMigrations is the schema of the knowledge graph and the wiki index
// (component "graph").
var graphMigrations = []string{
	`CREATE TABLE graph_documents (
		id TEXT PRIMARY KEY,
		title TEXT NOT NULL,
		source TEXT NOT NULL,
		content TEXT NOT NULL,
		ingestion_date TEXT NOT NULL,
		reference TEXT NOT NULL,
		hash TEXT NOT NULL,
		retrieval_id TEXT NOT NULL
	);
	CREATE TABLE graph_chunks (
		chunk_id TEXT PRIMARY KEY,
		doc_id TEXT NOT NULL REFERENCES graph_documents (id) ON DELETE CASCADE,
		idx INTEGER NOT NULL,
		text TEXT NOT NULL
	);
	CREATE INDEX graph_chunks_doc ON graph_chunks (doc_id, idx);
	CREATE TABLE graph_nodes (
		id TEXT PRIMARY KEY,
		name TEXT NOT NULL UNIQUE,
		type TEXT NOT NULL,
		source_document TEXT NOT NULL
	);
	CREATE TABLE graph_node_chunks (
		node_id TEXT NOT NULL REFERENCES graph_nodes (id) ON DELETE CASCADE,
		chunk_id TEXT NOT NULL,
		PRIMARY KEY (node_id, chunk_id)
	) WITHOUT ROWID;
	CREATE INDEX graph_node_chunks_chunk ON graph_node_chunks (chunk_id);
	CREATE TABLE graph_keywords (
		token TEXT NOT NULL,
		node_id TEXT NOT NULL REFERENCES graph_nodes (id) ON DELETE CASCADE,
		PRIMARY KEY (token, node_id)
	) WITHOUT ROWID;
	CREATE TABLE graph_edges (
		source TEXT NOT NULL REFERENCES graph_nodes (id),
		target TEXT NOT NULL REFERENCES graph_nodes (id),
		type TEXT NOT NULL,
		confidence REAL NOT NULL,
		source_document TEXT NOT NULL,
		supporting_text TEXT NOT NULL,
		chunk_id TEXT NOT NULL,
		unverified INTEGER NOT NULL,
		PRIMARY KEY (source, target, type)
	) WITHOUT ROWID;
	CREATE INDEX graph_edges_target ON graph_edges (target, confidence, unverified);
	CREATE INDEX graph_edges_source ON graph_edges (source, confidence, unverified);
	CREATE TABLE graph_ontology (
		kind TEXT NOT NULL,
		type TEXT NOT NULL,
		count INTEGER NOT NULL,
		PRIMARY KEY (kind, type)
	) WITHOUT ROWID;
	CREATE VIRTUAL TABLE graph_node_fts USING fts5 (node_id UNINDEXED, name, tokenize = 'porter unicode61');
	CREATE VIRTUAL TABLE graph_chunk_fts USING fts5 (chunk_id UNINDEXED, text, tokenize = 'porter unicode61');
	CREATE TABLE wiki_pages (
		category TEXT NOT NULL,
		slug TEXT NOT NULL,
		title TEXT NOT NULL,
		summary TEXT NOT NULL,
		body TEXT NOT NULL,
		hash TEXT NOT NULL,
		size INTEGER NOT NULL,
		mtime INTEGER NOT NULL,
		PRIMARY KEY (category, slug)
	);
	CREATE VIRTUAL TABLE wiki_fts USING fts5 (category UNINDEXED, slug UNINDEXED, title, body, tokenize = 'porter unicode61');`,
	// 2: time (docs/graph.md, "Time"). Transaction times are unix
	// microseconds; what the store held before is dated by its document's
	// ingestion date (0 when that does not parse), a node by the earliest
	// of its document and its edges. Retired edge versions
	// and old document texts move to their own tables, so the live tables
	// and their covering indexes serve today's queries as before.
	`ALTER TABLE graph_documents ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
	ALTER TABLE graph_documents ADD COLUMN recorded_at INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE graph_documents ADD COLUMN forgotten_at INTEGER NOT NULL DEFAULT 0;
	CREATE TABLE graph_document_versions (
		doc_id TEXT NOT NULL,
		version INTEGER NOT NULL,
		title TEXT NOT NULL,
		source TEXT NOT NULL,
		content TEXT NOT NULL,
		ingestion_date TEXT NOT NULL,
		reference TEXT NOT NULL,
		hash TEXT NOT NULL,
		retrieval_id TEXT NOT NULL,
		recorded_at INTEGER NOT NULL,
		retired_at INTEGER NOT NULL,
		PRIMARY KEY (doc_id, version)
	) WITHOUT ROWID;
	ALTER TABLE graph_nodes ADD COLUMN recorded_at INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE graph_nodes ADD COLUMN retired_at INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE graph_edges ADD COLUMN valid_from TEXT NOT NULL DEFAULT '';
	ALTER TABLE graph_edges ADD COLUMN valid_to TEXT NOT NULL DEFAULT '';
	ALTER TABLE graph_edges ADD COLUMN recorded_at INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE graph_edges ADD COLUMN stale_at INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE graph_edges ADD COLUMN stale_diff TEXT NOT NULL DEFAULT '';
	CREATE TABLE graph_edges_retired (
		source TEXT NOT NULL,
		target TEXT NOT NULL,
		type TEXT NOT NULL,
		confidence REAL NOT NULL,
		source_document TEXT NOT NULL,
		supporting_text TEXT NOT NULL,
		chunk_id TEXT NOT NULL,
		unverified INTEGER NOT NULL,
		valid_from TEXT NOT NULL,
		valid_to TEXT NOT NULL,
		recorded_at INTEGER NOT NULL,
		stale_at INTEGER NOT NULL,
		stale_diff TEXT NOT NULL,
		retired_at INTEGER NOT NULL,
		reason TEXT NOT NULL,
		PRIMARY KEY (source, target, type, retired_at)
	) WITHOUT ROWID;
	CREATE INDEX graph_edges_retired_target ON graph_edges_retired (target, retired_at);
	CREATE INDEX graph_edges_retired_doc ON graph_edges_retired (source_document);
	CREATE INDEX graph_edges_retired_at ON graph_edges_retired (retired_at);
	UPDATE graph_documents SET recorded_at = coalesce(CAST((julianday(ingestion_date) - 2440587.5) * 86400000000 AS INTEGER), 0);
	UPDATE graph_edges SET recorded_at = coalesce((SELECT d.recorded_at FROM graph_documents d WHERE d.id = graph_edges.source_document), 0);
	UPDATE graph_nodes SET recorded_at = coalesce((SELECT d.recorded_at FROM graph_documents d WHERE d.id = graph_nodes.source_document), 0);
	UPDATE graph_nodes SET recorded_at = min(recorded_at,
		coalesce((SELECT min(recorded_at) FROM graph_edges WHERE source = graph_nodes.id), recorded_at),
		coalesce((SELECT min(recorded_at) FROM graph_edges WHERE target = graph_nodes.id), recorded_at));
	DROP INDEX graph_edges_target;
	DROP INDEX graph_edges_source;
	CREATE INDEX graph_edges_target ON graph_edges (target, confidence, unverified, stale_at, recorded_at);
	CREATE INDEX graph_edges_source ON graph_edges (source, confidence, unverified, stale_at, recorded_at);
	CREATE INDEX graph_edges_doc ON graph_edges (source_document);
	CREATE INDEX graph_edges_stale ON graph_edges (stale_at) WHERE stale_at > 0;`,
	// 3: the summary's aggregates (docs/graph.md, "Summary"), so that
	// graph summary reads a few rows whatever the size: live edges per node
	// (degree), live nodes and edges per type, and the sizes. A batch adds
	// what it inserted in one write per row (applyAggregates); triggers
	// keep them on every other change (deletes, retirements, stale marks,
	// forgets). Rows that fall to 0 stay and are skipped by the readers.
	`CREATE TABLE graph_degree (node_id TEXT PRIMARY KEY, degree INTEGER NOT NULL) WITHOUT ROWID;
	CREATE INDEX graph_degree_top ON graph_degree (degree DESC, node_id);
	CREATE TABLE graph_type_counts (kind TEXT NOT NULL, type TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (kind, type)) WITHOUT ROWID;
	CREATE INDEX graph_type_counts_top ON graph_type_counts (kind, n DESC, type);
	CREATE TABLE graph_counts (name TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
	INSERT INTO graph_degree SELECT id, sum(n) FROM (SELECT source AS id, count(*) AS n FROM graph_edges GROUP BY source
		UNION ALL SELECT target, count(*) FROM graph_edges GROUP BY target) GROUP BY id;
	INSERT INTO graph_type_counts SELECT 'relation', type, count(*) FROM graph_edges GROUP BY type;
	INSERT INTO graph_type_counts SELECT 'entity', type, count(*) FROM graph_nodes WHERE retired_at = 0 GROUP BY type;
	INSERT INTO graph_counts VALUES ('documents', (SELECT count(*) FROM graph_documents WHERE forgotten_at = 0)),
		('forgotten', (SELECT count(*) FROM graph_documents WHERE forgotten_at > 0)), ('chunks', (SELECT count(*) FROM graph_chunks)),
		('entities', (SELECT count(*) FROM graph_nodes WHERE retired_at = 0)), ('edges', (SELECT count(*) FROM graph_edges)),
		('retired', (SELECT count(*) FROM graph_edges_retired)), ('stale', (SELECT count(*) FROM graph_edges WHERE stale_at > 0));
	CREATE TRIGGER graph_edges_ad AFTER DELETE ON graph_edges BEGIN
		UPDATE graph_degree SET degree = degree - 1 WHERE node_id = old.source;
		UPDATE graph_degree SET degree = degree - 1 WHERE node_id = old.target;
		UPDATE graph_type_counts SET n = n - 1 WHERE kind = 'relation' AND type = old.type;
		UPDATE graph_counts SET n = n - 1 WHERE name = 'edges' OR (name = 'stale' AND old.stale_at > 0);
	END;
	CREATE TRIGGER graph_edges_au AFTER UPDATE OF stale_at ON graph_edges WHEN (old.stale_at > 0) <> (new.stale_at > 0) BEGIN
		UPDATE graph_counts SET n = n + (CASE WHEN new.stale_at > 0 THEN 1 ELSE -1 END) WHERE name = 'stale';
	END;
	CREATE TRIGGER graph_edges_retired_ai AFTER INSERT ON graph_edges_retired BEGIN
		UPDATE graph_counts SET n = n + 1 WHERE name = 'retired';
	END;
	CREATE TRIGGER graph_nodes_au AFTER UPDATE OF retired_at ON graph_nodes WHEN (old.retired_at = 0) <> (new.retired_at = 0) BEGIN
		INSERT INTO graph_type_counts VALUES ('entity', new.type, CASE WHEN new.retired_at = 0 THEN 1 ELSE -1 END) ON CONFLICT DO UPDATE SET n = n + excluded.n;
		UPDATE graph_counts SET n = n + (CASE WHEN new.retired_at = 0 THEN 1 ELSE -1 END) WHERE name = 'entities';
	END;
	CREATE TRIGGER graph_chunks_ad AFTER DELETE ON graph_chunks BEGIN
		UPDATE graph_counts SET n = n - 1 WHERE name = 'chunks';
	END;
	CREATE TRIGGER graph_documents_au AFTER UPDATE OF forgotten_at ON graph_documents WHEN (old.forgotten_at = 0) <> (new.forgotten_at = 0) BEGIN
		UPDATE graph_counts SET n = n + (CASE WHEN new.forgotten_at = 0 THEN 1 ELSE -1 END) WHERE name = 'documents';
		UPDATE graph_counts SET n = n + (CASE WHEN new.forgotten_at = 0 THEN -1 ELSE 1 END) WHERE name = 'forgotten';
	END;`,
	// 4: every document's evidence of an edge (docs/graph.md, "Evidence"):
	// one row per (edge, document), the edge's row keeping its primary
	// evidence. Existing edges get the one evidence they hold.
	`CREATE TABLE graph_edge_evidence (
		source TEXT NOT NULL,
		target TEXT NOT NULL,
		type TEXT NOT NULL,
		doc_id TEXT NOT NULL,
		chunk_id TEXT NOT NULL,
		supporting_text TEXT NOT NULL,
		confidence REAL NOT NULL,
		unverified INTEGER NOT NULL,
		recorded_at INTEGER NOT NULL,
		stale_at INTEGER NOT NULL DEFAULT 0,
		stale_diff TEXT NOT NULL DEFAULT '',
		PRIMARY KEY (source, target, type, doc_id)
	) WITHOUT ROWID;
	CREATE INDEX graph_edge_evidence_doc ON graph_edge_evidence (doc_id, source, target, type);
	INSERT INTO graph_edge_evidence (source, target, type, doc_id, chunk_id, supporting_text, confidence, unverified, recorded_at, stale_at, stale_diff)
		SELECT source, target, type, source_document, chunk_id, supporting_text, confidence, unverified, recorded_at, stale_at, stale_diff FROM graph_edges;`,
}

// Graph is the SQLite implementation of graph.Store and wiki.Index, in the
// same file as the ledger.
type Graph struct {
	*DB
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

// query runs a fixed statement, prepared once per store.
func (g *Graph) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	g.mu.Lock()
	st, ok := g.stmts[q]
	if !ok {
		var err error
		if st, err = g.db.PrepareContext(ctx, q); err != nil {
			g.mu.Unlock()
			return nil, err
		}
		if g.stmts == nil {
			g.stmts = map[string]*sql.Stmt{}
		}
		g.stmts[q] = st
	}
	g.mu.Unlock()
	return st.QueryContext(ctx, args...)
}

// Close closes the prepared statements and the store file.
func (g *Graph) Close() error {
	g.mu.Lock()
	for _, st := range g.stmts {
		st.Close()
	}
	g.stmts = nil
	g.mu.Unlock()
	return g.DB.Close()
}

// jsonList encodes ids for `IN (SELECT value FROM json_each(?))`, which
// keeps the statement text fixed whatever the number of ids.
func jsonList(ids []string) string {
	b, _ := json.Marshal(ids)
	return string(b)
}

const inJSON = `(SELECT value FROM json_each(?))`

var (
	_ graph.Store = (*Graph)(nil)
	_ wiki.Index  = (*Graph)(nil)
)

// OpenGraph applies the graph migrations to an open store file.
func OpenGraph(ctx context.Context, db *DB) (*Graph, error) {
	if err := db.Migrate(ctx, "graph", graphMigrations); err != nil {
		return nil, wrapStore(db.path, err)
	}
	return &Graph{DB: db}, nil
}

// OpenGraphFile opens a store file for the graph alone (tests, benchmarks).
func OpenGraphFile(ctx context.Context, path string) (*Graph, error) {
	db, err := Open(ctx, path)
	if err != nil {
		return nil, err
	}
	g, err := OpenGraph(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	return g, nil
}

func (g *Graph) gerr(op string, err error) error {
	var re *retrieve.Error
	if errors.As(err, &re) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return retrieve.AsError(err)
	}
	return storeErr(g.path, "graph store: "+op, err)
}

// ApplyGraph implements graph.Store.
func (g *Graph) ApplyGraph(ctx context.Context, b *graph.Batch) (*graph.Applied, error) {
	var res *graph.Applied
	err := retry(ctx, func() error {
		tx, err := g.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		r, err := applyTx(ctx, tx, b)
		if err != nil {
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		res = r
		return nil
	})
	if err != nil {
		return nil, g.gerr("write", err)
	}
	return res, nil
}

// graphStmts are the statements of a batch, prepared once per transaction.
var graphStmts = map[string]string{
	"doc": `INSERT INTO graph_documents (id, title, source, content, ingestion_date, reference, hash, retrieval_id, version, recorded_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?) ON CONFLICT (id) DO NOTHING`,
	"docKeep": `INSERT INTO graph_document_versions (doc_id, version, title, source, content, ingestion_date, reference, hash, retrieval_id, recorded_at, retired_at)
		SELECT id, version, title, source, content, ingestion_date, reference, hash, retrieval_id, recorded_at, ? FROM graph_documents WHERE id = ?
		ON CONFLICT DO NOTHING`,
	"docSet": `UPDATE graph_documents SET title = ?, source = ?, content = ?, ingestion_date = ?, reference = ?, hash = ?, retrieval_id = ?,
		version = version + 1, recorded_at = ?, forgotten_at = 0 WHERE id = ?`,
	"chunk":        `INSERT INTO graph_chunks (chunk_id, doc_id, idx, text) VALUES (?, ?, ?, ?)`,
	"chunkFTS":     `INSERT INTO graph_chunk_fts (chunk_id, text) VALUES (?, ?)`,
	"chunkFTSDel":  `DELETE FROM graph_chunk_fts WHERE chunk_id IN (SELECT chunk_id FROM graph_chunks WHERE doc_id = ?)`,
	"chunkDel":     `DELETE FROM graph_chunks WHERE doc_id = ?`,
	"nodeChunkDel": `DELETE FROM graph_node_chunks WHERE chunk_id IN ` + inJSON,
	"node":         `INSERT INTO graph_nodes (id, name, type, source_document, recorded_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
	"nodeRevive":   `UPDATE graph_nodes SET retired_at = 0, recorded_at = ? WHERE id = ? AND retired_at > 0`,
	"nodeFTS":      `INSERT INTO graph_node_fts (node_id, name) VALUES (?, ?)`,
	"keyword":      `INSERT INTO graph_keywords (token, node_id) VALUES (?, ?) ON CONFLICT DO NOTHING`,
	"nodeDoc":      `UPDATE graph_nodes SET source_document = ? WHERE id = ? AND source_document = ''`,
	"nodeChunk":    `INSERT INTO graph_node_chunks (node_id, chunk_id) VALUES (?, ?) ON CONFLICT DO NOTHING`,
	"edgeNew": `INSERT INTO graph_edges (source, target, type, confidence, source_document, supporting_text, chunk_id, unverified, valid_from, valid_to, recorded_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (source, target, type) DO NOTHING`,
	"edgeKeep": `INSERT INTO graph_edges_retired (` + sqlcommon.RetiredEdgeColumns + `)
		SELECT ` + edgeCols + `, ?, 'superseded' FROM graph_edges WHERE source = ? AND target = ? AND type = ? AND ` + rewrites + `
		ON CONFLICT DO NOTHING`,
	"edgeUp": `UPDATE graph_edges SET confidence = ?, source_document = ?, supporting_text = ?, chunk_id = ?, unverified = ?,
		valid_from = ?, valid_to = ?, recorded_at = ?, stale_at = 0, stale_diff = ''
		WHERE source = ? AND target = ? AND type = ? AND ` + rewrites,
	"edgeRetire": `INSERT INTO graph_edges_retired (` + sqlcommon.RetiredEdgeColumns + `)
		SELECT ` + edgeCols + `, ?, ? FROM graph_edges WHERE source = ? AND target = ? AND type = ? AND source_document = ?
		ON CONFLICT DO NOTHING`,
	"onto":      `INSERT INTO graph_ontology (kind, type, count) VALUES (?, ?, ?) ON CONFLICT (kind, type) DO UPDATE SET count = count + excluded.count`,
	"aggDegree": `INSERT INTO graph_degree (node_id, degree) VALUES (?, ?) ON CONFLICT DO UPDATE SET degree = degree + excluded.degree`,
	"aggType":   `INSERT INTO graph_type_counts (kind, type, n) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n`,
	"aggCount":  `UPDATE graph_counts SET n = n + ? WHERE name = ?`,
	"ontoMax":   `INSERT INTO graph_ontology (kind, type, count) VALUES (?, ?, ?) ON CONFLICT (kind, type) DO UPDATE SET count = max(count, excluded.count)`,
}

// evidenceStmts are the statements of an edge's evidence (graph migration
// 4), built on first use (TestColdStartInitIsLazy).
var evidenceStmts = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"evUp":        sqlcommon.EvidenceUpsert(sqliteParam),
		"evDel":       sqlcommon.EvidenceDelete(sqliteParam),
		"evRepoint":   sqlcommon.EvidenceRepoint(sqliteParam),
		"evOrphanDel": sqlcommon.EvidenceOrphanDelete(sqliteParam),
		"evStale":     sqlcommon.EvidenceStaleSync(sqliteParam),
		"evMark":      sqlcommon.EvidenceMark(sqliteParam),
		"edgeForget": `INSERT INTO graph_edges_retired (` + sqlcommon.RetiredEdgeColumns + `)
		SELECT ` + sqlcommon.ForgetEdgeColumns(func(int) string { return "?1" }) + ` FROM graph_edges
		WHERE source = ?3 AND target = ?4 AND type = ?5 AND source_document = ?6
		ON CONFLICT DO NOTHING`,
	}
})

var rewrites = sqlcommon.Rewrites("", func(int) string { return "?" }, 1)

// sqliteParam is the n-th parameter, numbered (?n).
func sqliteParam(n int) string { return fmt.Sprintf("?%d", n) }

type txStmts struct {
	ctx  context.Context
	tx   *sql.Tx
	stmt map[string]*sql.Stmt
	// What the batch inserted, for the summary's aggregates.
	degree degrees
	chunks int
}

// degrees counts the new edges at each node.
type degrees map[string]int

func (d degrees) sorted() []sqlcommon.TypeCount {
	out := make([]sqlcommon.TypeCount, 0, len(d))
	for id, n := range d {
		out = append(out, sqlcommon.TypeCount{Type: id, N: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Type < out[j].Type })
	return out
}

func (s *txStmts) prepare(name string) (*sql.Stmt, error) {
	st, ok := s.stmt[name]
	if !ok {
		var err error
		q, ok := graphStmts[name]
		if !ok {
			q = evidenceStmts()[name]
		}
		if st, err = s.tx.PrepareContext(s.ctx, q); err != nil {
			return nil, err
		}
		s.stmt[name] = st
	}
	return st, nil
}

func (s *txStmts) exec(name string, args ...any) (sql.Result, error) {
	st, err := s.prepare(name)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(s.ctx, args...)
}

func (s *txStmts) close() {
	for _, st := range s.stmt {
		st.Close()
	}
}

func affected(r sql.Result) int64 {
	n, _ := r.RowsAffected()
	return n
}

// txIDs reads one column of strings in a transaction.
func txIDs(ctx context.Context, tx *sql.Tx, q string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// batchDoc is what writing a batch's document decided.
type batchDoc struct {
	replaced string        // the id of the document whose old version the batch replaces
	oldEdges []*graph.Edge // the keys of that version's edges
}

func applyDoc(st *txStmts, b *graph.Batch, res *graph.Applied) (*batchDoc, error) {
	d, bd := b.Document, &batchDoc{}
	if d == nil {
		return bd, nil
	}
	r, err := st.exec("doc", d.ID, d.Title, d.Source, d.Content, d.IngestionDate, d.Reference, d.Hash, d.RetrievalID, b.Now)
	if err != nil {
		return nil, err
	}
	if affected(r) == 1 {
		res.DocumentAdded, res.Version = true, 1
		return bd, insertChunks(st, d)
	}
	var content string
	var forgotten int64
	if err := st.tx.QueryRowContext(st.ctx, `SELECT content, version, forgotten_at FROM graph_documents WHERE id = ?`, d.ID).Scan(&content, &res.Version, &forgotten); err != nil {
		return nil, err
	}
	if content == d.Content && forgotten == 0 {
		return bd, nil
	}
	// A new version: keep the old text, replace the chunks, and note the
	// old version's edges (retired unless the batch states them again).
	oldChunks, err := txIDs(st.ctx, st.tx, `SELECT chunk_id FROM graph_chunks WHERE doc_id = ?`, d.ID)
	if err != nil {
		return nil, err
	}
	rows, err := st.tx.QueryContext(st.ctx, `SELECT source, target, type FROM graph_edge_evidence WHERE doc_id = ?1
		UNION SELECT source, target, type FROM graph_edges WHERE source_document = ?1`, d.ID)
	if err != nil {
		return nil, err
	}
	bd.oldEdges, err = sqlcommon.ScanKeys(rows)
	rows.Close()
	if err != nil {
		return nil, err
	}
	steps := []struct {
		name string
		args []any
	}{
		{"docKeep", []any{b.Now, d.ID}},
		{"docSet", []any{d.Title, d.Source, d.Content, d.IngestionDate, d.Reference, d.Hash, d.RetrievalID, b.Now, d.ID}},
		{"chunkFTSDel", []any{d.ID}},
		{"chunkDel", []any{d.ID}},
		{"nodeChunkDel", []any{jsonList(sqlcommon.ChunkIDsGone(oldChunks, d.Chunks))}},
	}
	for _, s := range steps {
		if _, err := st.exec(s.name, s.args...); err != nil {
			return nil, fmt.Errorf("replace document %s: %w", d.ID, err)
		}
	}
	res.Version++
	bd.replaced = d.ID
	return bd, insertChunks(st, d)
}

func insertChunks(st *txStmts, d *graph.Document) error {
	for _, c := range d.Chunks {
		if _, err := st.exec("chunk", c.ChunkID, d.ID, c.Index, c.Text); err != nil {
			return fmt.Errorf("chunk %s: %w", c.ChunkID, err)
		}
		st.chunks++
		if _, err := st.exec("chunkFTS", c.ChunkID, c.Text); err != nil {
			return err
		}
	}
	return nil
}

// indexNode adds a node's name to the full-text and keyword indexes.
func indexNode(st *txStmts, n *graph.Node) error {
	if _, err := st.exec("nodeFTS", n.ID, n.Name); err != nil {
		return err
	}
	for _, t := range graph.Keywords(n.Name) {
		if _, err := st.exec("keyword", t, n.ID); err != nil {
			return err
		}
	}
	return nil
}

func applyNodes(st *txStmts, b *graph.Batch, res *graph.Applied, entityNew map[string]int) error {
	for _, n := range b.Nodes {
		r, err := st.exec("node", n.ID, n.Name, n.Type, string(n.SourceDocument), b.Now)
		if err != nil {
			return err
		}
		if affected(r) == 1 {
			res.NodesAdded++
			entityNew[n.Type]++
			if err := indexNode(st, n); err != nil {
				return err
			}
		} else {
			// A forgotten node stated again comes back (its indexes with it).
			r, err := st.exec("nodeRevive", b.Now, n.ID)
			if err != nil {
				return err
			}
			if affected(r) == 1 {
				if err := indexNode(st, n); err != nil {
					return err
				}
			}
			if n.SourceDocument != "" {
				if _, err := st.exec("nodeDoc", string(n.SourceDocument), n.ID); err != nil {
					return err
				}
			}
		}
		for _, c := range n.SourceChunks {
			if _, err := st.exec("nodeChunk", n.ID, c); err != nil {
				return err
			}
		}
	}
	return nil
}

func applyEdges(st *txStmts, b *graph.Batch, bd *batchDoc, res *graph.Applied, relationNew map[string]int) error {
	for _, e := range b.Edges {
		doc, text, chunk := string(e.SourceDocument), string(e.SupportingText), string(e.ChunkID)
		r, err := st.exec("edgeNew", e.Source, e.Target, e.Type, e.Confidence, doc, text, chunk, e.Unverified, e.ValidFrom, e.ValidTo, b.Now)
		if err != nil {
			return fmt.Errorf("edge %s -> %s: %w", e.Source, e.Target, err)
		}
		if affected(r) == 1 {
			res.EdgesAdded++
			relationNew[e.Type]++
			st.degree[e.Source]++
			st.degree[e.Target]++
			if _, err := st.exec("evUp", e.Source, e.Target, e.Type, doc, chunk, text, e.Confidence, e.Unverified, b.Now); err != nil {
				return fmt.Errorf("evidence of edge %s -> %s: %w", e.Source, e.Target, err)
			}
			continue
		}
		cond := []any{e.Confidence, bd.replaced, bd.replaced, text, chunk, e.Confidence, e.Unverified}
		if r, err = st.exec("edgeKeep", append([]any{b.Now, e.Source, e.Target, e.Type}, cond...)...); err != nil {
			return fmt.Errorf("edge %s -> %s: %w", e.Source, e.Target, err)
		}
		res.EdgesRetired += int(affected(r))
		if _, err := st.exec("edgeUp", append([]any{e.Confidence, doc, text, chunk, e.Unverified, e.ValidFrom, e.ValidTo, b.Now,
			e.Source, e.Target, e.Type}, cond...)...); err != nil {
			return fmt.Errorf("edge %s -> %s: %w", e.Source, e.Target, err)
		}
		if err := stEvidence(st, e, b.Now); err != nil {
			return err
		}
	}
	for _, e := range sqlcommon.EdgesNotRestated(bd.oldEdges, b) {
		n, err := stUnsupport(st, e, bd.replaced, graph.RetiredSuperseded, b.Now)
		if err != nil {
			return fmt.Errorf("retire edge %s -> %s: %w", e.Source, e.Target, err)
		}
		res.EdgesRetired += n
	}
	return nil
}

// stEvidence writes the evidence a batch's edge gives from its document
// (an edge new in the batch too: its first evidence), and the edge's
// stale mark from its evidence.
func stEvidence(st *txStmts, e *graph.Edge, now int64) error {
	if _, err := st.exec("evUp", e.Source, e.Target, e.Type, string(e.SourceDocument), string(e.ChunkID), string(e.SupportingText),
		e.Confidence, e.Unverified, now); err != nil {
		return fmt.Errorf("evidence of edge %s -> %s: %w", e.Source, e.Target, err)
	}
	if _, err := st.exec("evStale", e.Source, e.Target, e.Type); err != nil {
		return fmt.Errorf("evidence of edge %s -> %s: %w", e.Source, e.Target, err)
	}
	return nil
}

// stUnsupport removes doc's evidence from edge e: when the edge's primary
// evidence came from doc, that version is retired (reason) and the edge
// goes on with the best evidence left, or is gone when none is left (1:
// the edge retired). erase blanks the retired version's text (forget).
func stUnsupport(st *txStmts, e *graph.Edge, doc, reason string, now int64) (int, error) {
	key := []any{e.Source, e.Target, e.Type}
	if _, err := st.exec("evDel", e.Source, e.Target, e.Type, doc); err != nil {
		return 0, err
	}
	retire := "edgeRetire"
	if reason == graph.RetiredForgotten {
		retire = "edgeForget"
	}
	if _, err := st.exec(retire, now, reason, e.Source, e.Target, e.Type, doc); err != nil {
		return 0, err
	}
	if _, err := st.exec("evRepoint", e.Source, e.Target, e.Type, now, doc); err != nil {
		return 0, err
	}
	r, err := st.exec("evOrphanDel", e.Source, e.Target, e.Type, doc)
	if err != nil {
		return 0, err
	}
	if _, err := st.exec("evStale", key...); err != nil {
		return 0, err
	}
	return int(affected(r)), nil
}

// applyAggregates adds what a batch inserted to the summary's aggregates
// (migration 3), one write per row: the degree of each end of the new
// edges, the new nodes' and edges' types, the sizes.
func applyAggregates(st *txStmts, b *graph.Batch, res *graph.Applied, entityNew, relationNew map[string]int) error {
	for _, row := range st.degree.sorted() {
		if _, err := st.exec("aggDegree", row.Type, row.N); err != nil {
			return err
		}
	}
	for kind, m := range map[string]map[string]int{"entity": entityNew, "relation": relationNew} {
		for t, n := range m {
			if _, err := st.exec("aggType", kind, t, n); err != nil {
				return err
			}
		}
	}
	docs := 0
	if res.DocumentAdded {
		docs = 1
	}
	for name, n := range map[string]int{"documents": docs, "chunks": st.chunks, "entities": res.NodesAdded, "edges": res.EdgesAdded} {
		if n == 0 {
			continue
		}
		if _, err := st.exec("aggCount", n, name); err != nil {
			return err
		}
	}
	return nil
}

func applyTx(ctx context.Context, tx *sql.Tx, b *graph.Batch) (*graph.Applied, error) {
	st := &txStmts{ctx: ctx, tx: tx, stmt: map[string]*sql.Stmt{}, degree: degrees{}}
	defer st.close()
	res := &graph.Applied{}
	entityNew, relationNew := map[string]int{}, map[string]int{}
	bd, err := applyDoc(st, b, res)
	if err != nil {
		return nil, err
	}
	if err := applyNodes(st, b, res, entityNew); err != nil {
		return nil, err
	}
	if err := applyEdges(st, b, bd, res, relationNew); err != nil {
		return nil, err
	}
	if err := applyAggregates(st, b, res, entityNew, relationNew); err != nil {
		return nil, err
	}
	counts, maxes := sqlcommon.OntologyRows(b, entityNew, relationNew)
	for _, c := range counts {
		if _, err := st.exec("onto", c.Kind, c.Type, c.N); err != nil {
			return nil, err
		}
	}
	for _, c := range maxes {
		if _, err := st.exec("ontoMax", c.Kind, c.Type, c.N); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// GraphDocument implements graph.Store.
func (g *Graph) GraphDocument(ctx context.Context, id string) (*graph.Document, error) {
	d := &graph.Document{ID: id, Chunks: []graph.Chunk{}}
	err := g.db.QueryRowContext(ctx, `SELECT title, source, content, ingestion_date, reference, hash, retrieval_id FROM graph_documents WHERE id = ?`, id).
		Scan(&d.Title, &d.Source, &d.Content, &d.IngestionDate, &d.Reference, &d.Hash, &d.RetrievalID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, retrieve.Errorf(retrieve.CodeNotFound, "no graph document %q", id).WithHint("check the doc id in the ingest or evidence result, or ingest it with `retrieve graph ingest`")
	}
	if err != nil {
		return nil, g.gerr("read document", err)
	}
	rows, err := g.db.QueryContext(ctx, `SELECT chunk_id, idx, text FROM graph_chunks WHERE doc_id = ? ORDER BY idx`, id)
	if err != nil {
		return nil, g.gerr("read chunks", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c graph.Chunk
		if err := rows.Scan(&c.ChunkID, &c.Index, &c.Text); err != nil {
			return nil, g.gerr("read chunks", err)
		}
		d.Chunks = append(d.Chunks, c)
	}
	return d, g.gerr2("read chunks", rows.Err())
}

func (g *Graph) gerr2(op string, err error) error {
	if err == nil {
		return nil
	}
	return g.gerr(op, err)
}

// GraphChunks implements graph.Store.
func (g *Graph) GraphChunks(ctx context.Context, ids []string) (map[string]graph.ChunkRef, error) {
	out := map[string]graph.ChunkRef{}
	err := func() error {
		rows, err := g.query(ctx, `SELECT chunk_id, doc_id, idx, text FROM graph_chunks WHERE chunk_id IN `+inJSON, jsonList(ids))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c graph.ChunkRef
			if err := rows.Scan(&c.ChunkID, &c.DocID, &c.Index, &c.Text); err != nil {
				return err
			}
			out[c.ChunkID] = c
		}
		return rows.Err()
	}()
	if err != nil {
		return nil, g.gerr("read chunks", err)
	}
	return out, nil
}

// GraphNodes implements graph.Store.
func (g *Graph) GraphNodes(ctx context.Context, ids []string) (map[string]*graph.Node, error) {
	out := map[string]*graph.Node{}
	err := func() error {
		rows, err := g.query(ctx, `SELECT n.id, n.name, n.type, n.source_document, n.recorded_at, coalesce(group_concat(c.chunk_id, char(31)), '')
			FROM graph_nodes n LEFT JOIN graph_node_chunks c ON c.node_id = n.id
			WHERE n.id IN `+inJSON+` AND n.retired_at = 0 GROUP BY n.id`, jsonList(ids))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			n, err := scanNode(rows)
			if err != nil {
				return err
			}
			out[n.ID] = n
		}
		return rows.Err()
	}()
	if err != nil {
		return nil, g.gerr("read nodes", err)
	}
	return out, nil
}

func scanNode(rows *sql.Rows) (*graph.Node, error) {
	n := &graph.Node{}
	var doc, chunks string
	if err := rows.Scan(&n.ID, &n.Name, &n.Type, &doc, &n.RecordedAt, &chunks); err != nil {
		return nil, err
	}
	n.SourceDocument = graph.NullString(doc)
	n.SourceChunks = []string{}
	if chunks != "" {
		n.SourceChunks = strings.Split(chunks, "\x1f")
		sort.Strings(n.SourceChunks)
	}
	return n, nil
}

// NodeIDsByName implements graph.Store.
func (g *Graph) NodeIDsByName(ctx context.Context, names []string) (map[string]string, error) {
	out := map[string]string{}
	err := func() error {
		rows, err := g.query(ctx, `SELECT name, id FROM graph_nodes WHERE name IN `+inJSON, jsonList(names))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var n, id string
			if err := rows.Scan(&n, &id); err != nil {
				return err
			}
			out[n] = id
		}
		return rows.Err()
	}()
	if err != nil {
		return nil, g.gerr("find nodes", err)
	}
	return out, nil
}

// NodesByKeyword implements graph.Store.
func (g *Graph) NodesByKeyword(ctx context.Context, tokens []string, limit int) ([]string, error) {
	if len(tokens) == 0 {
		return nil, nil
	}
	return g.ids(ctx, "search keywords", `SELECT node_id FROM graph_keywords WHERE token IN `+inJSON+`
		GROUP BY node_id ORDER BY count(*) DESC, node_id LIMIT ?`, jsonList(tokens), limit)
}

// ftsQuery ORs the tokens as quoted FTS5 strings (no operator injection).
func ftsQuery(tokens []string) string {
	parts := make([]string, 0, len(tokens))
	for _, t := range tokens {
		parts = append(parts, `"`+strings.ReplaceAll(t, `"`, `""`)+`"`)
	}
	return strings.Join(parts, " OR ")
}

func (g *Graph) ids(ctx context.Context, op, q string, args ...any) ([]string, error) {
	rows, err := g.query(ctx, q, args...)
	if err != nil {
		return nil, g.gerr(op, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, g.gerr(op, err)
		}
		out = append(out, id)
	}
	return out, g.gerr2(op, rows.Err())
}

// SearchNodeNames implements graph.Store.
func (g *Graph) SearchNodeNames(ctx context.Context, tokens []string, limit int) ([]string, error) {
	if len(tokens) == 0 {
		return nil, nil
	}
	return g.ids(ctx, "search names", `SELECT node_id FROM graph_node_fts WHERE graph_node_fts MATCH ? ORDER BY rank, node_id LIMIT ?`, ftsQuery(tokens), limit)
}

// SearchChunkNodes implements graph.Store.
func (g *Graph) SearchChunkNodes(ctx context.Context, tokens []string, limit int) ([]string, error) {
	if len(tokens) == 0 {
		return nil, nil
	}
	return g.ids(ctx, "search chunks", `SELECT nc.node_id FROM
		(SELECT chunk_id, rank FROM graph_chunk_fts WHERE graph_chunk_fts MATCH ? ORDER BY rank, chunk_id LIMIT 20) f
		JOIN graph_node_chunks nc ON nc.chunk_id = f.chunk_id
		GROUP BY nc.node_id ORDER BY min(f.rank), nc.node_id LIMIT ?`, ftsQuery(tokens), limit)
}

const edgeCols = sqlcommon.EdgeColumns

var scanEdge = sqlcommon.ScanEdge

// IncidentEdges implements graph.Store: index-only reads of the traversal
// columns (the evidence columns stay empty).
func (g *Graph) IncidentEdges(ctx context.Context, ids []string, minConfidence float64) ([]*graph.Edge, error) {
	list := jsonList(ids)
	return g.incident(ctx, `SELECT source, target, type, confidence, unverified, stale_at FROM graph_edges INDEXED BY graph_edges_source
			WHERE source IN `+inJSON+` AND confidence >= ?
			UNION ALL SELECT source, target, type, confidence, unverified, stale_at FROM graph_edges INDEXED BY graph_edges_target
			WHERE target IN `+inJSON+` AND confidence >= ?`, list, minConfidence, list, minConfidence)
}

// IncidentEdgesAt implements graph.Store: the live edges recorded by at
// (the covering indexes hold recorded_at), then the retired versions
// that held at at.
func (g *Graph) IncidentEdgesAt(ctx context.Context, ids []string, minConfidence float64, at int64) ([]*graph.Edge, error) {
	list := jsonList(ids)
	return g.incident(ctx, `SELECT source, target, type, confidence, unverified, stale_at FROM graph_edges INDEXED BY graph_edges_source
			WHERE source IN `+inJSON+` AND confidence >= ? AND recorded_at <= ?
			UNION ALL SELECT source, target, type, confidence, unverified, stale_at FROM graph_edges INDEXED BY graph_edges_target
			WHERE target IN `+inJSON+` AND confidence >= ? AND recorded_at <= ?
			UNION ALL SELECT source, target, type, confidence, unverified, stale_at FROM graph_edges_retired
			WHERE source IN `+inJSON+` AND confidence >= ? AND recorded_at <= ? AND retired_at > ? AND reason <> 'forgotten'
			UNION ALL SELECT source, target, type, confidence, unverified, stale_at FROM graph_edges_retired INDEXED BY graph_edges_retired_target
			WHERE target IN `+inJSON+` AND confidence >= ? AND recorded_at <= ? AND retired_at > ? AND reason <> 'forgotten'`,
		list, minConfidence, at, list, minConfidence, at, list, minConfidence, at, at, list, minConfidence, at, at)
}

func (g *Graph) incident(ctx context.Context, q string, args ...any) ([]*graph.Edge, error) {
	seen := map[string]bool{}
	var out []*graph.Edge
	err := func() error {
		rows, err := g.query(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			e := &graph.Edge{}
			if err := rows.Scan(&e.Source, &e.Target, &e.Type, &e.Confidence, &e.Unverified, &e.StaleAt); err != nil {
				return err
			}
			if !seen[e.Key()] {
				seen[e.Key()] = true
				out = append(out, e)
			}
		}
		return rows.Err()
	}()
	if err != nil {
		return nil, g.gerr("read edges", err)
	}
	sortEdges(out)
	return out, nil
}

// EdgesAmongAt implements graph.Store.
func (g *Graph) EdgesAmongAt(ctx context.Context, ids []string, minConfidence float64, at int64) ([]*graph.Edge, error) {
	list := jsonList(ids)
	out, err := g.edges(ctx, "read edges", sqlcommon.ScanRetiredEdge, `SELECT `+edgeCols+`, 0, '' FROM graph_edges INDEXED BY graph_edges_source
			WHERE source IN `+inJSON+` AND target IN `+inJSON+` AND confidence >= ? AND recorded_at <= ?
			UNION ALL SELECT `+sqlcommon.RetiredEdgeColumns+` FROM graph_edges_retired
			WHERE source IN `+inJSON+` AND target IN `+inJSON+` AND confidence >= ? AND recorded_at <= ? AND retired_at > ? AND reason <> 'forgotten'`,
		list, list, minConfidence, at, list, list, minConfidence, at, at)
	if err != nil {
		return nil, err
	}
	sortEdges(out)
	return out, nil
}

func sortEdges(out []*graph.Edge) {
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Confidence != b.Confidence {
			return a.Confidence > b.Confidence
		}
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		if a.Target != b.Target {
			return a.Target < b.Target
		}
		return a.Type < b.Type
	})
}

// EdgesAmong implements graph.Store: the keys come from the covering
// index, then only the matching rows are read whole.
func (g *Graph) EdgesAmong(ctx context.Context, ids []string, minConfidence float64) ([]*graph.Edge, error) {
	in := map[string]bool{}
	for _, id := range ids {
		in[id] = true
	}
	var keys []*graph.Edge
	err := func() error {
		rows, err := g.query(ctx, `SELECT source, target, type FROM graph_edges INDEXED BY graph_edges_source
			WHERE source IN `+inJSON+` AND confidence >= ?`, jsonList(ids), minConfidence)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			e := &graph.Edge{}
			if err := rows.Scan(&e.Source, &e.Target, &e.Type); err != nil {
				return err
			}
			if in[e.Target] {
				keys = append(keys, e)
			}
		}
		return rows.Err()
	}()
	if err != nil {
		return nil, g.gerr("read edges", err)
	}
	var out []*graph.Edge
	for i := 0; i < len(keys); i += 300 {
		part := keys[i:min(i+300, len(keys))]
		var q strings.Builder
		args := make([]any, 0, 3*len(part))
		q.WriteString(`SELECT ` + edgeCols + ` FROM graph_edges WHERE (source, target, type) IN (VALUES `)
		for j, k := range part {
			if j > 0 {
				q.WriteString(",")
			}
			q.WriteString("(?,?,?)")
			args = append(args, k.Source, k.Target, k.Type)
		}
		q.WriteString(")")
		err := func() error {
			rows, err := g.db.QueryContext(ctx, q.String(), args...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				e, err := scanEdge(rows)
				if err != nil {
					return err
				}
				out = append(out, e)
			}
			return rows.Err()
		}()
		if err != nil {
			return nil, g.gerr("read edges", err)
		}
	}
	sortEdges(out)
	return out, nil
}

// GraphDocumentIDs implements graph.Store.
func (g *Graph) GraphDocumentIDs(ctx context.Context) ([]string, error) {
	return g.ids(ctx, "list documents", `SELECT id FROM graph_documents WHERE forgotten_at = 0 ORDER BY id`)
}

// DocumentEdges implements graph.Store.
func (g *Graph) DocumentEdges(ctx context.Context, docID string) ([]*graph.Edge, error) {
	return g.edges(ctx, "read edges", scanEdge, sqlcommon.DocumentEvidence(sqliteParam), docID)
}

// EdgeEvidence implements graph.Store.
func (g *Graph) EdgeEvidence(ctx context.Context, source, target, typ string) ([]*graph.Edge, error) {
	return g.edges(ctx, "read evidence", scanEdge, sqlcommon.EvidenceOfEdge(sqliteParam), source, target, typ)
}

// edges runs a fixed statement and reads its rows with scan.
func (g *Graph) edges(ctx context.Context, op string, scan func(sqlcommon.Rows) (*graph.Edge, error), q string, args ...any) ([]*graph.Edge, error) {
	rows, err := g.query(ctx, q, args...)
	if err != nil {
		return nil, g.gerr(op, err)
	}
	defer rows.Close()
	var out []*graph.Edge
	for rows.Next() {
		e, err := scan(rows)
		if err != nil {
			return nil, g.gerr(op, err)
		}
		out = append(out, e)
	}
	return out, g.gerr2(op, rows.Err())
}

// MarkStale implements graph.Store: one transaction.
func (g *Graph) MarkStale(ctx context.Context, marks []graph.StaleMark) (int, error) {
	n := 0
	err := retry(ctx, func() error {
		n = 0
		tx, err := g.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		st := &txStmts{ctx: ctx, tx: tx, stmt: map[string]*sql.Stmt{}, degree: degrees{}}
		defer st.close()
		for _, m := range marks {
			r, err := st.exec("evMark", m.StaleAt, m.Diff, m.Source, m.Target, m.Type, m.Doc, m.RecordedAt)
			if err != nil {
				return err
			}
			if affected(r) == 0 {
				continue
			}
			n++
			if _, err := st.exec("evStale", m.Source, m.Target, m.Type); err != nil {
				return err
			}
		}
		return tx.Commit()
	})
	if err != nil {
		return 0, g.gerr("mark stale edges", err)
	}
	return n, nil
}

// GraphDocumentInfo implements graph.Store.
func (g *Graph) GraphDocumentInfo(ctx context.Context, ids []string) (map[string]*graph.Document, error) {
	out := map[string]*graph.Document{}
	err := func() error {
		rows, err := g.query(ctx, `SELECT id, title, source, ingestion_date, reference, hash, retrieval_id, version, recorded_at, forgotten_at FROM graph_documents WHERE id IN `+inJSON, jsonList(ids))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			d := &graph.Document{}
			if err := rows.Scan(&d.ID, &d.Title, &d.Source, &d.IngestionDate, &d.Reference, &d.Hash, &d.RetrievalID, &d.Version, &d.RecordedAt, &d.ForgottenAt); err != nil {
				return err
			}
			out[d.ID] = d
		}
		return rows.Err()
	}()
	if err != nil {
		return nil, g.gerr("read documents", err)
	}
	return out, nil
}

// GraphOntology implements graph.Store.
func (g *Graph) GraphOntology(ctx context.Context) (*graph.Ontology, error) {
	o := &graph.Ontology{EntityTypes: map[string]int{}, RelationTypes: map[string]int{}}
	rows, err := g.db.QueryContext(ctx, `SELECT kind, type, count FROM graph_ontology`)
	if err != nil {
		return nil, g.gerr("read ontology", err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind, t string
		var n int
		if err := rows.Scan(&kind, &t, &n); err != nil {
			return nil, g.gerr("read ontology", err)
		}
		if kind == "entity" {
			o.EntityTypes[t] = n
		} else {
			o.RelationTypes[t] = n
		}
	}
	return o, g.gerr2("read ontology", rows.Err())
}

// GraphStats implements graph.Store.
func (g *Graph) GraphStats(ctx context.Context) (*graph.Stats, error) {
	s := &graph.Stats{}
	err := g.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM graph_documents WHERE forgotten_at = 0), (SELECT count(*) FROM graph_chunks),
		(SELECT count(*) FROM graph_nodes WHERE retired_at = 0), (SELECT count(*) FROM graph_edges)`).Scan(&s.Documents, &s.Chunks, &s.Nodes, &s.Edges)
	if err != nil {
		return nil, g.gerr("count", err)
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

// EachNode implements graph.Store.
func (g *Graph) EachNode(ctx context.Context, fn func(*graph.Node) error) error {
	rows, err := g.db.QueryContext(ctx, `SELECT n.id, n.name, n.type, n.source_document, n.recorded_at, coalesce(group_concat(c.chunk_id, char(31)), '')
		FROM graph_nodes n LEFT JOIN graph_node_chunks c ON c.node_id = n.id WHERE n.retired_at = 0 GROUP BY n.id ORDER BY n.id`)
	if err != nil {
		return g.gerr("list nodes", err)
	}
	defer rows.Close()
	for rows.Next() {
		n, err := scanNode(rows)
		if err != nil {
			return g.gerr("list nodes", err)
		}
		if err := fn(n); err != nil {
			return err
		}
	}
	return g.gerr2("list nodes", rows.Err())
}

// EachEdge implements graph.Store.
func (g *Graph) EachEdge(ctx context.Context, fn func(*graph.Edge) error) error {
	rows, err := g.db.QueryContext(ctx, `SELECT `+edgeCols+` FROM graph_edges ORDER BY source, target, type`)
	if err != nil {
		return g.gerr("list edges", err)
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanEdge(rows)
		if err != nil {
			return g.gerr("list edges", err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return g.gerr2("list edges", rows.Err())
}

// PutWikiPage implements wiki.Index.
func (g *Graph) PutWikiPage(ctx context.Context, p *wiki.Page) error {
	err := retry(ctx, func() error {
		tx, err := g.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, `DELETE FROM wiki_fts WHERE category = ? AND slug = ?`, p.Category, p.Slug); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO wiki_pages (category, slug, title, summary, body, hash, size, mtime) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (category, slug) DO UPDATE SET title = excluded.title, summary = excluded.summary, body = excluded.body,
			hash = excluded.hash, size = excluded.size, mtime = excluded.mtime`,
			p.Category, p.Slug, p.Title, p.Summary, p.Body, p.Hash, p.Size, p.ModTime); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO wiki_fts (category, slug, title, body) VALUES (?, ?, ?, ?)`, p.Category, p.Slug, p.Title+" "+p.Slug, p.Body); err != nil {
			return err
		}
		return tx.Commit()
	})
	if err != nil {
		return g.gerr("index wiki page", err)
	}
	return nil
}

// DeleteWikiPage implements wiki.Index.
func (g *Graph) DeleteWikiPage(ctx context.Context, category, slug string) error {
	err := retry(ctx, func() error {
		tx, err := g.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, `DELETE FROM wiki_fts WHERE category = ? AND slug = ?`, category, slug); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM wiki_pages WHERE category = ? AND slug = ?`, category, slug); err != nil {
			return err
		}
		return tx.Commit()
	})
	if err != nil {
		return g.gerr("unindex wiki page", err)
	}
	return nil
}

// WikiPages implements wiki.Index.
func (g *Graph) WikiPages(ctx context.Context) ([]*wiki.Page, error) {
	rows, err := g.db.QueryContext(ctx, `SELECT category, slug, title, summary, hash, size, mtime FROM wiki_pages ORDER BY category, slug`)
	if err != nil {
		return nil, g.gerr("list wiki pages", err)
	}
	defer rows.Close()
	var out []*wiki.Page
	for rows.Next() {
		p := &wiki.Page{}
		if err := rows.Scan(&p.Category, &p.Slug, &p.Title, &p.Summary, &p.Hash, &p.Size, &p.ModTime); err != nil {
			return nil, g.gerr("list wiki pages", err)
		}
		out = append(out, p)
	}
	return out, g.gerr2("list wiki pages", rows.Err())
}

// SearchWiki implements wiki.Index: bm25 with the title weighted 4 to 1.
func (g *Graph) SearchWiki(ctx context.Context, tokens []string, limit int) ([]*wiki.Page, error) {
	if len(tokens) == 0 {
		return nil, nil
	}
	rows, err := g.db.QueryContext(ctx, `SELECT p.category, p.slug, p.title, p.summary, p.body, p.hash, p.size, p.mtime
		FROM (SELECT category, slug, bm25(wiki_fts, 4.0, 1.0) AS r FROM wiki_fts WHERE wiki_fts MATCH ? ORDER BY r LIMIT ?) f
		JOIN wiki_pages p ON p.category = f.category AND p.slug = f.slug
		ORDER BY f.r, p.category, p.slug`, ftsQuery(tokens), limit)
	if err != nil {
		return nil, g.gerr("search wiki", err)
	}
	defer rows.Close()
	var out []*wiki.Page
	for rows.Next() {
		p := &wiki.Page{}
		if err := rows.Scan(&p.Category, &p.Slug, &p.Title, &p.Summary, &p.Body, &p.Hash, &p.Size, &p.ModTime); err != nil {
			return nil, g.gerr("search wiki", err)
		}
		out = append(out, p)
	}
	return out, g.gerr2("search wiki", rows.Err())
}
