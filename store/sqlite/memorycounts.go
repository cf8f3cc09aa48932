package sqlite

import (
	"context"
	"database/sql"

	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/internal/sqlcommon"
)

// memoryCountsMigration (memory migration 6, issue 30) keeps the notes'
// counts per folder — all, by tier, by tag — in memory_counts, so that an
// overview (graph_summary) reads a few rows instead of every note's row
// (180–400 ms at 100,000 notes; docs/memory.md, "Counts"). The writes of
// the index update them in their own transaction (updateCounts,
// resetCounts); existing stores count their rows once here.
const memoryCountsMigration = `CREATE TABLE memory_counts (
		dir TEXT NOT NULL,
		kind TEXT NOT NULL,
		key TEXT NOT NULL,
		n INTEGER NOT NULL,
		PRIMARY KEY (dir, kind, key)
	) WITHOUT ROWID;
	INSERT INTO memory_counts SELECT dir, 'notes', '', count(*) FROM memory_notes GROUP BY dir;
	INSERT INTO memory_counts SELECT dir, 'tier', tier, count(*) FROM memory_notes GROUP BY dir, tier;
	INSERT INTO memory_counts SELECT dir, 'tag', tag, count(*) FROM
		(SELECT DISTINCT n.rowid, n.dir, t.value AS tag FROM memory_notes n, json_each(n.tags) t) GROUP BY dir, tag;`

// updateCounts adds to memory_counts, in the write's transaction tx, what
// replacing the rows of paths in dir with notes changes: the rows there
// now count out, notes count in (nil notes: a delete).
func updateCounts(ctx context.Context, tx *sql.Tx, dir string, paths []string, notes []memory.IndexNote) error {
	d := sqlcommon.CountDelta{}
	old, err := tx.PrepareContext(ctx, `SELECT tier, tags FROM memory_notes WHERE dir = ? AND path = ?`)
	if err != nil {
		return err
	}
	defer old.Close()
	for _, p := range paths {
		var tier, tags string
		switch err := old.QueryRowContext(ctx, dir, p).Scan(&tier, &tags); err {
		case nil:
			d.AddJSON(tier, tags, -1)
		case sql.ErrNoRows:
		default:
			return err
		}
	}
	for i := range notes {
		d.Add(notes[i].Tier, notes[i].Tags, 1)
	}
	for _, c := range d.Rows() {
		if _, err := tx.ExecContext(ctx, `INSERT INTO memory_counts (dir, kind, key, n) VALUES (?, ?, ?, ?)
			ON CONFLICT DO UPDATE SET n = n + excluded.n`, dir, c.Kind, c.Type, c.N); err != nil {
			return err
		}
	}
	return nil
}

// resetCounts drops dir's counts (MemoryReset).
func resetCounts(ctx context.Context, tx *sql.Tx, dir string) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM memory_counts WHERE dir = ?`, dir)
	return err
}

// MemoryCounts implements memory.Index: the rows of memory_counts, no
// note read.
func (m *MemoryIndex) MemoryCounts(ctx context.Context, dir string) (*memory.IndexCounts, error) {
	var out *memory.IndexCounts
	err := retry(ctx, func() error {
		rows, err := m.db.db.QueryContext(ctx, `SELECT kind, key, n FROM memory_counts WHERE dir = ? AND n <> 0`, dir)
		if err != nil {
			return err
		}
		defer rows.Close()
		out, err = sqlcommon.ScanCountRows(rows)
		return err
	})
	if err != nil {
		return nil, storeErr(m.db.path, "cannot count the memory index", err)
	}
	return out, nil
}

// notePaths are the paths of notes.
func notePaths(notes []memory.IndexNote) []string {
	out := make([]string, len(notes))
	for i := range notes {
		out[i] = notes[i].Path
	}
	return out
}
