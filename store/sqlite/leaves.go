package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/retrieve-dev/retrieve/store"
)

var _ ledger.LeafStore = (*Store)(nil)

// leafWriter appends the leaves of the entries a transaction inserts, at
// the positions after the last one. SQLite has one writer at a time and
// idx is the primary key, so two writers never take one position. The next
// position is kept in memory between transactions of this process; when
// another process appended meanwhile, the insert conflicts and the
// position is read again.
type leafWriter struct {
	s    *Store
	tx   *sql.Tx
	stmt *sql.Stmt
	next int64
}

func (s *Store) newLeafWriter(ctx context.Context, tx *sql.Tx) (*leafWriter, error) {
	w := &leafWriter{s: s, tx: tx, next: s.leafNext.Load()}
	if s.leafStmt != nil {
		w.stmt = tx.StmtContext(ctx, s.leafStmt)
	} else {
		// Not prepared at open: prepared here, on the transaction's
		// connection (the pool may have no other).
		stmt, err := tx.PrepareContext(ctx, insertLeaf)
		if err != nil {
			return nil, err
		}
		w.stmt = stmt
	}
	if w.next < 0 {
		if err := w.readNext(ctx); err != nil {
			return nil, err
		}
	}
	return w, nil
}

func (w *leafWriter) readNext(ctx context.Context) error {
	if err := w.tx.QueryRowContext(ctx, `SELECT coalesce(max(idx) + 1, 0) FROM ledger_leaves`).Scan(&w.next); err != nil {
		return fmt.Errorf("read the log size: %w", err)
	}
	return nil
}

const insertLeaf = `INSERT INTO ledger_leaves (idx, id, hash) VALUES (?, ?, ?)`

// prepareLeaf prepares insertLeaf once, when the store is opened (a
// statement prepared on the pool inside a transaction would wait for a
// second connection). A store whose schema is not migrated yet prepares it
// in each transaction instead.
func (s *Store) prepareLeaf(ctx context.Context) {
	if stmt, err := s.db.PrepareContext(ctx, insertLeaf); err == nil {
		s.leafStmt = stmt
	}
}

// add appends the leaf of e. An entry whose leaf is there already (gc
// deleted it and a copy brings it back) keeps its leaf, no longer a
// tombstone: audit checks the entry against it.
func (w *leafWriter) add(ctx context.Context, e *store.Entry) error {
	for try := 0; ; try++ {
		h := ledger.LeafHash(w.next, e)
		_, err := w.stmt.ExecContext(ctx, w.next, e.ID, h[:])
		if err == nil {
			w.next++
			return nil
		}
		if msg := err.Error(); strings.Contains(msg, "ledger_leaves.id") && !strings.Contains(msg, "ledger_leaves.idx") {
			if _, err := w.tx.ExecContext(ctx, `UPDATE ledger_leaves SET tombstone = 0 WHERE id = ?`, e.ID); err != nil {
				return fmt.Errorf("restore the leaf of %s: %w", e.ID, err)
			}
			return nil
		}
		if try > 0 || isBusy(err) {
			return fmt.Errorf("append the leaf of %s: %w", e.ID, err)
		}
		// Another process appended since: read the size again.
		if err := w.readNext(ctx); err != nil {
			return err
		}
	}
}

// done records the next position after a commit (ok) or forgets it.
func (w *leafWriter) done(ok bool) {
	if ok {
		w.s.leafNext.Store(w.next)
	} else {
		w.s.leafNext.Store(-1)
	}
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

var _ ledger.LogScanner = (*Store)(nil)

// scanLogQuery reads the log with its entries and then the entries without
// a leaf in one statement, so one snapshot of the database (a read
// transaction would take the write lock: the store's transactions are
// immediate). The first part runs in position order (the primary key).
const scanLogQuery = `SELECT * FROM (SELECT 0, l.idx, l.id, l.hash, l.tombstone, e.id IS NOT NULL,
	coalesce(e.id, ''), coalesce(e.time, ''), coalesce(e.op, ''), coalesce(e.target, ''), coalesce(e.source, ''),
	coalesce(e.reference, ''), coalesce(e.hash, ''), coalesce(e.source_hash, ''), coalesce(e.snapshot, ''),
	coalesce(e.status, ''), coalesce(e.code, ''), coalesce(e.duration_ns, 0), coalesce(e.request, x''),
	coalesce(e.result, x''), coalesce(e.data_in_snapshot, 0)
	FROM ledger_leaves l LEFT JOIN ledger e ON e.id = l.id ORDER BY l.idx)
UNION ALL
SELECT 1, -1, '', x'', 0, 1, ` + entryColumns + ` FROM ledger e
	WHERE NOT EXISTS (SELECT 1 FROM ledger_leaves l WHERE l.id = e.id)`

// ScanLog implements ledger.LogScanner.
func (s *Store) ScanLog(ctx context.Context, leaf func(ledger.Leaf, *store.Entry) error, entry func(*store.Entry) error) error {
	if err := s.sync(ctx); err != nil {
		return err
	}
	rows, err := s.db.QueryContext(ctx, scanLogQuery)
	if err != nil {
		return wrapStore(s.path, fmt.Errorf("read the log: %w", err))
	}
	defer rows.Close()
	for rows.Next() {
		var part int
		var l ledger.Leaf
		var h []byte
		var has bool
		var e store.Entry
		var t string
		var dur int64
		var req, res []byte
		if err := rows.Scan(&part, &l.Index, &l.ID, &h, &l.Tombstone, &has, &e.ID, &t, &e.Op, &e.Target, &e.Source, &e.Reference,
			&e.Hash, &e.SourceHash, &e.Snapshot, &e.Status, &e.Code, &dur, &req, &res, &e.DataInSnapshot); err != nil {
			return wrapStore(s.path, fmt.Errorf("read the log: %w", err))
		}
		e.Time, _ = time.Parse(timeFormat, t)
		e.Duration, e.Request, e.Result = time.Duration(dur), req, res
		if part == 1 {
			err = entry(&e)
		} else {
			copy(l.Hash[:], h)
			var ep *store.Entry
			if has {
				ep = &e
			}
			err = leaf(l, ep)
		}
		if err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return wrapStore(s.path, fmt.Errorf("read the log: %w", err))
	}
	return nil
}
