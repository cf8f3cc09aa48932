package sqlite

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
)

// Snapshots are content-addressed by the sha256 of their bytes. Small ones
// (up to inlineMax) live in the database, in snapshot_chunks, compressed
// when that pays; larger ones are files beside the database, as git's loose
// objects and restic's packs are, with the database holding only their
// index row: <db>-objects/sha256/ab/cdef… (the rest of the hex). A file is
// written once, while the source is read (store.SnapshotStager), into
// <db>-objects/tmp/ and renamed to its name when its hash is known, so a
// snapshot file is whole or absent; its index row is written after it.
// Large files are stored raw: compressing 1 GiB costs more time than
// reading and hashing it, and the ledger promises disk speed.
const inlineMax = 1 << 20

// Storage kinds of the snapshots table.
const (
	storageZstd = "zstd" // zstd-compressed 4 MiB chunks in snapshot_chunks
	storageRaw  = "raw"  // one uncompressed chunk in snapshot_chunks
	storageFile = "file" // a raw file in the objects directory
)

var (
	_ store.SnapshotStager = (*Store)(nil)
	_ store.SharedWriter   = (*stage)(nil)
	_ store.StageSizer     = (*stage)(nil)
)

// objectsDir is the directory of the snapshot files of the store.
func (s *Store) objectsDir() string { return s.path + "-objects" }

func (s *Store) objectPath(hash string) string {
	hex := strings.TrimPrefix(hash, "sha256:")
	return filepath.Join(s.objectsDir(), "sha256", hex[:2], hex[2:])
}

func validHash(hash string) error {
	hex := strings.TrimPrefix(hash, "sha256:")
	if len(hex) != 64 || !strings.HasPrefix(hash, "sha256:") || strings.Trim(hex, "0123456789abcdef") != "" {
		return retrieve.Errorf(retrieve.CodeInputValidation, "snapshot hash %q is not sha256:<64 hex digits>", hash)
	}
	return nil
}

// HasSnapshot implements store.Snapshots. A file snapshot whose file is
// gone does not count.
func (s *Store) HasSnapshot(ctx context.Context, hash string) (bool, error) {
	if s.jn != nil && s.jn.hasSnapshot(hash) {
		return true, nil
	}
	var storage string
	err := s.db.QueryRowContext(ctx, `SELECT storage FROM snapshots WHERE hash = ?`, hash).Scan(&storage)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, wrapStore(s.path, fmt.Errorf("look up snapshot: %w", err))
	}
	if storage == storageFile && validHash(hash) == nil {
		if _, err := os.Stat(s.objectPath(hash)); err != nil {
			return false, nil
		}
	}
	return true, nil
}

// StageSnapshot implements store.SnapshotStager.
func (s *Store) StageSnapshot(ctx context.Context) (store.SnapshotStage, error) {
	return &stage{s: s}, nil
}

// stage keeps the bytes of a snapshot being read: in memory up to
// inlineMax, then in a new file of the objects directory, written on its
// own goroutine (objectfile.go).
type stage struct {
	s    *Store
	buf  []byte
	w    *objectWriter
	n    int64
	err  error
	done bool
}

func (st *stage) Write(p []byte) (int, error) {
	if st.err != nil || st.done {
		return len(p), nil
	}
	st.n += int64(len(p))
	if st.w == nil && len(st.buf)+len(p) <= inlineMax {
		st.buf = append(st.buf, p...)
		return len(p), nil
	}
	if st.w == nil {
		dir := filepath.Join(st.s.objectsDir(), "tmp")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			st.err = err
			return len(p), nil
		}
		ensureIgnored(st.s.objectsDir())
		w, err := newObjectWriter(dir)
		if err != nil {
			st.err = err
			return len(p), nil
		}
		st.w = w
		w.Write(st.buf)
		st.buf = nil
	}
	return st.w.Write(p)
}

// Expect implements store.StageSizer: a snapshot that will be kept in
// memory gets its buffer whole, a large one from stageBufs.
func (st *stage) Expect(size int64) {
	switch {
	case st.buf != nil || st.w != nil || size <= 0 || size > inlineMax:
	case size > pooledMin:
		st.buf = (*stageBufs.Get().(*[]byte))[:0]
	default:
		st.buf = make([]byte, 0, size)
	}
}

// stageBufs are the buffers of staged snapshots larger than pooledMin, of
// inlineMax bytes each, used again once a snapshot is stored or dropped:
// the reads of a retrieve_many of fifty 1 MiB files stage 50 MiB, but
// hold at most a few buffers at once.
var stageBufs = sync.Pool{New: func() any { b := make([]byte, 0, inlineMax); return &b }}

const pooledMin = 64 << 10

// WriteShared implements store.SharedWriter: once the bytes go to a file,
// a chunk the file can be written from as it is (aligned, see
// objectfile.go) is queued without a copy.
func (st *stage) WriteShared(b []byte, release func()) {
	if st.w == nil || st.err != nil || st.done {
		st.Write(b)
		release()
		return
	}
	st.n += int64(len(b))
	st.w.WriteShared(b, release)
}

// Commit implements store.SnapshotStage.
func (st *stage) Commit(ctx context.Context, hash string) error {
	if st.done {
		return nil
	}
	defer st.Abort()
	if err := validHash(hash); err != nil {
		return err
	}
	if st.err != nil {
		return wrapStore(st.s.path, fmt.Errorf("store snapshot: %w", st.err))
	}
	// Most snapshots are stored already (the same file read again): this
	// process stored or saw a small one a moment ago, or a read, which
	// takes no write lock, tells. (A file snapshot is always looked up: its
	// file may have gone.)
	small := st.w == nil
	if small && st.s.seenRecently(hash) {
		return nil
	}
	if small && st.s.jn != nil && len(st.buf) <= journalSnapshotMax {
		// In serve, a small snapshot's bytes go to the ledger journal with
		// the entry that follows them and are committed with it, without a
		// look-up first: the fold drops bytes already stored (journal.go).
		if handled, err := st.s.jn.appendSnapshot(hash, st.buf); handled {
			if err == nil {
				st.s.seen(hash)
			}
			return err
		}
	}
	if has, err := st.s.HasSnapshot(ctx, hash); err != nil || has {
		if has && small {
			st.s.seen(hash)
		}
		return err
	}
	if small {
		err := st.s.putInline(ctx, hash, st.buf)
		if err == nil {
			st.s.seen(hash)
		}
		return err
	}
	if err := st.w.finish(); err != nil {
		return wrapStore(st.s.path, fmt.Errorf("store snapshot: %w", err))
	}
	final := st.s.objectPath(hash)
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return wrapStore(st.s.path, fmt.Errorf("store snapshot: %w", err))
	}
	if err := os.Rename(st.w.name, final); err != nil {
		return wrapStore(st.s.path, fmt.Errorf("store snapshot: %w", err))
	}
	st.w = nil
	return st.s.index(ctx, hash, st.n, st.n, storageFile)
}

// Abort implements store.SnapshotStage.
func (st *stage) Abort() {
	st.done = true
	if cap(st.buf) == inlineMax {
		b := st.buf[:0]
		stageBufs.Put(&b) // Commit is over: nothing reads it any more
	}
	st.buf = nil
	if st.w != nil {
		st.w.abort()
		st.w = nil
	}
}

// seenTTL is how long a snapshot this process stored or found is taken as
// stored without asking the database again. Only `retrieve gc` removes
// snapshots, and only those no entry references; a retrieval that relies
// on an answer this fresh races with it no more than one that asks.
const seenTTL = 10 * time.Second

func (s *Store) seen(hash string) { s.seenAt.Store(hash, time.Now()) }

func (s *Store) seenRecently(hash string) bool {
	v, ok := s.seenAt.Load(hash)
	if !ok {
		return false
	}
	if time.Since(v.(time.Time)) > seenTTL {
		s.seenAt.Delete(hash)
		return false
	}
	return true
}

// index writes the index row of a snapshot.
func (s *Store) index(ctx context.Context, hash string, size, stored int64, storage string) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	err := retry(ctx, func() error {
		_, err := s.db.ExecContext(ctx, `INSERT OR IGNORE INTO snapshots (hash, size, stored_size, created_at, storage) VALUES (?, ?, ?, ?, ?)`,
			hash, size, stored, time.Now().UTC().Format(timeFormat), storage)
		return err
	})
	if err != nil {
		return wrapStore(s.path, fmt.Errorf("store snapshot: %w", err))
	}
	return nil
}

// putInline stores a small snapshot in the database, compressed when that
// saves at least a tenth.
func (s *Store) putInline(ctx context.Context, hash string, b []byte) error {
	storage, data := s.inlineForm(b)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	err := retry(ctx, func() error {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := insertInline(ctx, tx, hash, len(b), storage, data); err != nil {
			return err
		}
		return tx.Commit()
	})
	if err != nil {
		return wrapStore(s.path, fmt.Errorf("store snapshot: %w", err))
	}
	return nil
}

// inlineForm is how a small snapshot is kept: zstd when that saves at
// least a tenth, else raw.
func (s *Store) inlineForm(b []byte) (storage string, data []byte) {
	storage, data = storageRaw, b
	if len(b) >= 512 {
		if c := s.enc.EncodeAll(b, nil); len(c) < len(b)-len(b)/10 {
			storage, data = storageZstd, c
		}
	}
	if data == nil {
		data = []byte{}
	}
	return storage, data
}

// insertInline writes the rows of a small snapshot in tx, unless it is
// stored already.
func insertInline(ctx context.Context, tx *sql.Tx, hash string, size int, storage string, data []byte) error {
	p, err := prepareInline(ctx, tx)
	if err != nil {
		return err
	}
	defer p.close()
	return p.insert(ctx, hash, size, storage, data)
}

// inlineStmts store small snapshots in one transaction, prepared once for
// all of them (a fold stores many).
type inlineStmts struct {
	tx               *sql.Tx
	has, snap, chunk *sql.Stmt // has: prepared on first use
}

func prepareInline(ctx context.Context, tx *sql.Tx) (*inlineStmts, error) {
	p := inlineStmts{tx: tx}
	var err error
	for _, q := range []struct {
		st  **sql.Stmt
		sql string
	}{
		{&p.snap, `INSERT OR IGNORE INTO snapshots (hash, size, stored_size, created_at, storage) VALUES (?, ?, ?, ?, ?)`},
		{&p.chunk, `INSERT INTO snapshot_chunks (hash, seq, data) VALUES (?, 0, ?)`},
	} {
		if *q.st, err = tx.PrepareContext(ctx, q.sql); err != nil {
			p.close()
			return nil, err
		}
	}
	return &p, nil
}

func (p *inlineStmts) close() {
	for _, st := range []*sql.Stmt{p.has, p.snap, p.chunk} {
		if st != nil {
			st.Close()
		}
	}
}

// stored reports whether hash is stored already.
func (p *inlineStmts) stored(ctx context.Context, hash string) (bool, error) {
	if p.has == nil {
		var err error
		if p.has, err = p.tx.PrepareContext(ctx, `SELECT 1 FROM snapshots WHERE hash = ?`); err != nil {
			return false, err
		}
	}
	var one int
	err := p.has.QueryRowContext(ctx, hash).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

func (p *inlineStmts) insert(ctx context.Context, hash string, size int, storage string, data []byte) error {
	r, err := p.snap.ExecContext(ctx, hash, size, len(data), time.Now().UTC().Format(timeFormat), storage)
	if err != nil {
		return err
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return nil // stored already
	}
	_, err = p.chunk.ExecContext(ctx, hash, data)
	return err
}

// ensureIgnored keeps the objects directory out of git, whatever the
// workspace's .gitignore says.
func ensureIgnored(dir string) {
	gi := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(gi); errors.Is(err, fs.ErrNotExist) {
		_ = os.WriteFile(gi, []byte("*\n"), 0o644)
	}
}

// PutSnapshot implements store.Snapshots: the bytes are staged as they are
// read, hashed on the way in, and committed only when they match hash, so a
// snapshot is either whole and correct or absent.
func (s *Store) PutSnapshot(ctx context.Context, hash string, r io.Reader) error {
	if err := validHash(hash); err != nil {
		return err
	}
	if has, err := s.HasSnapshot(ctx, hash); err != nil || has {
		if err == nil {
			_, _ = io.Copy(io.Discard, r)
		}
		return err
	}
	st := &stage{s: s}
	defer st.Abort()
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(h, st), r); err != nil {
		return fmt.Errorf("read snapshot bytes: %w", err)
	}
	if got := "sha256:" + hex.EncodeToString(h.Sum(nil)); got != hash {
		return retrieve.Errorf(retrieve.CodeInputValidation, "snapshot bytes hash to %s, not %s", got, hash)
	}
	return st.Commit(ctx, hash)
}

// OpenSnapshot implements store.Snapshots. The bytes are hashed again on
// the way out: a damaged snapshot ends in an error, never in other bytes.
func (s *Store) OpenSnapshot(ctx context.Context, hash string) (io.ReadCloser, error) {
	if err := s.sync(ctx); err != nil { // a small one may wait in a journal
		return nil, err
	}
	var storage string
	err := s.db.QueryRowContext(ctx, `SELECT storage FROM snapshots WHERE hash = ?`, hash).Scan(&storage)
	notFound := retrieve.Errorf(retrieve.CodeNotFound, "no snapshot %s", hash).
		WithHint("snapshots are kept for recorded successful retrievals; `retrieve gc` may have dropped an unreferenced one")
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound
	}
	if err != nil {
		return nil, wrapStore(s.path, fmt.Errorf("read snapshot: %w", err))
	}
	if storage != storageFile {
		return &checkedReader{r: &snapshotReader{ctx: ctx, s: s, hash: hash, zstd: storage == storageZstd}, h: sha256.New(), hash: hash}, nil
	}
	if err := validHash(hash); err != nil {
		return nil, err
	}
	f, err := os.Open(s.objectPath(hash))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, notFound
	}
	if err != nil {
		return nil, wrapStore(s.path, fmt.Errorf("read snapshot: %w", err))
	}
	return &checkedReader{r: f, c: f, h: sha256.New(), hash: hash}, nil
}

// checkedReader hashes what it reads and fails at the end when the bytes
// are not those of hash.
type checkedReader struct {
	r    io.Reader
	c    io.Closer
	h    hash.Hash
	hash string
}

func (r *checkedReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.h.Write(p[:n])
	if err == io.EOF {
		if got := "sha256:" + hex.EncodeToString(r.h.Sum(nil)); got != r.hash {
			return n, retrieve.Errorf(retrieve.CodeStoreUnavailable, "snapshot %s is damaged: its bytes hash to %s", r.hash, got).
				WithHint("the snapshot cannot prove the citation any more; re-retrieve the source")
		}
	}
	return n, err
}

func (r *checkedReader) Close() error {
	if r.c != nil {
		return r.c.Close()
	}
	return nil
}

// snapshotReader reads the chunks of a snapshot held in the database, one
// at a time.
type snapshotReader struct {
	ctx  context.Context
	s    *Store
	hash string
	zstd bool
	seq  int
	cur  *bytes.Reader
	done bool
}

func (r *snapshotReader) Read(p []byte) (int, error) {
	for {
		if r.cur != nil && r.cur.Len() > 0 {
			return r.cur.Read(p)
		}
		if r.done {
			return 0, io.EOF
		}
		var c []byte
		err := r.s.db.QueryRowContext(r.ctx, `SELECT data FROM snapshot_chunks WHERE hash = ? AND seq = ?`, r.hash, r.seq).Scan(&c)
		if errors.Is(err, sql.ErrNoRows) {
			r.done = true
			continue
		}
		if err != nil {
			return 0, wrapStore(r.s.path, fmt.Errorf("read snapshot: %w", err))
		}
		if r.zstd {
			if c, err = r.s.dec.DecodeAll(c, nil); err != nil {
				return 0, retrieve.Errorf(retrieve.CodeInternal, "snapshot %s is corrupt", r.hash).WithErr(err)
			}
		}
		r.seq++
		r.cur = bytes.NewReader(c)
	}
}

// DeleteUnreferencedSnapshots implements store.Snapshots: the index rows
// go first, then the files, and staging files older than a day (left by a
// process that was killed) with them.
func (s *Store) DeleteUnreferencedSnapshots(ctx context.Context) (int, error) {
	if err := s.sync(ctx); err != nil {
		return 0, err
	}
	var n int64
	var files []string
	err := retry(ctx, func() error {
		files = files[:0]
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		rows, err := tx.QueryContext(ctx, `SELECT hash FROM snapshots WHERE storage = 'file' AND hash NOT IN (SELECT snapshot FROM ledger WHERE snapshot <> '')`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var h string
			if err := rows.Scan(&h); err != nil {
				rows.Close()
				return err
			}
			files = append(files, h)
		}
		rows.Close()
		res, err := tx.ExecContext(ctx, `DELETE FROM snapshots WHERE hash NOT IN (SELECT snapshot FROM ledger WHERE snapshot <> '')`)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		return tx.Commit()
	})
	if err != nil {
		return 0, wrapStore(s.path, fmt.Errorf("drop snapshots: %w", err))
	}
	s.seenAt.Clear()
	for _, h := range files {
		if validHash(h) == nil {
			os.Remove(s.objectPath(h))
		}
	}
	if ents, err := os.ReadDir(filepath.Join(s.objectsDir(), "tmp")); err == nil {
		for _, e := range ents {
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > orphanAge {
				os.Remove(filepath.Join(s.objectsDir(), "tmp", e.Name()))
			}
		}
	}
	s.dropOrphanFiles(ctx)
	return int(n), nil
}

// orphanAge is the age past which gc removes a staging file, or a
// snapshot file without an index row: a younger one may belong to a
// retrieval that is writing it, or its row, now.
const orphanAge = 24 * time.Hour

// dropOrphanFiles removes the snapshot files that no index row names: left
// by a process killed between a file's rename and its row, an index write
// that failed, or a gc killed between the rows and the files. Nothing
// refers to them (an entry names a snapshot only once its row exists).
func (s *Store) dropOrphanFiles(ctx context.Context) {
	root := filepath.Join(s.objectsDir(), "sha256")
	dirs, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, d := range dirs {
		ents, err := os.ReadDir(filepath.Join(root, d.Name()))
		if err != nil {
			continue
		}
		for _, e := range ents {
			hash := "sha256:" + d.Name() + e.Name()
			fi, err := e.Info()
			if err != nil || validHash(hash) != nil || time.Since(fi.ModTime()) <= orphanAge {
				continue
			}
			var one int
			err = s.db.QueryRowContext(ctx, `SELECT 1 FROM snapshots WHERE hash = ?`, hash).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				os.Remove(filepath.Join(root, d.Name(), e.Name()))
			}
		}
	}
}
