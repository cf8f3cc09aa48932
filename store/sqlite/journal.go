package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/retrieve-dev/retrieve/store"
)

// The ledger journal lets a long-running server (`retrieve serve`)
// acknowledge a retrieval without waiting for a SQLite commit, which costs
// a transaction, a dozen page writes to the WAL and as many lock calls
// (docs/ledger.md, "Recording on the hot path").
//
// Append writes the entry as one framed record (length, CRC-32C, entry)
// with one write(2) to the process's journal file,
// <db>-pending/<time>-<random>.jnl, and returns. Once write(2) returned, the
// bytes are in the kernel's page cache: a process killed with SIGKILL loses
// none of them, which is the promise SQLite's synchronous = NORMAL makes for
// a commit (neither survives a power cut before the next checkpoint or
// writeback). A background fold moves the records into the ledger table in
// one transaction (foldIdle, foldMax), then removes the file.
//
// Every reader of the ledger (Entry, Entries, DeleteEntriesBefore,
// EntriesAfter, Counts, DeleteUnreferencedSnapshots), in any process, folds
// the journals first (sync): what was acknowledged before a read began is in
// the table when the read runs. The owner holds an exclusive flock(2) on its
// file from before the file has its name until after it is removed, so
// another process that gets the lock knows the owner is gone (killed) and
// removes the file once it has folded it; while the owner lives, others fold
// its records too (INSERT OR IGNORE: a record folded twice is one entry) and
// leave the file. A record torn by a kill in the middle of its write(2)
// fails its CRC and was never acknowledged; reading stops there.
type journal struct {
	s   *Store
	dir string

	mu      sync.Mutex
	active  *jfile              // the file appends go to; nil until the next append
	rotated []*jfile            // files appends no longer go to, not folded yet
	pending map[string]struct{} // ids appended and not folded yet
	snaps   map[string]struct{} // small snapshots appended and not folded yet
	closed  bool
	// floor is the highest id of the table when the journal started, maxID
	// the highest this process appended: an id above both is new.
	floor, maxID string

	fmu        sync.Mutex    // one fold of this process's files at a time
	idle, most time.Duration // foldIdle, foldMax
	last       atomic.Int64  // when the last append was written (Unix ns)
	kick       chan struct{}
	stop       chan struct{}
	done       chan struct{}
}

// jfile is one journal file of this process, locked until it is removed.
type jfile struct {
	f     *os.File
	name  string
	n     int64 // bytes written
	ids   []string
	snaps []string
}

// The background fold commits what gathered in the journal once appends
// pause for foldIdle, and at the latest foldMax after the first of them: an
// agent's calls are folded between calls, and a busy server folds about
// once a second, in one transaction, so that the fold's work (about 20 µs
// of CPU an entry) rarely runs beside a call.
const (
	foldIdle = 10 * time.Millisecond
	foldMax  = time.Second
)

// journalExt names a journal file; a file being created has the prefix
// journalNew until it is locked.
const (
	journalExt = ".jnl"
	journalNew = ".new-"
)

// pendingDir is the directory of the journal files of the store.
func (s *Store) pendingDir() string { return s.path + "-pending" }

// StartJournal makes Append acknowledge entries from the journal and fold
// them in the background (for a long-running process: a CLI command that
// appends once gains nothing). Without file locks (a platform without
// flock) the store keeps committing every append.
func (s *Store) StartJournal() { s.startJournal(foldIdle, foldMax) }

func (s *Store) startJournal(idle, most time.Duration) {
	if !canLock || s.jn != nil {
		return
	}
	j := &journal{s: s, dir: s.pendingDir(), idle: idle, most: most, pending: map[string]struct{}{}, snaps: map[string]struct{}{},
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	if err := s.db.QueryRow(`SELECT coalesce(max(id), '') FROM ledger`).Scan(&j.floor); err != nil {
		j.floor = "\xff" // look every id up
	}
	s.jn = j
	go j.run()
	j.kick <- struct{}{} // fold what a killed process left, soon
}

// run folds in the background what gathered: once appends pause for idle,
// or most after the first.
func (j *journal) run() {
	defer close(j.done)
	for {
		select {
		case <-j.stop:
			return
		case <-j.kick:
		}
		first := time.Now()
		for {
			select {
			case <-j.stop:
				return
			case <-time.After(j.idle):
			}
			if time.Since(time.Unix(0, j.last.Load())) >= j.idle || time.Since(first) >= j.most {
				break
			}
		}
		// A failure leaves the records in their file, as durable as a
		// commit: the next fold or read tries again.
		_ = j.s.sync(context.Background())
	}
}

// append writes e to the journal. handled is false when the journal cannot
// take it (closed, a file that cannot be created or written): the caller
// commits it directly.
func (j *journal) append(ctx context.Context, e *store.Entry) (handled bool, err error) {
	rec := encodeEntry(e)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return false, nil
	}
	// An id must be new: not one waiting here, nor one in the table. Ids
	// are UUIDv7s, increasing: one above both the highest id of the table
	// when the journal started and the highest this process appended is
	// new without asking the table (a look-up is a read transaction, most
	// of an append's cost). A reused id never is above them.
	if _, dup := j.pending[e.ID]; dup {
		return true, duplicateErr(j.s.path, e.ID)
	}
	if e.ID <= j.floor || e.ID <= j.maxID {
		if taken, err := j.s.hasEntry(ctx, e.ID); err != nil {
			return false, nil
		} else if taken {
			return true, duplicateErr(j.s.path, e.ID)
		}
	}
	if !j.write(rec) {
		return false, nil
	}
	j.active.ids = append(j.active.ids, e.ID)
	j.pending[e.ID] = struct{}{}
	j.maxID = max(j.maxID, e.ID)
	return true, nil
}

// journalSnapshotMax is the largest snapshot written to the journal
// without asking the table first whether it is stored: writing a few
// kilobytes again costs less than the look-up (a read transaction).
const journalSnapshotMax = 64 << 10

// appendSnapshot writes the bytes of a small snapshot (up to inlineMax) to
// the journal, ahead of the entry that cites them: the fold stores both in
// one transaction. handled is false when the journal cannot take them.
func (j *journal) appendSnapshot(hash string, data []byte) (handled bool, err error) {
	rec := encodeSnapshot(hash, data)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return false, nil
	}
	if _, ok := j.snaps[hash]; ok {
		return true, nil // waiting already
	}
	if !j.write(rec) {
		return false, nil
	}
	j.active.snaps = append(j.active.snaps, hash)
	j.snaps[hash] = struct{}{}
	return true, nil
}

// hasSnapshot reports whether a small snapshot waits in the journal.
func (j *journal) hasSnapshot(hash string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	_, ok := j.snaps[hash]
	return ok
}

// write appends one record to the active file (j.mu held) and reports
// whether all of it was written.
func (j *journal) write(rec []byte) bool {
	if j.active == nil {
		jf, err := j.create()
		if err != nil {
			return false
		}
		j.active = jf
	}
	n, err := j.active.f.Write(rec)
	j.active.n += int64(n)
	if err != nil {
		// A torn record ends what the file can give: it is folded up to
		// there, and appends go to a new file.
		j.rotated = append(j.rotated, j.active)
		j.active = nil
		return false
	}
	j.last.Store(time.Now().UnixNano())
	select {
	case j.kick <- struct{}{}:
	default:
	}
	return true
}

func duplicateErr(path, id string) error {
	return wrapStore(path, fmt.Errorf("append ledger entry: the id %s is taken", id))
}

// create makes a new journal file, locked before it has its name, so that
// no other process takes it for a killed process's file.
func (j *journal) create() (*jfile, error) {
	if err := os.MkdirAll(j.dir, 0o755); err != nil {
		return nil, err
	}
	ensureIgnored(j.dir)
	f, err := os.CreateTemp(j.dir, journalNew+"*")
	if err != nil {
		return nil, err
	}
	if err := lockFile(f, false); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	// Names sort by creation time, so that folds keep the order of appends.
	name := filepath.Join(j.dir, fmt.Sprintf("%020d-%s%s", time.Now().UnixNano(), strings.TrimPrefix(filepath.Base(f.Name()), journalNew), journalExt))
	if err := os.Rename(f.Name(), name); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &jfile{f: f, name: name}, nil
}

// foldOwn folds this process's journal files into the ledger table.
func (j *journal) foldOwn(ctx context.Context) error {
	j.fmu.Lock()
	defer j.fmu.Unlock()
	return j.foldOwnLocked(ctx)
}

func (j *journal) foldOwnLocked(ctx context.Context) error {
	j.mu.Lock()
	if j.active != nil && j.active.n > 0 {
		j.rotated = append(j.rotated, j.active)
		j.active = nil
	}
	files := append([]*jfile(nil), j.rotated...)
	j.mu.Unlock()
	for _, jf := range files {
		b, err := io.ReadAll(io.NewSectionReader(jf.f, 0, jf.n))
		if err != nil {
			return wrapStore(j.s.path, fmt.Errorf("read the ledger journal: %w", err))
		}
		recs, _ := decodeRecords(b)
		if _, err := j.s.insertRecords(ctx, recs); err != nil {
			return err
		}
		os.Remove(jf.name)
		jf.f.Close() // releases the lock
		j.mu.Lock()
		for i, r := range j.rotated {
			if r == jf {
				j.rotated = append(j.rotated[:i], j.rotated[i+1:]...)
				break
			}
		}
		for _, id := range jf.ids {
			delete(j.pending, id)
		}
		for _, h := range jf.snaps {
			delete(j.snaps, h)
		}
		j.mu.Unlock()
	}
	return nil
}

// owns reports whether p is one of this process's journal files.
func (j *journal) owns(p string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.active != nil && j.active.name == p {
		return true
	}
	for _, jf := range j.rotated {
		if jf.name == p {
			return true
		}
	}
	return false
}

// close stops the background fold, folds what is left and releases the
// files. A file whose fold failed stays: the next reader folds it.
func (j *journal) close() error {
	close(j.stop)
	<-j.done
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	j.fmu.Lock()
	defer j.fmu.Unlock()
	err := j.foldOwnLocked(ctx)
	j.mu.Lock()
	defer j.mu.Unlock()
	j.closed = true
	for _, jf := range append(j.rotated, j.active) {
		if jf != nil {
			jf.f.Close()
		}
	}
	j.rotated, j.active = nil, nil
	return err
}

// sync folds every journal of the store into the ledger table: this
// process's, then other processes' (those of a killed process are removed
// after). A read that follows sees every entry acknowledged before sync
// began.
func (s *Store) sync(ctx context.Context) error {
	if s.jn != nil {
		if err := s.jn.foldOwn(ctx); err != nil {
			return err
		}
	}
	if !canLock {
		return nil
	}
	ents, err := os.ReadDir(s.pendingDir())
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(ents) == 0 {
		return nil
	}
	if err != nil {
		return wrapStore(s.path, fmt.Errorf("read the ledger journal: %w", err))
	}
	for _, de := range ents {
		name := de.Name()
		p := filepath.Join(s.pendingDir(), name)
		if strings.HasPrefix(name, journalNew) {
			// Created by a process killed before it named the file: it
			// holds nothing that was acknowledged.
			if fi, err := de.Info(); err == nil && time.Since(fi.ModTime()) > time.Minute {
				s.foldFile(ctx, p, true)
			}
			continue
		}
		if !strings.HasSuffix(name, journalExt) || s.jn != nil && s.jn.owns(p) {
			continue // this process's own files were folded above, or are newer
		}
		if err := s.foldFile(ctx, p, false); err != nil {
			return err
		}
	}
	return nil
}

// foldFile folds one journal file; a file no process holds any more (its
// owner was killed, or folded and removed it) is removed after. dropOnly
// removes an unheld file without folding it.
func (s *Store) foldFile(ctx context.Context, p string, dropOnly bool) error {
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // folded and removed by its owner
	}
	if err != nil {
		return wrapStore(s.path, fmt.Errorf("read the ledger journal: %w", err))
	}
	defer f.Close()
	orphan := lockFile(f, true) == nil
	if dropOnly {
		if orphan {
			os.Remove(p)
		}
		return nil
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return wrapStore(s.path, fmt.Errorf("read the ledger journal: %w", err))
	}
	recs, _ := decodeRecords(b)
	if _, err := s.insertRecords(ctx, recs); err != nil {
		return err
	}
	if orphan {
		os.Remove(p)
	}
	return nil
}

// hasEntry reports whether the ledger table holds id, with a statement
// prepared once (the pool prepares it once per connection).
func (s *Store) hasEntry(ctx context.Context, id string) (bool, error) {
	s.hasOnce.Do(func() {
		s.hasStmt, s.hasErr = s.db.PrepareContext(context.Background(), `SELECT 1 FROM ledger WHERE id = ?`)
	})
	if s.hasErr != nil {
		return false, s.hasErr
	}
	var one int
	err := s.hasStmt.QueryRowContext(ctx, id).Scan(&one)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return false, err
}

// Journal records: [u32 length of payload][u32 CRC-32C of payload][payload],
// little-endian; the payload is kindEntry then the fields of store.Entry, or
// kindSnapshot then the hash and the bytes of a small snapshot.
const (
	kindEntry    = 'e'
	kindSnapshot = 's'
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// jrec is one decoded record: an entry, or a snapshot's hash and bytes.
type jrec struct {
	e    *store.Entry
	hash string
	data []byte
}

func encodeEntry(e *store.Entry) []byte {
	b := make([]byte, 8, 128+len(e.ID)+len(e.Target)+len(e.Reference)+len(e.Request)+len(e.Result)+3*72)
	b = append(b, kindEntry)
	for _, s := range []string{e.ID, e.Op, e.Target, e.Source, e.Reference, e.Hash, e.SourceHash, e.Snapshot, e.Status, e.Code} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendVarint(b, e.Time.Unix())
	b = binary.AppendUvarint(b, uint64(e.Time.Nanosecond()))
	b = binary.AppendVarint(b, int64(e.Duration))
	for _, s := range [][]byte{e.Request, e.Result} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	if e.DataInSnapshot {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	return frame(b)
}

func encodeSnapshot(hash string, data []byte) []byte {
	b := make([]byte, 8, 8+1+2*binary.MaxVarintLen64+len(hash)+len(data))
	b = append(b, kindSnapshot)
	b = binary.AppendUvarint(b, uint64(len(hash)))
	b = append(b, hash...)
	b = binary.AppendUvarint(b, uint64(len(data)))
	b = append(b, data...)
	return frame(b)
}

// frame fills in the length and CRC of a record whose payload follows 8
// bytes of room.
func frame(b []byte) []byte {
	binary.LittleEndian.PutUint32(b[0:], uint32(len(b)-8))
	binary.LittleEndian.PutUint32(b[4:], crc32.Checksum(b[8:], castagnoli))
	return b
}

// decodeRecords decodes the records of b up to the first that is torn or
// damaged, and says whether it stopped early.
func decodeRecords(b []byte) (recs []jrec, torn bool) {
	for len(b) > 0 {
		if len(b) < 8 {
			return recs, true
		}
		n := binary.LittleEndian.Uint32(b[0:])
		if uint64(n) > uint64(len(b)-8) || crc32.Checksum(b[8:8+n], castagnoli) != binary.LittleEndian.Uint32(b[4:]) {
			return recs, true
		}
		p := b[8 : 8+n]
		var r jrec
		var ok bool
		switch {
		case len(p) > 0 && p[0] == kindEntry:
			r.e, ok = decodeEntry(p)
		case len(p) > 0 && p[0] == kindSnapshot:
			d := decoder{b: p[1:]}
			r.hash, r.data = string(d.bytes()), d.bytes()
			ok = !d.bad && len(d.b) == 0 && validHash(r.hash) == nil
		}
		if !ok {
			return recs, true
		}
		recs = append(recs, r)
		b = b[8+n:]
	}
	return recs, false
}

// insertRecords stores recs in one transaction: the small snapshots, then
// the entries, skipping what is present already (a journal record folded
// twice is stored once). It returns how many entries it inserted.
func (s *Store) insertRecords(ctx context.Context, recs []jrec) (int, error) {
	if len(recs) == 0 {
		return 0, nil
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var n int
	err := retry(ctx, func() error {
		n = 0
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		var snaps *inlineStmts
		for _, r := range recs {
			if r.e != nil {
				continue
			}
			if snaps == nil {
				if snaps, err = prepareInline(ctx, tx); err != nil {
					return err
				}
				defer snaps.close()
			}
			// Compressed only when not stored yet (the journal takes small
			// snapshots without a look-up).
			if stored, err := snaps.stored(ctx, r.hash); err != nil {
				return err
			} else if stored {
				continue
			}
			storage, data := s.inlineForm(r.data)
			if err := snaps.insert(ctx, r.hash, len(r.data), storage, data); err != nil {
				return err
			}
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO ledger (`+entryColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, r := range recs {
			if r.e == nil {
				continue
			}
			res, err := stmt.ExecContext(ctx, entryArgs(r.e)...)
			if err != nil {
				return err
			}
			k, _ := res.RowsAffected()
			n += int(k)
		}
		return tx.Commit()
	})
	if err != nil {
		return 0, wrapStore(s.path, fmt.Errorf("write ledger entries: %w", err))
	}
	return n, nil
}

// decodeEntry decodes the payload of a kindEntry record.
func decodeEntry(p []byte) (*store.Entry, bool) {
	d := decoder{b: p}
	if d.byte() != kindEntry {
		return nil, false
	}
	var e store.Entry
	for _, s := range []*string{&e.ID, &e.Op, &e.Target, &e.Source, &e.Reference, &e.Hash, &e.SourceHash, &e.Snapshot, &e.Status, &e.Code} {
		*s = string(d.bytes())
	}
	sec, nsec := d.varint(), d.uvarint()
	e.Time = time.Unix(sec, int64(nsec)).UTC()
	e.Duration = time.Duration(d.varint())
	e.Request, e.Result = d.bytes(), d.bytes()
	e.DataInSnapshot = d.byte() == 1
	return &e, !d.bad && len(d.b) == 0
}

// decoder reads the fields of a record; a short or malformed record sets bad.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.bad = true
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad = true
		d.b = nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad = true
		d.b = nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.bad = true
		d.b = nil
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}
