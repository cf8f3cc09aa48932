package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/retrieve-dev/retrieve/store"
)

var _ ledger.LeafStore = (*Store)(nil)

// The log lives in the entries' own rows (ledger migration 6): the
// position is the row's INTEGER PRIMARY KEY (pos) and the leaf hash a
// column (leaf), so appending an entry writes no page that recording
// it did not write before the log. An entry that leaves the table takes
// its leaf to ledger_tombstones: gc and retention mark it a tombstone
// (gc = 1); any other DELETE (a trigger) keeps it without the mark, which
// audit reports as removed.

// insertEntry appends an entry with its position and leaf. An id already
// in the ledger inserts nothing (the journal's fold meets records folded
// before; the group commit reports the duplicate as an error).
const insertEntry = `INSERT INTO ledger (pos, ` + entryColumns + `, leaf)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// insertEntryOnce is insertEntry that inserts nothing for an id present
// already (the journal's fold, store copy).
const insertEntryOnce = insertEntry + ` ON CONFLICT (id) DO NOTHING`

// leafWriter appends the entries of one write transaction with their
// leaves, at the positions after the last one. The store's transactions
// are immediate (one writer at a time, across processes), so the size read
// at its start is the log's.
type leafWriter struct {
	tx   *sql.Tx
	stmt *sql.Stmt
	next int64
	// tombs: ledger_tombstones has rows, so an entry may come back (store
	// copy after gc) and take its old position and leaf.
	tombs bool
}

// logSize reads the next position and whether there are tombstones.
const logSize = `SELECT coalesce((SELECT max(pos) FROM ledger), -1), coalesce((SELECT max(idx) FROM ledger_tombstones), -1)`

// newLeafWriter reads the log's size in tx and prepares the insert; with
// ignoreDup, an id present already inserts nothing instead of failing.
// The statements are the ones prepared at open when there are (a
// statement prepared in a transaction costs more than running it).
func (s *Store) newLeafWriter(ctx context.Context, tx *sql.Tx, ignoreDup bool) (*leafWriter, error) {
	w := &leafWriter{tx: tx}
	var row *sql.Row
	if s.sizeStmt != nil {
		row = tx.StmtContext(ctx, s.sizeStmt).QueryRowContext(ctx)
	} else {
		row = tx.QueryRowContext(ctx, logSize)
	}
	var last, lastTomb int64
	if err := row.Scan(&last, &lastTomb); err != nil {
		return nil, fmt.Errorf("read the log size: %w", err)
	}
	w.next, w.tombs = max(last, lastTomb)+1, lastTomb >= 0
	q, prepared := insertEntry, s.insertStmt
	if ignoreDup {
		q, prepared = insertEntryOnce, s.insertOnceStmt
	}
	if prepared != nil {
		w.stmt = tx.StmtContext(ctx, prepared)
		return w, nil
	}
	stmt, err := tx.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	w.stmt = stmt
	return w, nil
}

// prepareInsert prepares insertEntry, insertEntryOnce and logSize once, when the store is
// opened (a statement prepared on the pool inside a transaction would wait
// for a second connection). A store whose schema is not migrated yet
// prepares them in each transaction instead.
func (s *Store) prepareInsert(ctx context.Context) {
	if stmt, err := s.db.PrepareContext(ctx, insertEntry); err == nil {
		s.insertStmt = stmt
	}
	if stmt, err := s.db.PrepareContext(ctx, logSize); err == nil {
		s.sizeStmt = stmt
	}
	if stmt, err := s.db.PrepareContext(ctx, insertEntryOnce); err == nil {
		s.insertOnceStmt = stmt
	}
}

// add inserts e at the next position with its leaf and reports whether it
// inserted it (false: ignoreDup and the id is there). An entry whose leaf
// is a tombstone (gc deleted it and a copy brings it back) takes its
// position and leaf again: audit checks the entry against it.
func (w *leafWriter) add(ctx context.Context, e *store.Entry) (bool, error) {
	pos, restored := w.next, false
	var leaf []byte
	if w.tombs {
		err := w.tx.QueryRowContext(ctx, `SELECT idx, hash FROM ledger_tombstones WHERE id = ?`, e.ID).Scan(&pos, &leaf)
		switch {
		case err == nil:
			restored = true
		case !errors.Is(err, sql.ErrNoRows):
			return false, fmt.Errorf("read the tombstone of %s: %w", e.ID, err)
		}
	}
	if !restored {
		h := ledger.LeafHash(pos, e)
		leaf = h[:]
	}
	args := append(append(make([]any, 0, 17), pos), entryArgs(e)...)
	res, err := w.stmt.ExecContext(ctx, append(args, leaf)...)
	if err != nil {
		return false, err
	}
	if k, err := res.RowsAffected(); err != nil || k == 0 {
		return false, err
	}
	if !restored {
		w.next++
	} else if _, err := w.tx.ExecContext(ctx, `DELETE FROM ledger_tombstones WHERE id = ?`, e.ID); err != nil {
		// (Removed only once the entry is in: an insert that fails keeps it.)
		return false, fmt.Errorf("restore the leaf of %s: %w", e.ID, err)
	}
	return true, nil
}

func (w *leafWriter) close() { w.stmt.Close() }

// leavesQuery lists the log: the entries' leaves and the tombstones, in
// position order (SQLite merges the two ordered scans).
const leavesQuery = `SELECT pos, id, leaf, 0 FROM ledger WHERE leaf IS NOT NULL
UNION ALL SELECT idx, id, hash, gc FROM ledger_tombstones ORDER BY 1`

// Leaves implements ledger.LeafStore.
func (s *Store) Leaves(ctx context.Context) ([]ledger.Leaf, error) {
	if err := s.sync(ctx); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, leavesQuery)
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

// scanLogQuery reads the log with its entries in one statement, so one
// snapshot of the database (a read transaction would take the write lock:
// the store's transactions are immediate): every entry row (part 1 when it
// has no leaf) and every tombstone, with an entry of the same id if one is
// there (a restore gone wrong, or an edit), in position order — SQLite
// merges the scan of the ledger's primary key with the tombstones'.
const scanLogQuery = `SELECT leaf IS NULL, pos, id, coalesce(leaf, x''), 0, 1, ` + entryColumns + ` FROM ledger
UNION ALL
SELECT 0, t.idx, t.id, t.hash, t.gc, e.id IS NOT NULL,
	coalesce(e.id, ''), coalesce(e.time, ''), coalesce(e.op, ''), coalesce(e.target, ''), coalesce(e.source, ''),
	coalesce(e.reference, ''), coalesce(e.hash, ''), coalesce(e.source_hash, ''), coalesce(e.snapshot, ''),
	coalesce(e.status, ''), coalesce(e.code, ''), coalesce(e.duration_ns, 0), coalesce(e.request, x''),
	coalesce(e.result, x''), coalesce(e.data_in_snapshot, 0)
	FROM ledger_tombstones t LEFT JOIN ledger e ON e.id = t.id
ORDER BY 2`

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
