package sqlite

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/memory"
)

// An index made before issue 30 (memory schema version 3) migrates: the
// old rows are dropped, and the next query re-indexes every note with its
// evidence and its created time, so that an as-of query sees the old notes
// from when they were written.
func TestMemoryMigrationFromVersion3(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	dbPath := filepath.Join(root, ".retrieve", "retrieve.db")
	if err := os.MkdirAll(filepath.Dir(dbPath), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx, "memory", memoryMigrations[:3]); err != nil {
		t.Fatal(err)
	}
	if _, err := db.db.ExecContext(ctx, `INSERT INTO memory_notes (dir, path, tier, note_id, title, tags, size, mtime_ns, hash, warning, indexed_ns, body)
		VALUES ('memory', 'semantic/old.md', 'semantic', 'sem-20260101-001', 'Old', '[]', 1, 1, 'x', '', 1, 'old body')`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	note := "---\nmemory_entry_id: sem-20260101-001\ntitle: \"Old note\"\nmemory_type: semantic\ntags: []\nmetadata: {}\ncreated: \"2026-01-01T10:00:00Z\"\nupdated: \"2026-01-01T10:00:00Z\"\n---\n\nThe canary sings.\n"
	if err := os.MkdirAll(filepath.Join(root, "memory", "semantic"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "memory", "semantic", "old.md"), []byte(note), 0o644); err != nil {
		t.Fatal(err)
	}
	idx, err := OpenMemoryIndex(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	var v int
	if err := idx.db.db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations WHERE component = 'memory'`).Scan(&v); err != nil || v != len(memoryMigrations) {
		t.Fatalf("memory schema version %d (%v), want %d", v, err, len(memoryMigrations))
	}
	if st, _ := idx.MemoryStates(ctx, "memory"); len(st) != 0 {
		t.Fatalf("old rows kept: %v", st)
	}
	// The last CLI run before the upgrade recorded a full check a moment
	// ago, with the folders as they are: it is not trusted (its index held
	// the dropped rows), so this run re-indexes.
	mtimes := map[string]int64{}
	old := time.Now().Add(-time.Hour)
	for _, tier := range memory.Tiers {
		d := filepath.Join(root, "memory", tier)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
		mtimes[tier] = old.UnixNano()
	}
	checkFile := filepath.Join(root, ".retrieve", "cache", "memory-check.json")
	b, _ := json.Marshal(map[string]any{"dir": "memory", "last_full_ns": time.Now().UnixNano(), "dir_mtimes_ns": mtimes})
	if err := os.MkdirAll(filepath.Dir(checkFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(checkFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	svc, err := memory.New(memory.Options{Root: root, Index: idx, CheckFile: checkFile})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		asOf string
		want int
	}{{"", 1}, {"2026-01-02", 1}, {"2025-12-31", 0}} {
		out, _, err := svc.Overview(ctx, memory.OverviewInput{Target: "canary", Depth: memory.DepthShallow, AsOf: tc.asOf})
		if err != nil || len(out.SourceMap) != tc.want {
			t.Errorf("as of %q: %v, %v", tc.asOf, out, err)
		}
	}
	var recorded int64
	if err := idx.db.db.QueryRowContext(ctx, `SELECT recorded_ns FROM memory_notes WHERE path = 'semantic/old.md'`).Scan(&recorded); err != nil || recorded == 0 {
		t.Fatalf("recorded_ns %d, %v", recorded, err)
	}
}

// A memory index made by the store before the counts (memory schema
// version 4, with notes) migrates: memory_counts counts the notes it
// holds (a note once per distinct tag), and the writes after keep it
// exact.
func TestMemoryCountsMigration(t *testing.T) {
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), "retrieve.db")
	db, err := Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx, "memory", memoryMigrations[:4]); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO memory_notes (dir, path, tier, note_id, title, tags, size, mtime_ns, hash, warning, indexed_ns, body)
			VALUES ('memory', 'semantic/a.md', 'semantic', 'a', 'A', '["x","y","x"]', 1, 1, 'h', '', 1, 'a')`,
		`INSERT INTO memory_notes (dir, path, tier, note_id, title, tags, size, mtime_ns, hash, warning, indexed_ns, body)
			VALUES ('memory', 'episodic/b.md', 'episodic', 'b', 'B', '["x"]', 1, 1, 'h', '', 1, 'b')`,
	} {
		if _, err := db.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	idx, err := OpenMemoryIndex(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	c, err := idx.MemoryCounts(ctx, "memory")
	want := &memory.IndexCounts{Notes: 2, ByTier: map[string]int{"semantic": 1, "episodic": 1}, ByTag: map[string]int{"x": 2, "y": 1}}
	if err != nil || !reflect.DeepEqual(c, want) {
		t.Fatalf("migrated counts %+v, %v; want %+v", c, err, want)
	}
	if err := idx.MemoryDelete(ctx, "memory", []string{"semantic/a.md"}); err != nil {
		t.Fatal(err)
	}
	c, err = idx.MemoryCounts(ctx, "memory")
	want = &memory.IndexCounts{Notes: 1, ByTier: map[string]int{"episodic": 1}, ByTag: map[string]int{"x": 1}}
	if err != nil || !reflect.DeepEqual(c, want) {
		t.Fatalf("counts after a delete %+v, %v; want %+v", c, err, want)
	}
}
