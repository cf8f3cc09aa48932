package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/internal/sqlcommon"
)

var _ memory.MarkIndex = (*MemoryIndex)(nil)

// markDialect writes the marks' queries for SQLite.
var markDialect = sqlcommon.Dialect{Param: func(int) string { return "?" }}

// upsertEvidence replaces the evidence rows of notes, in the upsert's
// transaction.
func upsertEvidence(ctx context.Context, tx *sql.Tx, dir string, notes []memory.IndexNote) error {
	del, err := tx.PrepareContext(ctx, `DELETE FROM memory_evidence WHERE dir = ? AND path = ?`)
	if err != nil {
		return err
	}
	defer del.Close()
	for i := range notes {
		if _, err := del.ExecContext(ctx, dir, notes[i].Path); err != nil {
			return err
		}
	}
	rows := sqlcommon.EvidenceRows(notes)
	if len(rows) == 0 {
		return nil
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO memory_evidence (dir, path, ord, note_id, session, source_key, retrieval_id, evidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, r := range rows {
		if _, err := ins.ExecContext(ctx, dir, r.Path, r.Ord, r.NoteID, r.Session, r.SourceKey, r.RetrievalID, r.JSON); err != nil {
			return err
		}
	}
	return nil
}

// MemoryMark implements memory.MarkIndex.
func (m *MemoryIndex) MemoryMark(ctx context.Context, dir string, marks []memory.Mark) error {
	if len(marks) == 0 {
		return nil
	}
	err := retry(ctx, func() error {
		tx, err := m.db.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		ins, err := tx.PrepareContext(ctx, `INSERT INTO memory_marks (dir, path, note_id, kind, at_ns, by_who, reference, reason, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		for _, k := range marks {
			if _, err := ins.ExecContext(ctx, dir, k.Path, k.NoteID, k.Kind, k.At.UnixNano(), k.By, k.Reference, k.Reason, k.Detail); err != nil {
				return err
			}
		}
		return tx.Commit()
	})
	if err != nil {
		return storeErr(m.db.path, "cannot write the memory marks", err)
	}
	return nil
}

// MemoryMarks implements memory.MarkIndex.
func (m *MemoryIndex) MemoryMarks(ctx context.Context, dir string, paths []string, asOf time.Time) ([]memory.Mark, error) {
	var out []memory.Mark
	err := retry(ctx, func() error {
		q, args := sqlcommon.MarksQuery(markDialect, dir, paths, asOf)
		rows, err := m.db.db.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		out, err = sqlcommon.ScanMarks(rows)
		return err
	})
	if err != nil {
		return nil, storeErr(m.db.path, "cannot read the memory marks", err)
	}
	return out, nil
}

// MemoryEvidence implements memory.MarkIndex.
func (m *MemoryIndex) MemoryEvidence(ctx context.Context, dir, source, retrievalID, session string) ([]memory.IndexEvidence, error) {
	var out []memory.IndexEvidence
	err := retry(ctx, func() error {
		q, args := sqlcommon.EvidenceQuery(markDialect, dir, source, retrievalID, session)
		rows, err := m.db.db.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		out, err = sqlcommon.ScanEvidence(rows)
		return err
	})
	if err != nil {
		return nil, storeErr(m.db.path, "cannot read the memory evidence", err)
	}
	return out, nil
}
