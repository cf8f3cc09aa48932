package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/internal/sqlcommon"
	sqlite "modernc.org/sqlite"
)

// ledgerMigrations is the schema of the ledger and the snapshots.
var ledgerMigrations = []string{
	`CREATE TABLE ledger (
		id TEXT PRIMARY KEY,
		time TEXT NOT NULL,
		op TEXT NOT NULL,
		target TEXT NOT NULL,
		source TEXT NOT NULL,
		reference TEXT NOT NULL,
		hash TEXT NOT NULL,
		source_hash TEXT NOT NULL,
		snapshot TEXT NOT NULL,
		status TEXT NOT NULL,
		code TEXT NOT NULL,
		duration_ns INTEGER NOT NULL,
		request BLOB NOT NULL,
		result BLOB NOT NULL
	);
	CREATE INDEX ledger_time ON ledger (time);
	CREATE INDEX ledger_target ON ledger (target, time);
	CREATE INDEX ledger_reference ON ledger (reference, time);
	CREATE INDEX ledger_snapshot ON ledger (snapshot);
	CREATE TABLE snapshots (
		hash TEXT PRIMARY KEY,
		size INTEGER NOT NULL,
		stored_size INTEGER NOT NULL,
		created_at TEXT NOT NULL
	);
	CREATE TABLE snapshot_chunks (
		hash TEXT NOT NULL REFERENCES snapshots (hash) ON DELETE CASCADE,
		seq INTEGER NOT NULL,
		data BLOB NOT NULL,
		PRIMARY KEY (hash, seq)
	);`,
	// 2: an entry with a snapshot keeps its result without the data, which
	// the snapshot holds (docs/ledger.md); existing entries are converted.
	`ALTER TABLE ledger ADD COLUMN data_in_snapshot INTEGER NOT NULL DEFAULT 0;
	UPDATE ledger SET
		result = CAST(json_set(CAST(result AS TEXT), '$.retrieved.data', json('null')) AS BLOB),
		data_in_snapshot = 1
	WHERE snapshot <> '' AND status = 'ok' AND CASE WHEN json_valid(CAST(result AS TEXT))
		THEN coalesce(json_type(CAST(result AS TEXT), '$.retrieved.data'), 'null') <> 'null' ELSE 0 END;`,
	// 3: where a snapshot's bytes are: 'zstd' chunks or a 'raw' chunk in
	// snapshot_chunks, or a 'file' beside the database (objects.go).
	`ALTER TABLE snapshots ADD COLUMN storage TEXT NOT NULL DEFAULT 'zstd';`,
	// 4: secrets never at rest (docs/SECURITY.md): rows recorded before
	// URLs were redacted lose the userinfo and token-like query parameters
	// of every URL in their target, reference, request and result
	// (retrieved.data, the source's content, is kept).
	`UPDATE ledger SET
		target = retrieve_redact(target), reference = retrieve_redact(reference),
		request = retrieve_redact(request), result = retrieve_redact(result)
	WHERE instr(target, '://') > 0 OR instr(reference, '://') > 0
		OR instr(CAST(request AS TEXT), '://') > 0 OR instr(CAST(result AS TEXT), '://') > 0;`,
	// 5: the tamper-evident log (package ledger, docs/ledger.md): one leaf
	// per entry in append order, written with the entry; a tombstone marks
	// an entry gc deleted. Existing entries get their leaves in id (time)
	// order. (A store at version 4 has no such table; one rolled back by
	// hand gets its leaves rebuilt.)
	`DROP TABLE IF EXISTS ledger_leaves;
	CREATE TABLE ledger_leaves (
		idx INTEGER PRIMARY KEY,
		id TEXT NOT NULL UNIQUE,
		hash BLOB NOT NULL,
		tombstone INTEGER NOT NULL DEFAULT 0
	);
	INSERT INTO ledger_leaves (idx, id, hash)
	SELECT n, id, retrieve_leaf(n, ` + entryColumns + `)
	FROM (SELECT row_number() OVER (ORDER BY id) - 1 AS n, ` + entryColumns + ` FROM ledger)
	ORDER BY n;`,
	// 6: the leaf in the entry's own row (leaves.go): the position is the
	// row's INTEGER PRIMARY KEY and the hash a column, so an append writes
	// the pages it wrote before the log (ledger_leaves and its index were
	// two more per commit). Leaves whose entry is gone move to
	// ledger_tombstones, with their mark (gc); a DELETE by any other path
	// keeps the leaf there unmarked (the trigger), which audit reports as
	// removed. Entries without a leaf keep none.
	`DROP TABLE IF EXISTS ledger_v6;
	DROP TABLE IF EXISTS ledger_tombstones;
	DROP TRIGGER IF EXISTS ledger_keep_leaf;
	CREATE TABLE ledger_v6 (
		pos INTEGER PRIMARY KEY,
		id TEXT NOT NULL UNIQUE,
		time TEXT NOT NULL,
		op TEXT NOT NULL,
		target TEXT NOT NULL,
		source TEXT NOT NULL,
		reference TEXT NOT NULL,
		hash TEXT NOT NULL,
		source_hash TEXT NOT NULL,
		snapshot TEXT NOT NULL,
		status TEXT NOT NULL,
		code TEXT NOT NULL,
		duration_ns INTEGER NOT NULL,
		request BLOB NOT NULL,
		result BLOB NOT NULL,
		data_in_snapshot INTEGER NOT NULL DEFAULT 0,
		leaf BLOB
	);
	INSERT INTO ledger_v6 (pos, ` + entryColumns + `, leaf)
	SELECT l.idx, ` + entryColumnsE + `, l.hash FROM ledger e JOIN ledger_leaves l ON l.id = e.id ORDER BY l.idx;
	INSERT INTO ledger_v6 (` + entryColumns + `)
	SELECT ` + entryColumnsE + ` FROM ledger e WHERE NOT EXISTS (SELECT 1 FROM ledger_leaves l WHERE l.id = e.id) ORDER BY e.id;
	CREATE TABLE ledger_tombstones (
		idx INTEGER PRIMARY KEY,
		id TEXT NOT NULL UNIQUE,
		hash BLOB NOT NULL,
		gc INTEGER NOT NULL DEFAULT 0
	);
	INSERT INTO ledger_tombstones (idx, id, hash, gc)
	SELECT idx, id, hash, tombstone FROM ledger_leaves l WHERE NOT EXISTS (SELECT 1 FROM ledger e WHERE e.id = l.id);
	DROP TABLE ledger;
	DROP TABLE ledger_leaves;
	ALTER TABLE ledger_v6 RENAME TO ledger;
	CREATE INDEX ledger_time ON ledger (time);
	CREATE INDEX ledger_target ON ledger (target, time);
	CREATE INDEX ledger_reference ON ledger (reference, time);
	-- No index on snapshot any more: only gc reads that column (one scan,
	-- which SQLite turns into a transient table for its NOT IN), and the
	-- index was a fifth of the CPU of every append's fold (BenchmarkFold).
	CREATE TRIGGER ledger_keep_leaf AFTER DELETE ON ledger WHEN old.leaf IS NOT NULL BEGIN
		INSERT OR IGNORE INTO ledger_tombstones (idx, id, hash, gc) VALUES (old.pos, old.id, old.leaf, 0);
	END;`,
}

func init() {
	// retrieve_redact(x) redacts URL credentials in text, or in the JSON of
	// a recorded request or result (a blob); migration 4 uses it.
	sqlite.MustRegisterDeterministicScalarFunction("retrieve_redact", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch x := args[0].(type) {
		case string:
			return retrieve.RedactText(x), nil
		case []byte:
			return retrieve.RedactRecordedJSON(x), nil
		}
		return args[0], nil
	})
	// retrieve_leaf(index, entryColumns...) is the leaf hash of a stored
	// entry at index; migration 5 uses it.
	sqlite.MustRegisterDeterministicScalarFunction("retrieve_leaf", 16, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		e, err := entryOfValues(args[1:])
		if err != nil {
			return nil, err
		}
		h := ledger.LeafHash(args[0].(int64), e)
		return h[:], nil
	})
}

// entryOfValues reads an entry from the SQL values of entryColumns.
func entryOfValues(v []driver.Value) (*store.Entry, error) {
	str := func(x driver.Value) string {
		switch x := x.(type) {
		case string:
			return x
		case []byte:
			return string(x)
		}
		return ""
	}
	num := func(x driver.Value) int64 { n, _ := x.(int64); return n }
	if len(v) != 15 {
		return nil, fmt.Errorf("retrieve_leaf: want 15 entry columns, got %d", len(v))
	}
	e := &store.Entry{ID: str(v[0]), Op: str(v[2]), Target: str(v[3]), Source: str(v[4]), Reference: str(v[5]),
		Hash: str(v[6]), SourceHash: str(v[7]), Snapshot: str(v[8]), Status: str(v[9]), Code: str(v[10]),
		Duration: time.Duration(num(v[11])), Request: []byte(str(v[12])), Result: []byte(str(v[13])), DataInSnapshot: num(v[14]) != 0}
	e.Time, _ = time.Parse(timeFormat, str(v[1]))
	return e, nil
}

// Store is the SQLite implementation of store.Store.
type Store struct {
	*DB
	enc *zstd.Encoder
	dec *zstd.Decoder
	// wmu serializes this process's writers: SQLite has one writer at a
	// time, and writers that wait in its busy handler sleep in steps of
	// milliseconds, which caps a busy server at a few hundred writes a
	// second. Other processes still coordinate through the busy timeout.
	wmu sync.Mutex
	// foldConn is the connection the journal's fold writes with (under
	// wmu), with a page cache of its own (foldBegin).
	foldConn *sql.Conn
	// pmu guards pending, the appends waiting for the next group commit.
	pmu     sync.Mutex
	pending []*appendReq
	// jn, when set (StartJournal), takes the appends of a long-running
	// process (journal.go).
	jn *journal
	// hasStmt looks an id up in the ledger table (hasEntry).
	hasOnce sync.Once
	hasStmt *sql.Stmt
	hasErr  error
	// seenAt holds the snapshots this process stored or found lately
	// (hash → time), so that the next retrieval of the same bytes does not
	// ask the database (objects.go).
	seenAt sync.Map
	// jkey is the journal key (journalKey); jproblems the journal files
	// set aside (JournalProblems).
	keyOnce   sync.Once
	jkey      []byte
	jkeyErr   error
	jpmu      sync.Mutex
	jproblems []string
	// insertStmt and insertOnceStmt append an entry with its leaf,
	// sizeStmt reads the log's size (leaves.go).
	insertStmt, insertOnceStmt, sizeStmt *sql.Stmt
	// outlineOnce applies the outline cache's migration on its first use
	// (outline.go).
	outlineOnce sync.Once
	outlineErr  error
}

var _ store.Store = (*Store)(nil)

// OpenStore opens the store file and applies the ledger migrations.
func OpenStore(ctx context.Context, path string) (*Store, error) {
	db, err := Open(ctx, path)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx, "ledger", ledgerMigrations); err != nil {
		db.Close()
		return nil, wrapStore(path, err)
	}
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	dec, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	s := &Store{DB: db, enc: enc, dec: dec}
	s.prepareInsert(ctx)
	return s, nil
}

func wrapStore(path string, err error) error {
	var re *retrieve.Error
	if errors.As(err, &re) {
		return err
	}
	return storeErr(path, "cannot use the store", err)
}

const timeFormat = "2006-01-02T15:04:05.000000000Z07:00"

// dialect is how SQLite writes parameters and ledger times.
var dialect = sqlcommon.Dialect{
	Param: func(int) string { return "?" },
	Time:  func(t time.Time) any { return t.UTC().Format(timeFormat) },
}

// Append implements store.Ledger. Concurrent appends of one process are
// committed together (group commit): each caller queues its entry, and
// whoever holds the writer lock writes every queued entry in one
// transaction, so N concurrent retrievals cost about one commit instead of
// N. A failed entry (a duplicate id) fails alone. With the journal on
// (StartJournal), the entry is acknowledged once it is in the journal file
// (journal.go).
func (s *Store) Append(ctx context.Context, e *store.Entry) error {
	if s.jn != nil {
		if handled, err := s.jn.append(ctx, e); handled {
			return err
		}
	}
	req := &appendReq{e: e, done: make(chan error, 1)}
	s.pmu.Lock()
	s.pending = append(s.pending, req)
	s.pmu.Unlock()
	s.wmu.Lock()
	s.pmu.Lock()
	batch := s.pending
	s.pending = nil
	s.pmu.Unlock()
	if len(batch) > 0 {
		s.appendBatch(context.WithoutCancel(ctx), batch)
	}
	s.wmu.Unlock()
	// Ours was in this batch or in one an earlier lock holder wrote before
	// it let go of the lock: done holds the outcome either way.
	return <-req.done
}

// appendReq is one queued Append.
type appendReq struct {
	e    *store.Entry
	done chan error
}

// appendBatch writes batch in one transaction and answers every request.
func (s *Store) appendBatch(ctx context.Context, batch []*appendReq) {
	errs := make([]error, len(batch))
	err := retry(ctx, func() error {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		leaves, err := s.newLeafWriter(ctx, tx, false)
		if err != nil {
			return err
		}
		defer leaves.close()
		for i, r := range batch {
			_, errs[i] = leaves.add(ctx, r.e)
			if errs[i] != nil && isBusy(errs[i]) {
				return errs[i] // retry the whole batch
			}
		}
		return tx.Commit()
	})
	if err != nil {
		// A full disk makes SQLite roll the transaction back at the
		// statement, so the commit only says "no transaction is active":
		// the statement's error is the cause.
		for _, e := range errs {
			if retrieve.IsDiskFull(e) {
				err = e
				break
			}
		}
	}
	for i, r := range batch {
		failed := err // the transaction failed: every entry did
		if failed == nil {
			failed = errs[i] // this entry alone (SQLite aborts the statement, not the transaction)
		}
		if failed != nil {
			r.done <- wrapStore(s.path, fmt.Errorf("append ledger entry: %w", failed))
		} else {
			r.done <- nil
		}
	}
}

const entryColumns = `id, time, op, target, source, reference, hash, source_hash, snapshot, status, code, duration_ns, request, result, data_in_snapshot`

// entryColumnsE are entryColumns of the table aliased e.
const entryColumnsE = `e.id, e.time, e.op, e.target, e.source, e.reference, e.hash, e.source_hash, e.snapshot, e.status, e.code, e.duration_ns, e.request, e.result, e.data_in_snapshot`

// entryArgs are the values of entryColumns for e.
func entryArgs(e *store.Entry) []any {
	return []any{e.ID, e.Time.UTC().Format(timeFormat), e.Op, e.Target, e.Source, e.Reference, e.Hash, e.SourceHash, e.Snapshot,
		e.Status, e.Code, int64(e.Duration), []byte(e.Request), []byte(e.Result), e.DataInSnapshot}
}

func scanEntry(row interface{ Scan(...any) error }) (*store.Entry, error) {
	var e store.Entry
	var t string
	var dur int64
	var req, res []byte
	if err := row.Scan(&e.ID, &t, &e.Op, &e.Target, &e.Source, &e.Reference, &e.Hash, &e.SourceHash, &e.Snapshot, &e.Status, &e.Code, &dur, &req, &res, &e.DataInSnapshot); err != nil {
		return nil, err
	}
	e.Time, _ = time.Parse(timeFormat, t)
	e.Duration = time.Duration(dur)
	e.Request, e.Result = req, res
	return &e, nil
}

// Entry implements store.Ledger.
func (s *Store) Entry(ctx context.Context, id string) (*store.Entry, error) {
	if err := s.sync(ctx); err != nil {
		return nil, err
	}
	e, err := scanEntry(s.db.QueryRowContext(ctx, `SELECT `+entryColumns+` FROM ledger WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, retrieve.Errorf(retrieve.CodeNotFound, "no ledger entry %s", id).
			WithHint("list entries with `retrieve log`")
	}
	if err != nil {
		return nil, wrapStore(s.path, fmt.Errorf("read ledger entry: %w", err))
	}
	return e, nil
}

// Entries implements store.Ledger.
func (s *Store) Entries(ctx context.Context, f store.Filter) ([]*store.Entry, error) {
	if err := s.sync(ctx); err != nil {
		return nil, err
	}
	q, args := sqlcommon.EntriesQuery(dialect, entryColumns, f)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, wrapStore(s.path, fmt.Errorf("list ledger: %w", err))
	}
	defer rows.Close()
	var out []*store.Entry
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, wrapStore(s.path, fmt.Errorf("list ledger: %w", err))
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapStore(s.path, fmt.Errorf("list ledger: %w", err))
	}
	return out, nil
}

// DeleteEntriesBefore implements store.Ledger.
func (s *Store) DeleteEntriesBefore(ctx context.Context, t time.Time) (int, error) {
	if err := s.sync(ctx); err != nil {
		return 0, err
	}
	var n int64
	before := t.UTC().Format(timeFormat)
	err := retry(ctx, func() error {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		// The leaves of deleted entries stay, as tombstones: the log still
		// verifies and audit tells gc from tampering. (The delete trigger
		// then finds them there.)
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO ledger_tombstones (idx, id, hash, gc)
			SELECT pos, id, leaf, 1 FROM ledger WHERE time < ? AND leaf IS NOT NULL`, before); err != nil {
			return err
		}
		r, err := tx.ExecContext(ctx, `DELETE FROM ledger WHERE time < ?`, before)
		if err != nil {
			return err
		}
		if n, err = r.RowsAffected(); err != nil {
			return err
		}
		return tx.Commit()
	})
	if err != nil {
		return 0, wrapStore(s.path, fmt.Errorf("delete ledger entries: %w", err))
	}
	return int(n), nil
}

// Close closes the store, after folding its journal.
func (s *Store) Close() error {
	var err error
	if s.jn != nil {
		err = s.jn.close()
	}
	s.closeFold()
	if s.hasStmt != nil {
		s.hasStmt.Close()
	}
	for _, st := range []*sql.Stmt{s.insertStmt, s.insertOnceStmt, s.sizeStmt} {
		if st != nil {
			st.Close()
		}
	}
	s.enc.Close()
	s.dec.Close()
	return errors.Join(err, s.DB.Close())
}
