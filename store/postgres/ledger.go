package postgres

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/klauspost/compress/zstd"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/internal/sqlcommon"
)

// chunkSize is the size of the uncompressed pieces a snapshot is stored in,
// so that no read or write holds a whole large snapshot in memory.
const chunkSize = 4 << 20

// Store is the PostgreSQL implementation of store.Store.
type Store struct {
	*DB
	enc  *zstd.Encoder
	dec  *zstd.Decoder
	app  appender
	seen seenSnapshots

	closeOnce sync.Once
}

var _ store.Store = (*Store)(nil)

// OpenStore opens the store at rawURL and applies the migrations.
func OpenStore(ctx context.Context, rawURL string) (*Store, error) {
	return OpenStoreWith(ctx, rawURL, Options{})
}

// OpenStoreWith is OpenStore with options.
func OpenStoreWith(ctx context.Context, rawURL string, opts Options) (*Store, error) {
	db, err := Open(ctx, rawURL, opts)
	if err != nil {
		return nil, err
	}
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	dec, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	return &Store{DB: db, enc: enc, dec: dec}, nil
}

// Shared reports true: a PostgreSQL store is read by a team
// (store.Shared).
func (s *Store) Shared() bool { return true }

// Close closes the store.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.stopAppender()
		s.enc.Close()
		s.dec.Close()
		s.DB.Close()
	})
	return nil
}

// dialect is how PostgreSQL writes parameters and ledger times (a
// timestamptz holds microseconds).
var dialect = sqlcommon.Dialect{
	Param: func(n int) string { return "$" + strconv.Itoa(n) },
	Time:  func(t time.Time) any { return t.UTC().Truncate(time.Microsecond) },
}

const entryColumns = `id, time, time_ns, op, target, source, reference, hash, source_hash, snapshot, status, code, duration_ns, request, result, data_in_snapshot`

func entryArgs(e *store.Entry) []any {
	t := e.Time.UTC()
	return []any{e.ID, t, int32(t.Nanosecond() % 1000), e.Op, e.Target, e.Source, e.Reference, e.Hash, e.SourceHash, e.Snapshot,
		e.Status, e.Code, int64(e.Duration), nonNil(e.Request), nonNil(e.Result), e.DataInSnapshot}
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// Append implements store.Ledger. Concurrent appends are committed
// together (see append.go).
func (s *Store) Append(ctx context.Context, e *store.Entry) error {
	if err := s.enqueue(ctx, appendArgs(e)); err != nil {
		return err
	}
	if e.Snapshot != "" {
		s.seen.add(e.Snapshot)
	}
	return nil
}

// ImportEntries inserts entries whose id is not present yet and returns how
// many it inserted; `retrieve store copy` uses it to resume.
func (s *Store) ImportEntries(ctx context.Context, es []*store.Entry) (int, error) {
	// In statements of importChunk entries (a larger array spills the
	// statement's working table to disk), sent together: one round trip,
	// one implicit transaction.
	b := &pgx.Batch{}
	for start := 0; start < len(es); start += importChunk {
		chunk := es[start:min(start+importChunk, len(es))]
		rows := make([][]any, len(chunk))
		for i, e := range chunk {
			rows[i] = appendArgs(e)
		}
		b.Queue(importBatchSQL, batchArgs(rows)...)
	}
	res := s.pool.SendBatch(ctx, b)
	defer res.Close()
	n := 0
	for range b.Len() {
		var k int
		if err := res.QueryRow().Scan(&k); err != nil {
			return 0, wrap(s.where, "cannot import ledger entries", err)
		}
		n += k
	}
	if err := res.Close(); err != nil {
		return 0, wrap(s.where, "cannot import ledger entries", err)
	}
	return n, nil
}

// importChunk is how many entries one import statement takes: about 1 MiB
// of arrays for entries of a kilobyte, within PostgreSQL's default
// work_mem.
const importChunk = 256

func scanEntry(row pgx.Row) (*store.Entry, error) {
	var e store.Entry
	var t time.Time
	var ns int32
	var dur int64
	if err := row.Scan(&e.ID, &t, &ns, &e.Op, &e.Target, &e.Source, &e.Reference, &e.Hash, &e.SourceHash, &e.Snapshot, &e.Status, &e.Code, &dur, &e.Request, &e.Result, &e.DataInSnapshot); err != nil {
		return nil, err
	}
	e.Time = t.UTC().Add(time.Duration(ns))
	e.Duration = time.Duration(dur)
	return &e, nil
}

// Entry implements store.Ledger.
func (s *Store) Entry(ctx context.Context, id string) (*store.Entry, error) {
	var e *store.Entry
	_, err := s.retry(ctx, func() (err error) {
		e, err = scanEntry(s.pool.QueryRow(ctx, `SELECT `+entryColumns+` FROM ledger WHERE id = $1`, id))
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, retrieve.Errorf(retrieve.CodeNotFound, "no ledger entry %s", id).
			WithHint("list entries with `retrieve log`")
	}
	if err != nil {
		return nil, wrap(s.where, "cannot read a ledger entry", err)
	}
	return e, nil
}

// Entries implements store.Ledger.
func (s *Store) Entries(ctx context.Context, f store.Filter) ([]*store.Entry, error) {
	q, args := sqlcommon.EntriesQuery(dialect, entryColumns, f)
	return s.query(ctx, q, args...)
}

// EntriesAfter returns up to limit entries whose id sorts after afterID,
// oldest id first; `retrieve store copy` walks the ledger with it.
func (s *Store) EntriesAfter(ctx context.Context, afterID string, limit int) ([]*store.Entry, error) {
	return s.query(ctx, `SELECT `+entryColumns+` FROM ledger WHERE id > $1 ORDER BY id LIMIT $2`, afterID, limit)
}

func (s *Store) query(ctx context.Context, q string, args ...any) ([]*store.Entry, error) {
	var out []*store.Entry
	_, err := s.retry(ctx, func() error {
		out = nil
		return eachEntry(ctx, s.pool, q, func(e *store.Entry) error { out = append(out, e); return nil }, args...)
	})
	if err != nil {
		return nil, wrap(s.where, "cannot list the ledger", err)
	}
	return out, nil
}

// eachEntry calls fn with each entry (entryColumns) that q returns.
func eachEntry(ctx context.Context, db interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, q string, fn func(*store.Entry) error, args ...any) error {
	rows, err := db.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}

// DeleteEntriesBefore implements store.Ledger.
func (s *Store) DeleteEntriesBefore(ctx context.Context, t time.Time) (int, error) {
	// The leaves of deleted entries stay, as tombstones: the log still
	// verifies and audit tells gc from tampering.
	var n int
	err := s.pool.QueryRow(ctx, `WITH d AS (DELETE FROM ledger WHERE time < $1 RETURNING id),
		t AS (UPDATE ledger_leaves SET tombstone = true WHERE id IN (SELECT id FROM d))
		SELECT count(*) FROM d`, t.UTC()).Scan(&n)
	if err != nil {
		return 0, wrap(s.where, "cannot delete ledger entries", err)
	}
	return n, nil
}

// HasSnapshot implements store.Snapshots. A snapshot this store found,
// stored or cited in an entry is answered from memory, as long as no gc
// ran here since: a recorded read asks twice (before reading and before
// appending), and each round trip was a third of a recorded read. A gc in
// another replica may drop it all the same; the append that cites it then
// finds it gone in the same statement (appendSQL), is refused with
// store.ErrSnapshotGone and this store forgets what it saw, so that no
// entry ever cites a snapshot that is not there.
func (s *Store) HasSnapshot(ctx context.Context, hash string) (bool, error) {
	if s.seen.has(hash) {
		return true, nil
	}
	var ok bool
	if _, err := s.retry(ctx, func() error {
		return s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM snapshots WHERE hash = $1)`, hash).Scan(&ok)
	}); err != nil {
		return false, wrap(s.where, "cannot look up a snapshot", err)
	}
	if ok {
		s.seen.add(hash)
	}
	return ok, nil
}

// PutSnapshot implements store.Snapshots. The bytes are compressed with
// zstd in 4 MiB chunks and written in one transaction after their sha256 is
// checked, so a snapshot is either whole and correct or absent.
//
// Replicas that store the same bytes at once are de-duplicated by the
// primary key: the row is claimed first with INSERT … ON CONFLICT DO
// NOTHING, which waits for a concurrent writer of the same hash to commit
// or roll back; the loser finds the row, discards its bytes and succeeds.
func (s *Store) PutSnapshot(ctx context.Context, hash string, r io.Reader) error {
	if !strings.HasPrefix(hash, "sha256:") || len(hash) != len("sha256:")+64 {
		return retrieve.Errorf(retrieve.CodeInputValidation, "snapshot hash %q is not sha256:<hex>", hash)
	}
	if ok, err := s.HasSnapshot(ctx, hash); err != nil {
		return err
	} else if ok {
		_, _ = io.Copy(io.Discard, r)
		return nil
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO snapshots (hash, size, stored_size) VALUES ($1, 0, 0) ON CONFLICT (hash) DO NOTHING`, hash)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 { // another writer stored it meanwhile
			_, _ = io.Copy(io.Discard, r)
			return nil
		}
		h := sha256.New()
		buf := make([]byte, chunkSize)
		var size, stored int64
		for seq := 0; ; seq++ {
			n, rerr := io.ReadFull(r, buf)
			if n > 0 || seq == 0 {
				h.Write(buf[:n])
				size += int64(n)
				c := s.enc.EncodeAll(buf[:n], []byte{})
				stored += int64(len(c))
				if _, err := tx.Exec(ctx, `INSERT INTO snapshot_chunks (hash, seq, data) VALUES ($1, $2, $3)`, hash, seq, c); err != nil {
					return err
				}
			}
			if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
				break
			}
			if rerr != nil {
				return retrieve.Errorf(retrieve.CodeInternal, "cannot read the snapshot bytes").WithErr(rerr)
			}
		}
		if got := "sha256:" + hex.EncodeToString(h.Sum(nil)); got != hash {
			return retrieve.Errorf(retrieve.CodeInputValidation, "snapshot bytes hash to %s, not %s", got, hash)
		}
		_, err = tx.Exec(ctx, `UPDATE snapshots SET size = $1, stored_size = $2 WHERE hash = $3`, size, stored, hash)
		return err
	})
	if err != nil {
		return wrap(s.where, "cannot store a snapshot", err)
	}
	s.seen.add(hash)
	return nil
}

// OpenSnapshot implements store.Snapshots. Chunks are read one at a time,
// so a large snapshot is streamed, never loaded whole. The bytes are
// hashed on the way out: a snapshot that lost a chunk (dropped by a
// concurrent gc while it was read) or was altered in the database ends in
// an error, never in silently short or wrong bytes.
func (s *Store) OpenSnapshot(ctx context.Context, hash string) (io.ReadCloser, error) {
	var size int64
	_, err := s.retry(ctx, func() error {
		return s.pool.QueryRow(ctx, `SELECT size FROM snapshots WHERE hash = $1`, hash).Scan(&size)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, retrieve.Errorf(retrieve.CodeNotFound, "no snapshot %s", hash).
			WithHint("snapshots are kept for recorded successful retrievals; `retrieve gc` may have dropped an unreferenced one")
	}
	if err != nil {
		return nil, wrap(s.where, "cannot look up a snapshot", err)
	}
	return &snapshotReader{ctx: ctx, s: s, hash: hash, size: size, h: sha256.New()}, nil
}

type snapshotReader struct {
	ctx  context.Context
	s    *Store
	hash string
	size int64
	read int64
	h    hash.Hash
	seq  int
	cur  *bytes.Reader
	done bool
}

func (r *snapshotReader) Read(p []byte) (int, error) {
	for {
		if r.cur != nil && r.cur.Len() > 0 {
			n, err := r.cur.Read(p)
			r.h.Write(p[:n])
			r.read += int64(n)
			return n, err
		}
		if r.done {
			return 0, io.EOF
		}
		var c []byte
		_, err := r.s.retry(r.ctx, func() error {
			return r.s.pool.QueryRow(r.ctx, `SELECT data FROM snapshot_chunks WHERE hash = $1 AND seq = $2`, r.hash, r.seq).Scan(&c)
		})
		if errors.Is(err, pgx.ErrNoRows) {
			if got := "sha256:" + hex.EncodeToString(r.h.Sum(nil)); r.read != r.size || got != r.hash {
				return 0, retrieve.Errorf(retrieve.CodeStoreUnavailable, "snapshot %s ended after %d of its %d bytes, or its bytes changed", r.hash, r.read, r.size).
					WithHint("it was probably dropped by `retrieve gc` while it was read; try again")
			}
			r.done = true
			continue
		}
		if err != nil {
			return 0, wrap(r.s.where, "cannot read a snapshot", err)
		}
		d, err := r.s.dec.DecodeAll(c, nil)
		if err != nil {
			return 0, retrieve.Errorf(retrieve.CodeInternal, "snapshot %s is corrupt", r.hash).WithErr(err)
		}
		r.seq++
		r.cur = bytes.NewReader(d)
	}
}

func (r *snapshotReader) Close() error { return nil }

// SnapshotsAfter returns up to limit snapshot hashes that sort after
// afterHash, in order; `retrieve store copy` walks the snapshots with it.
func (s *Store) SnapshotsAfter(ctx context.Context, afterHash string, limit int) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT hash FROM snapshots WHERE hash > $1 ORDER BY hash LIMIT $2`, afterHash, limit)
	if err != nil {
		return nil, wrap(s.where, "cannot list snapshots", err)
	}
	hs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, wrap(s.where, "cannot list snapshots", err)
	}
	return hs, nil
}

// Counts returns the number of ledger entries and snapshots and the
// stored (compressed) bytes of the snapshots.
func (s *Store) Counts(ctx context.Context) (entries, snapshots, storedBytes int64, err error) {
	err = s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM ledger), (SELECT count(*) FROM snapshots), (SELECT coalesce(sum(stored_size), 0) FROM snapshots)`).
		Scan(&entries, &snapshots, &storedBytes)
	if err != nil {
		err = wrap(s.where, "cannot count the store", err)
	}
	return
}

// DeleteUnreferencedSnapshots implements store.Snapshots. An append that
// cites a snapshot inserts its entry only when the snapshot is there
// (appendSQL), but one that runs while this DELETE does sees the row,
// which the DELETE has not committed yet, and the DELETE does not see its
// entry. So the same transaction then takes a SHARE lock on ledger, which
// waits for the appends under way to commit and holds new ones back (they
// then run after the gc, and find the snapshots it dropped gone), and
// looks again for entries that cite a dropped snapshot: if one was
// committed meanwhile, the gc is rolled back and tried again. Appends wait
// for that second look only, an index probe per dropped snapshot.
func (s *Store) DeleteUnreferencedSnapshots(ctx context.Context) (int, error) {
	s.seen.clear()
	for range gcAttempts {
		var n int
		raced := false
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, `DELETE FROM snapshots s WHERE NOT EXISTS (SELECT 1 FROM ledger l WHERE l.snapshot = s.hash) RETURNING hash`)
			if err != nil {
				return err
			}
			dropped, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil || len(dropped) == 0 {
				return err
			}
			n = len(dropped)
			if _, err := tx.Exec(ctx, `LOCK TABLE ledger IN SHARE MODE`); err != nil {
				return err
			}
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM ledger WHERE snapshot = ANY($1))`, dropped).Scan(&raced); err != nil {
				return err
			}
			if raced {
				return errGCRaced
			}
			return nil
		})
		if errors.Is(err, errGCRaced) {
			continue
		}
		if err != nil {
			return 0, wrap(s.where, "cannot drop snapshots", err)
		}
		return n, nil
	}
	return 0, retrieve.Errorf(retrieve.CodeStoreUnavailable, "cannot drop snapshots: entries citing them were appended during each of %d attempts", gcAttempts).
		WithHint("run `retrieve gc` again when the store is less busy")
}

// gcAttempts is how many times DeleteUnreferencedSnapshots starts over
// when appends cite a snapshot it was dropping.
const gcAttempts = 5

var errGCRaced = errors.New("an entry cites a snapshot the gc dropped")

// seenSnapshots remembers up to seenMax snapshots found present.
type seenSnapshots struct {
	mu sync.Mutex
	at map[string]struct{}
}

const seenMax = 16384

func (c *seenSnapshots) has(hash string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.at[hash]
	return ok
}

func (c *seenSnapshots) add(hash string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at == nil || len(c.at) >= seenMax {
		c.at = make(map[string]struct{})
	}
	c.at[hash] = struct{}{}
}

func (c *seenSnapshots) clear() {
	c.mu.Lock()
	c.at = nil
	c.mu.Unlock()
}
