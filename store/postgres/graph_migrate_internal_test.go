package postgres

import (
	"context"
	"io/fs"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/graph/graphtest"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
)

// A schema written by a retrieve before transaction time (graph migration
// 1 only) migrates: its edges and nodes are dated by their document's
// ingestion date (the Go step), and queries now and as of before and after
// that date answer.
func TestGraphMigratesToTime(t *testing.T) {
	ctx := context.Background()
	raw := pgtest.URL(t, "pggraph_migrate")
	u, _ := url.Parse(raw)
	schema := u.Query().Get("search_path")
	conn, err := pgx.Connect(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	init1, err := fs.ReadFile(migrationFS, "migrations/graph/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	leak, crash := graph.NodeID("memory leak"), graph.NodeID("system crash")
	for _, q := range []string{
		`CREATE SCHEMA ` + pgx.Identifier{schema}.Sanitize(),
		`CREATE TABLE schema_migrations (component text NOT NULL, version integer NOT NULL, name text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (component, version))`,
		`INSERT INTO schema_migrations (component, version, name) VALUES ('graph', 1, '0001_init.sql')`,
		string(init1),
		`INSERT INTO graph_documents VALUES ('doc_001', 'Incident', 'notes/incident.md', '` + graphtest.AcceptanceText + `', '2026-03-02T09:00:00.000000+00:00', '', '', '')`,
		`INSERT INTO graph_documents VALUES ('up', 'Upstream', '', 'x', 'not a date', '', '', '')`,
		`INSERT INTO graph_chunks (chunk_id, doc_id, idx, text) VALUES ('doc_001_chunk_000', 'doc_001', 0, '` + graphtest.AcceptanceText + `')`,
		`INSERT INTO graph_nodes (id, name, type, source_document) VALUES ('` + leak + `', 'memory leak', 'issue', 'doc_001'),
			('` + crash + `', 'system crash', 'event', 'doc_001'), ('n3', 'up node', 'event', 'up')`,
		`INSERT INTO graph_edges VALUES ('` + leak + `', '` + crash + `', 'causes', 0.9, 'doc_001',
			'a memory leak in the cache service causes a system crash', 'doc_001_chunk_000', false),
			('n3', '` + crash + `', 'causes', 0.8, 'up', 'x', '', false)`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%.80s: %v", q, err)
		}
	}
	conn.Close(ctx)
	g, err := OpenGraph(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	graphtest.CheckMigrated(t, g, 0)
}
