package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/retrieve-dev/retrieve/store"
)

var (
	_ ledger.LeafStore  = (*Store)(nil)
	_ ledger.LogScanner = (*Store)(nil)
)

// appendSQL inserts an entry and its leaf in one statement, so an append
// is one round trip and one commit (docs/ledger.md). The position comes
// from ledger_log's one row, whose lock the statement holds until its
// transaction commits: appends of every replica take positions in turn,
// dense and unique. The leaf hash is computed here, in the database, from
// the parts Go made (ledger.LeafHead, the position, ledger.CanonicalTail),
// since only the database knows the position. An entry whose leaf is there
// already (gc deleted it and `store copy` brings it back) keeps its leaf,
// no longer a tombstone, and takes no position. An entry that cites a
// snapshot is inserted only when the snapshot is there, so that a store
// need not ask whether a snapshot it saw is still there before citing it
// (a gc that races the statement looks again: DeleteUnreferencedSnapshots).
// The statement returns how many entries it inserted (0: the snapshot is
// gone). With async, its transaction commits without waiting for the WAL
// flush (synchronous_commit off for this transaction only; docs/ledger.md
// says what that keeps).
func appendSQL(async bool) string {
	tail := `SELECT count(*) FROM e`
	if async {
		tail = `SELECT count(*) FROM e, (SELECT set_config('synchronous_commit', 'off', true)) AS sc`
	}
	return `WITH e AS (
	INSERT INTO ledger (` + entryColumns + `) SELECT $1::text, $2::timestamptz, $3::integer, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text,
		$10::text, $11::text, $12::text, $13::bigint, $14::bytea, $15::bytea, $16::boolean
	WHERE $10 = '' OR EXISTS (SELECT 1 FROM snapshots WHERE hash = $10) RETURNING id
), restored AS (
	UPDATE ledger_leaves SET tombstone = false WHERE id = $1 AND EXISTS (SELECT 1 FROM e)
), pos AS (
	UPDATE ledger_log SET next = next + 1
	WHERE EXISTS (SELECT 1 FROM e) AND NOT EXISTS (SELECT 1 FROM ledger_leaves WHERE id = $1)
	RETURNING next - 1 AS idx
), leaf AS (
	INSERT INTO ledger_leaves (idx, id, hash) SELECT idx, $1, sha256($17::bytea || int8send(idx) || $18::bytea) FROM pos
)
` + tail
}

var (
	// appendEntry is Append's statement: a duplicate id fails it.
	appendEntry      = appendSQL(false)
	appendEntryAsync = appendSQL(true)
)

// batchInput is the table of a batch's entries, from batchArgs' arrays,
// with their order (ord) and the canonical bytes after the position (tail).
const batchInput = `WITH input AS (
	SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::integer[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
		$9::text[], $10::text[], $11::text[], $12::text[], $13::bigint[], $14::bytea[], $15::bytea[], $16::boolean[], $17::bytea[])
		WITH ORDINALITY AS t(id, time, time_ns, op, target, source, reference, hash, source_hash, snapshot, status, code,
			duration_ns, request, result, data_in_snapshot, tail, ord)
)`

// appendBatchSQL inserts a batch of entries and their leaves in one
// statement: the entries as arrays (one per column, in the batch's order),
// one update of ledger_log for the whole batch, the leaves at consecutive
// positions in that order. Any refusal (a duplicate id, a leaf already
// there) fails the whole statement, and a cited snapshot that is gone
// inserts nothing (as in appendSQL): the caller then inserts the batch
// entry by entry.
func appendBatchSQL(async bool) string {
	tail := `SELECT count(*) FROM e`
	if async {
		tail = `SELECT count(*) FROM e, (SELECT set_config('synchronous_commit', 'off', true)) AS sc`
	}
	return batchInput + `, e AS (
	INSERT INTO ledger (` + entryColumns + `) SELECT ` + entryColumns + ` FROM input
	WHERE NOT EXISTS (SELECT 1 FROM input i WHERE i.snapshot <> '' AND NOT EXISTS (SELECT 1 FROM snapshots s WHERE s.hash = i.snapshot))
	ORDER BY ord RETURNING id
), pos AS (
	UPDATE ledger_log SET next = next + (SELECT count(*) FROM input) WHERE EXISTS (SELECT 1 FROM e)
	RETURNING next - (SELECT count(*) FROM input) AS base
), leaf AS (
	INSERT INTO ledger_leaves (idx, id, hash)
	SELECT base + ord - 1, id, sha256($18::bytea || int8send(base + ord - 1) || tail) FROM pos, input
)
` + tail
}

// importBatchSQL is ImportEntries' statement (`store copy`, a bulk copy
// that waits for the flush): the batch as arrays, as appendBatchSQL; an id
// present already inserts nothing, and an entry whose leaf is there
// already (gc deleted it and the copy brings it back) keeps that leaf, no
// longer a tombstone; the others take consecutive positions in the
// batch's order. It returns how many entries it inserted.
const importBatchSQL = batchInput + `, e AS (
	INSERT INTO ledger (` + entryColumns + `) SELECT ` + entryColumns + ` FROM input ORDER BY ord
	ON CONFLICT (id) DO NOTHING RETURNING id
), restored AS (
	UPDATE ledger_leaves SET tombstone = false WHERE id IN (SELECT id FROM e)
), fresh AS (
	SELECT input.id, input.tail, row_number() OVER (ORDER BY input.ord) AS rn FROM input JOIN e ON e.id = input.id
	WHERE NOT EXISTS (SELECT 1 FROM ledger_leaves l WHERE l.id = input.id)
), pos AS (
	UPDATE ledger_log SET next = next + (SELECT count(*) FROM fresh) WHERE EXISTS (SELECT 1 FROM fresh)
	RETURNING next - (SELECT count(*) FROM fresh) AS base
), leaf AS (
	INSERT INTO ledger_leaves (idx, id, hash)
	SELECT base + rn - 1, id, sha256($18::bytea || int8send(base + rn - 1) || tail) FROM pos, fresh
)
SELECT count(*) FROM e`

var (
	appendBatchSync  = appendBatchSQL(false)
	appendBatchAsync = appendBatchSQL(true)
)

// batchArgs are appendBatchSQL's parameters for entries given as
// appendArgs.
func batchArgs(rows [][]any) []any {
	n := len(rows)
	str := func(i int) []string {
		out := make([]string, n)
		for j, r := range rows {
			out[j] = r[i].(string)
		}
		return out
	}
	blob := func(i int) [][]byte {
		out := make([][]byte, n)
		for j, r := range rows {
			out[j] = r[i].([]byte)
		}
		return out
	}
	times, ns, durs, flags := make([]time.Time, n), make([]int32, n), make([]int64, n), make([]bool, n)
	for j, r := range rows {
		times[j], ns[j], durs[j], flags[j] = r[1].(time.Time), r[2].(int32), r[12].(int64), r[15].(bool)
	}
	return []any{str(0), times, ns, str(3), str(4), str(5), str(6), str(7), str(8), str(9), str(10), str(11),
		durs, blob(13), blob(14), flags, blob(17), ledger.LeafHead()}
}

// appendStmt is the statement Append uses on this store.
func (db *DB) appendStmt() string {
	if db.syncAppend {
		return appendEntry
	}
	return appendEntryAsync
}

// appendBatchStmt is the statement a batch of appends uses on this store.
func (db *DB) appendBatchStmt() string {
	if db.syncAppend {
		return appendBatchSync
	}
	return appendBatchAsync
}

// appendArgs are appendSQL's parameters for e.
func appendArgs(e *store.Entry) []any {
	return append(entryArgs(e), ledger.LeafHead(), ledger.CanonicalTail(e))
}

// buildLeaves gives the entries of a store migrated to version 4 their
// leaves, in id (UUIDv7, time) order, and sets the next position.
func buildLeaves(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, `SELECT `+entryColumns+` FROM ledger ORDER BY id`)
	if err != nil {
		return err
	}
	var leaves [][]any
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			rows.Close()
			return err
		}
		i := int64(len(leaves))
		h := ledger.LeafHash(i, e)
		leaves = append(leaves, []any{i, e.ID, h[:]})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"ledger_leaves"}, []string{"idx", "id", "hash"}, pgx.CopyFromRows(leaves)); err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO ledger_log (next) VALUES ($1)`, len(leaves))
	return err
}

// Leaves implements ledger.LeafStore.
func (s *Store) Leaves(ctx context.Context) ([]ledger.Leaf, error) {
	var out []ledger.Leaf
	_, err := s.retry(ctx, func() error {
		out = out[:0]
		rows, err := s.pool.Query(ctx, `SELECT idx, id, hash, tombstone FROM ledger_leaves ORDER BY idx`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var l ledger.Leaf
			var h []byte
			if err := rows.Scan(&l.Index, &l.ID, &h, &l.Tombstone); err != nil {
				return err
			}
			copy(l.Hash[:], h) // a hash of another length shows as altered
			out = append(out, l)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, wrap(s.where, "cannot read the log", err)
	}
	return out, nil
}

// logEntryColumns are entryColumns of the entry joined to a leaf (e),
// which may be absent: NULLs read as the zero entry, and has_entry says.
const logEntryColumns = `e.id IS NOT NULL, coalesce(e.id, ''), coalesce(e.time, 'epoch'), coalesce(e.time_ns, 0),
	coalesce(e.op, ''), coalesce(e.target, ''), coalesce(e.source, ''), coalesce(e.reference, ''), coalesce(e.hash, ''),
	coalesce(e.source_hash, ''), coalesce(e.snapshot, ''), coalesce(e.status, ''), coalesce(e.code, ''),
	coalesce(e.duration_ns, 0), coalesce(e.request, ''), coalesce(e.result, ''), coalesce(e.data_in_snapshot, false)`

// ScanLog implements ledger.LogScanner: both reads in one repeatable-read
// transaction, so that appends by other replicas meanwhile are not seen
// as entries without a leaf.
func (s *Store) ScanLog(ctx context.Context, leaf func(ledger.Leaf, *store.Entry) error, entry func(*store.Entry) error) error {
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT l.idx, l.id, l.hash, l.tombstone, `+logEntryColumns+`
			FROM ledger_leaves l LEFT JOIN ledger e ON e.id = l.id ORDER BY l.idx`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var l ledger.Leaf
			var h []byte
			var has bool
			var e store.Entry
			var t time.Time
			var ns int32
			var dur int64
			if err := rows.Scan(&l.Index, &l.ID, &h, &l.Tombstone, &has, &e.ID, &t, &ns, &e.Op, &e.Target, &e.Source, &e.Reference, &e.Hash,
				&e.SourceHash, &e.Snapshot, &e.Status, &e.Code, &dur, &e.Request, &e.Result, &e.DataInSnapshot); err != nil {
				return err
			}
			copy(l.Hash[:], h)
			var ep *store.Entry
			if has {
				e.Time, e.Duration = t.UTC().Add(time.Duration(ns)), time.Duration(dur)
				ep = &e
			}
			if err := leaf(l, ep); err != nil {
				return err
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		return eachEntry(ctx, tx, `SELECT `+entryColumns+` FROM ledger e
			WHERE NOT EXISTS (SELECT 1 FROM ledger_leaves l WHERE l.id = e.id) ORDER BY id`, entry)
	})
	if err != nil {
		return wrap(s.where, "cannot read the log", err)
	}
	return nil
}
