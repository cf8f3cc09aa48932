package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/retrieve-dev/retrieve/store"
)

var _ ledger.LeafStore = (*Store)(nil)

// leafWriter appends the leaves of the entries a transaction inserts, at
// the positions after the last one: SQLite has one writer at a time, so
// two writers never take one position.
type leafWriter struct {
	stmt *sql.Stmt
	next int64
}

func newLeafWriter(ctx context.Context, tx *sql.Tx) (*leafWriter, error) {
	w := &leafWriter{}
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(idx) + 1, 0) FROM ledger_leaves`).Scan(&w.next); err != nil {
		return nil, fmt.Errorf("read the log size: %w", err)
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO ledger_leaves (idx, id, hash) VALUES (?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	w.stmt = stmt
	return w, nil
}

// add appends the leaf of e.
func (w *leafWriter) add(ctx context.Context, e *store.Entry) error {
	h := ledger.LeafHash(w.next, e)
	if _, err := w.stmt.ExecContext(ctx, w.next, e.ID, h[:]); err != nil {
		return fmt.Errorf("append the leaf of %s: %w", e.ID, err)
	}
	w.next++
	return nil
}

func (w *leafWriter) close() { w.stmt.Close() }

// Leaves implements ledger.LeafStore.
func (s *Store) Leaves(ctx context.Context) ([]ledger.Leaf, error) {
	if err := s.sync(ctx); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT idx, id, hash, tombstone FROM ledger_leaves ORDER BY idx`)
	if err != nil {
		return nil, wrapStore(s.path, fmt.Errorf("read the log: %w", err))
	}
	defer rows.Close()
	var out []ledger.Leaf
	for rows.Next() {
		var l ledger.Leaf
		var h []byte
		if err := rows.Scan(&l.Index, &l.ID, &h, &l.Tombstone); err != nil {
			return nil, wrapStore(s.path, fmt.Errorf("read the log: %w", err))
		}
		copy(l.Hash[:], h) // a hash of another length shows as altered
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapStore(s.path, fmt.Errorf("read the log: %w", err))
	}
	return out, nil
}
