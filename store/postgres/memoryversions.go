package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/internal/sqlcommon"
)

var _ memory.VersionIndex = (*MemoryIndex)(nil)

// keepVersion copies the row of (dir $1, path $2) to memory_versions when
// its hash is not $3 (another text; "" for a delete), retired at $4.
const keepVersion = `INSERT INTO memory_versions (dir, path, note_id, hash, title, body, from_ns, to_ns)
	SELECT n.dir, n.path, n.note_id, n.hash, n.title, n.body,
		greatest(n.recorded_ns, coalesce((SELECT max(v.to_ns) FROM memory_versions v WHERE v.dir = n.dir AND v.path = n.path), 0)), $4
	FROM memory_notes n WHERE n.dir = $1 AND n.path = $2 AND n.hash <> $3 ON CONFLICT DO NOTHING`

// queueKeepVersions queues, before an upsert of notes (or, with notes nil,
// a delete of paths), the copies of the rows they replace with another
// text, retired at the new file's mtime (now for a delete).
func queueKeepVersions(b *pgx.Batch, dir string, paths []string, notes []memory.IndexNote) {
	now := time.Now().UnixNano()
	for i, p := range paths {
		hash, at := "", now
		if notes != nil {
			hash = notes[i].Hash
			if notes[i].ModTime > 0 {
				at = notes[i].ModTime
			}
		}
		b.Queue(keepVersion, dir, p, hash, at)
	}
}

// MemoryVersions implements memory.VersionIndex.
func (m *MemoryIndex) MemoryVersions(ctx context.Context, dir string, paths []string) (map[string][]memory.NoteVersion, error) {
	var out map[string][]memory.NoteVersion
	_, err := m.db.retry(ctx, func() error {
		q, args := `SELECT `+sqlcommon.VersionColumns+` FROM memory_versions WHERE dir = $1`, []any{dir}
		if paths != nil {
			q += ` AND path = ANY($2)`
			args = append(args, paths)
		}
		rows, err := m.db.pool.Query(ctx, q+` ORDER BY path, to_ns`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		out, err = sqlcommon.ScanVersions(rows)
		return err
	})
	if err != nil {
		return nil, wrap(m.db.where, "cannot read the memory index", err)
	}
	return out, nil
}

// memoryPaths are the paths of notes.
func memoryPaths(notes []memory.IndexNote) []string {
	out := make([]string, len(notes))
	for i := range notes {
		out[i] = notes[i].Path
	}
	return out
}
