package postgres_test

import (
	"context"
	"reflect"
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
		`DROP TABLE memory_counts`, `DROP FUNCTION memory_counts_track() CASCADE`, `DROP FUNCTION memory_counts_rows`, `DROP TABLE memory_versions`,
		`DROP TABLE memory_impacts`, `DROP TABLE memory_impact_terms`, `DROP TABLE memory_impact_postings`, `ALTER TABLE memory_notes DROP COLUMN nid`,
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
	if err := raw.QueryRow(ctx, `SELECT max(version) FROM schema_migrations WHERE component = 'memory'`).Scan(&v); err != nil || v != 8 { // the latest: 0008_postings_ids.sql
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

// A memory index made by the store before the counts (memory version 4,
// with notes) migrates: memory_counts counts the notes it holds, and the
// writes after keep it exact.
func TestMemoryCountsMigration(t *testing.T) {
	url := pgtest.URL(t, "postgres_memcounts")
	ctx := context.Background()
	m, err := postgres.OpenMemoryIndex(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	notes := []memory.IndexNote{
		{Path: "semantic/a.md", Tier: "semantic", ID: "a", Title: "A", Tags: []string{"x", "y"}, Body: "a"},
		{Path: "episodic/b.md", Tier: "episodic", ID: "b", Title: "B", Tags: []string{"x"}, Body: "b"},
	}
	if err := m.MemoryUpsert(ctx, "memory", notes); err != nil {
		t.Fatal(err)
	}
	m.Close()
	raw, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close(ctx)
	for _, q := range []string{`DROP TABLE memory_counts`, `DROP FUNCTION memory_counts_track() CASCADE`, `DROP FUNCTION memory_counts_rows`,
		`DROP TABLE memory_versions`, `ALTER TABLE memory_impact_terms DROP COLUMN longer`, `DROP TABLE memory_impact_postings`, `ALTER TABLE memory_notes DROP COLUMN nid`,
		`DELETE FROM schema_migrations WHERE component = 'memory' AND version >= 5`} {
		if _, err := raw.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if m, err = postgres.OpenMemoryIndex(ctx, url); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	c, err := m.MemoryCounts(ctx, "memory")
	want := &memory.IndexCounts{Notes: 2, ByTier: map[string]int{"semantic": 1, "episodic": 1}, ByTag: map[string]int{"x": 2, "y": 1}}
	if err != nil || !reflect.DeepEqual(c, want) {
		t.Fatalf("migrated counts %+v, %v; want %+v", c, err, want)
	}
	if err := m.MemoryDelete(ctx, "memory", []string{"semantic/a.md"}); err != nil {
		t.Fatal(err)
	}
	c, err = m.MemoryCounts(ctx, "memory")
	want = &memory.IndexCounts{Notes: 1, ByTier: map[string]int{"episodic": 1}, ByTag: map[string]int{"x": 1}}
	if err != nil || !reflect.DeepEqual(c, want) {
		t.Fatalf("counts after a delete %+v, %v; want %+v", c, err, want)
	}
}
