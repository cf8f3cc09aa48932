package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/graph/graphtest"
)

// A store written by a retrieve before transaction time (graph schema 1)
// migrates: its edges and nodes are dated by their document's ingestion
// date, and queries now and as of before and after that date answer.
func TestGraphMigratesToTime(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), ".retrieve", "retrieve.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx, "graph", graphMigrations[:1]); err != nil {
		t.Fatal(err)
	}
	old := &Graph{DB: db}
	// Schema 1's writes, as the old binary made them.
	for _, q := range []string{
		`INSERT INTO graph_documents VALUES ('doc_001', 'Incident', 'notes/incident.md', '` + graphtest.AcceptanceText + `', '2026-03-02T09:00:00.000000+00:00', '', '', '')`,
		`INSERT INTO graph_documents VALUES ('up', 'Upstream', '', 'x', 'not a date', '', '', '')`,
		`INSERT INTO graph_chunks VALUES ('doc_001_chunk_000', 'doc_001', 0, '` + graphtest.AcceptanceText + `')`,
		`INSERT INTO graph_chunk_fts (chunk_id, text) VALUES ('doc_001_chunk_000', '` + graphtest.AcceptanceText + `')`,
		`INSERT INTO graph_nodes VALUES ('` + graph.NodeID("memory leak") + `', 'memory leak', 'issue', 'doc_001')`,
		`INSERT INTO graph_nodes VALUES ('` + graph.NodeID("system crash") + `', 'system crash', 'event', 'doc_001')`,
		`INSERT INTO graph_nodes VALUES ('n3', 'up node', 'event', 'up')`,
		`INSERT INTO graph_edges VALUES ('` + graph.NodeID("memory leak") + `', '` + graph.NodeID("system crash") + `', 'causes', 0.9, 'doc_001',
			'a memory leak in the cache service causes a system crash', 'doc_001_chunk_000', 0)`,
		`INSERT INTO graph_edges VALUES ('n3', '` + graph.NodeID("system crash") + `', 'causes', 0.8, 'up', 'x', '', 0)`,
	} {
		if _, err := db.db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	g, err := OpenGraphFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var version int
	if err := g.db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations WHERE component = 'graph'`).Scan(&version); err != nil || version != len(graphMigrations) {
		t.Fatalf("graph schema version = %d, %v; want %d", version, err, len(graphMigrations))
	}
	graphtest.CheckMigrated(t, g, 100)
}
