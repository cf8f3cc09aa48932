package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/internal/sqlcommon"
)

// memoryVersionsMigration (memory migration 7, issue 30) keeps the notes'
// earlier texts: a write of the index that replaces a note's row with
// another text (another file hash), or deletes it, first copies the row
// to memory_versions (keepVersions), in its transaction. A reindex (a
// reset) keeps them. docs/memory.md, "Text history".
const memoryVersionsMigration = `CREATE TABLE memory_versions (
		dir TEXT NOT NULL,
		path TEXT NOT NULL,
		note_id TEXT NOT NULL,
		hash TEXT NOT NULL,
		title TEXT NOT NULL,
		body TEXT NOT NULL,
		from_ns INTEGER NOT NULL,
		to_ns INTEGER NOT NULL,
		PRIMARY KEY (dir, path, to_ns)
	) WITHOUT ROWID;`

// keepVersions copies the rows of dir that notes replace with another text
// to memory_versions, retired at the new file's mtime (now when unknown);
// with hashes nil (a delete), the rows of paths, retired now.
func keepVersions(ctx context.Context, tx *sql.Tx, dir string, paths []string, notes []memory.IndexNote) error {
	keep, err := tx.PrepareContext(ctx, `INSERT INTO memory_versions (dir, path, note_id, hash, title, body, from_ns, to_ns)
		SELECT n.dir, n.path, n.note_id, n.hash, n.title, n.body,
			max(n.recorded_ns, coalesce((SELECT max(v.to_ns) FROM memory_versions v WHERE v.dir = n.dir AND v.path = n.path), 0)), ?4
		FROM memory_notes n WHERE n.dir = ?1 AND n.path = ?2 AND n.hash <> ?3 ON CONFLICT DO NOTHING`)
	if err != nil {
		return err
	}
	defer keep.Close()
	now := time.Now().UnixNano()
	for i, p := range paths {
		hash, at := "", now
		if notes != nil {
			hash = notes[i].Hash
			if notes[i].ModTime > 0 {
				at = notes[i].ModTime
			}
		}
		if _, err := keep.ExecContext(ctx, dir, p, hash, at); err != nil {
			return err
		}
	}
	return nil
}

// MemoryVersions implements memory.VersionIndex.
func (m *MemoryIndex) MemoryVersions(ctx context.Context, dir string, paths []string) (map[string][]memory.NoteVersion, error) {
	var out map[string][]memory.NoteVersion
	err := retry(ctx, func() error {
		q, args := `SELECT `+sqlcommon.VersionColumns+` FROM memory_versions WHERE dir = ?`, []any{dir}
		if paths != nil {
			q += ` AND path IN ` + inJSON
			args = append(args, jsonList(paths))
		}
		rows, err := m.db.db.QueryContext(ctx, q+` ORDER BY path, to_ns`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		out, err = sqlcommon.ScanVersions(rows)
		return err
	})
	if err != nil {
		return nil, storeErr(m.db.path, "cannot read the memory index", err)
	}
	return out, nil
}
