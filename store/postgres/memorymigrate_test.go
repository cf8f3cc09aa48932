package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/postgres"
)

// A memory index made before issue 30 (memory version 2: no evidence, no
// marks, no recorded time) migrates when the store opens: the old rows are
// dropped so that the next query re-indexes, and evidence and marks work.
func TestMemoryMigrationFromVersion2(t *testing.T) {
	url := pgtest.URL(t, "postgres_memmigrate")
	ctx := context.Background()
	m, err := postgres.OpenMemoryIndex(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	raw, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close(ctx)
	// Back to version 2, with a row of that version.
	for _, q := range []string{`DROP TABLE memory_evidence`, `DROP TABLE memory_marks`, `ALTER TABLE memory_notes DROP COLUMN recorded_ns`,
		`DROP TABLE memory_impacts`, `DROP TABLE memory_impact_terms`,
		`DELETE FROM schema_migrations WHERE component = 'memory' AND version >= 3`,
		`INSERT INTO memory_notes (dir, path, tier, note_id, title, tags, tags_text, body, size, mtime_ns, hash, warning, indexed_ns)
			VALUES ('memory', 'semantic/old.md', 'semantic', 'sem-1', 'Old', '[]', '', 'old', 1, 1, 'x', '', 1)`} {
		if _, err := raw.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	m, err = postgres.OpenMemoryIndex(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var v int
	if err := raw.QueryRow(ctx, `SELECT max(version) FROM schema_migrations WHERE component = 'memory'`).Scan(&v); err != nil || v != 4 { // the latest: 0004_impact_lists.sql
		t.Fatalf("memory version %d, %v", v, err)
	}
	if st, _ := m.MemoryStates(ctx, "memory"); len(st) != 0 {
		t.Fatalf("old rows kept: %v", st)
	}
	n := memory.IndexNote{Path: "semantic/old.md", Tier: "semantic", ID: "sem-1", Title: "Old", Body: "canary", Recorded: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano(),
		Evidence: []memory.Evidence{{Reference: "docs/a.md:1", Hash: "sha256:00"}}}
	if err := m.MemoryUpsert(ctx, "memory", []memory.IndexNote{n}); err != nil {
		t.Fatal(err)
	}
	rows, err := m.MemoryEvidence(ctx, "memory", memory.SourceKey("docs/a.md"), "", "")
	if err != nil || len(rows) != 1 {
		t.Fatalf("evidence after the migration: %v %v", rows, err)
	}
}
