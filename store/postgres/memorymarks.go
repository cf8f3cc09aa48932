package postgres

import (
	"context"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/internal/sqlcommon"
)

var _ memory.MarkIndex = (*MemoryIndex)(nil)

// markDialect writes the marks' queries for PostgreSQL.
var markDialect = sqlcommon.Dialect{Param: func(n int) string { return "$" + strconv.Itoa(n) }}

// queueEvidence replaces the evidence rows of notes, in the upsert's batch.
func queueEvidence(b *pgx.Batch, dir string, notes []memory.IndexNote) {
	paths := make([]string, len(notes))
	for i := range notes {
		paths[i] = notes[i].Path
	}
	b.Queue(`DELETE FROM memory_evidence WHERE dir = $1 AND path = ANY($2)`, dir, paths)
	for _, r := range sqlcommon.EvidenceRows(notes) {
		b.Queue(`INSERT INTO memory_evidence (dir, path, ord, note_id, session, source_key, retrieval_id, evidence) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			dir, r.Path, r.Ord, stripNUL(r.NoteID), stripNUL(r.Session), stripNUL(r.SourceKey), stripNUL(r.RetrievalID), stripNUL(r.JSON))
	}
}

// MemoryMark implements memory.MarkIndex.
func (m *MemoryIndex) MemoryMark(ctx context.Context, dir string, marks []memory.Mark) error {
	if len(marks) == 0 {
		return nil
	}
	_, err := m.db.retry(ctx, func() error {
		return pgx.BeginFunc(ctx, m.db.pool, func(tx pgx.Tx) error {
			b := &pgx.Batch{}
			for _, k := range marks {
				b.Queue(`INSERT INTO memory_marks (dir, path, note_id, kind, at_ns, by_who, reference, reason, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
					dir, k.Path, stripNUL(k.NoteID), k.Kind, k.At.UnixNano(), stripNUL(k.By), stripNUL(k.Reference), stripNUL(k.Reason), stripNUL(k.Detail))
			}
			return tx.SendBatch(ctx, b).Close()
		})
	})
	if err != nil {
		return wrap(m.db.where, "cannot write the memory marks", err)
	}
	return nil
}

// MemoryMarks implements memory.MarkIndex.
func (m *MemoryIndex) MemoryMarks(ctx context.Context, dir string, paths []string, asOf time.Time) ([]memory.Mark, error) {
	var out []memory.Mark
	_, err := m.db.retry(ctx, func() error {
		q, args := sqlcommon.MarksQuery(markDialect, dir, paths, asOf)
		rows, err := m.db.pool.Query(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		out, err = sqlcommon.ScanMarks(rows)
		return err
	})
	if err != nil {
		return nil, wrap(m.db.where, "cannot read the memory marks", err)
	}
	return out, nil
}

// MemoryEvidence implements memory.MarkIndex.
func (m *MemoryIndex) MemoryEvidence(ctx context.Context, dir, source, retrievalID, session string) ([]memory.IndexEvidence, error) {
	var out []memory.IndexEvidence
	_, err := m.db.retry(ctx, func() error {
		q, args := sqlcommon.EvidenceQuery(markDialect, dir, source, retrievalID, session)
		rows, err := m.db.pool.Query(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		out, err = sqlcommon.ScanEvidence(rows)
		return err
	})
	if err != nil {
		return nil, wrap(m.db.where, "cannot read the memory evidence", err)
	}
	return out, nil
}
