package sqlite

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/retrieve-dev/retrieve/internal/binrec"
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
//
// A journal file is trusted only as far as this store wrote it (issue #32,
// docs/SECURITY.md "Planted journal files"): a repository or an archive can
// ship files under .retrieve/. A file is opened without following a link
// and without blocking (a FIFO), and folded only when it is a regular file
// of this user, private (no group or other permission bits) and at most
// maxJournalFile bytes. Every record carries an HMAC-SHA-256 under the
// store's journal key, a random key kept in the database itself (table
// journal_key): whoever can write the database owns the ledger anyway, and
// a file planted beside it cannot make a record that verifies. A file that
// is refused, holds a forged record, or a damaged record followed by valid
// ones is folded as far as it can be trusted and set aside under a name
// that says why (.refused, .forged, .damaged), never deleted;
// JournalProblems lists them.
type journal struct {
	s   *Store
	dir string
	key []byte // the store's journal key (journalKey)

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
	key, err := s.journalKey(context.Background())
	if err != nil {
		return // appends are committed directly
	}
	j := &journal{s: s, dir: s.pendingDir(), key: key, idle: idle, most: most, pending: map[string]struct{}{}, snaps: map[string]struct{}{},
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
	rec := encodeEntry(j.key, e)
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
	rec := encodeSnapshot(j.key, hash, data)
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
	if err := os.MkdirAll(j.dir, 0o700); err != nil {
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
		recs, dr := decodeRecords(j.key, b)
		if _, err := j.s.insertRecords(ctx, recs); err != nil {
			return err
		}
		if why := dr.setAside(); why != "" {
			j.s.setAside(jf.name, why, dr)
		} else {
			os.Remove(jf.name)
		}
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
			// holds nothing that was acknowledged (an empty file is
			// removed; one that holds bytes is folded as far as it can
			// be trusted and set aside).
			if fi, err := de.Info(); err == nil && time.Since(fi.ModTime()) > time.Minute {
				if err := s.foldFile(ctx, p, true); err != nil {
					return err
				}
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

// maxJournalFile caps a journal file that is folded: a process's file
// holds about a second of appends.
const maxJournalFile = 256 << 20

// Why a journal file was set aside.
const (
	asideRefused = "refused" // not a private regular file of this user, or too large
	asideForged  = "forged"  // a record whose CRC is right and whose MAC is not
	asideDamaged = "damaged" // a damaged record with valid records after it
)

// foldFile folds one journal file; a file no process holds any more (its
// owner was killed, or folded and removed it) is removed after, unless it
// had to be set aside. fresh marks a .new- file: one that holds nothing is
// removed, one that holds bytes is treated as any journal.
func (s *Store) foldFile(ctx context.Context, p string, fresh bool) error {
	f, err := openJournal(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // folded and removed by its owner
	}
	if err != nil {
		// A link (O_NOFOLLOW), or a file that cannot be opened: never
		// read, set aside.
		s.setAside(p, asideRefused, decodeReport{reason: err.Error()})
		return nil
	}
	defer f.Close()
	if why := journalFileOK(f); why != "" {
		s.setAside(p, asideRefused, decodeReport{reason: why})
		return nil
	}
	orphan := lockFile(f, true) == nil
	b, err := io.ReadAll(io.LimitReader(f, maxJournalFile+1))
	if err != nil {
		return wrapStore(s.path, fmt.Errorf("read the ledger journal: %w", err))
	}
	if fresh && len(b) == 0 {
		if orphan {
			os.Remove(p)
		}
		return nil
	}
	if len(b) > maxJournalFile {
		s.setAside(p, asideRefused, decodeReport{reason: fmt.Sprintf("larger than %d bytes", maxJournalFile)})
		return nil
	}
	key, err := s.journalKey(ctx)
	if err != nil {
		return err
	}
	recs, dr := decodeRecords(key, b)
	if _, err := s.insertRecords(ctx, recs); err != nil {
		return err
	}
	if why := dr.setAside(); why != "" {
		s.setAside(p, why, dr)
	} else if orphan {
		os.Remove(p)
	}
	return nil
}

// setAside renames a journal file that cannot be trusted whole to
// <name>.<why> (never deleted: what it holds may be repaired by hand) and
// records the problem for JournalProblems.
func (s *Store) setAside(p, why string, dr decodeReport) {
	to := p + "." + why
	if err := os.Rename(p, to); err != nil {
		to = p
	}
	msg := fmt.Sprintf("%s: %s", to, why)
	switch {
	case dr.reason != "":
		msg += " (" + dr.reason + ")"
	case why != asideRefused:
		msg += fmt.Sprintf(" (%d records folded, %d forged, %d damaged spans skipped)", dr.folded, dr.forged, dr.damaged)
	}
	s.jpmu.Lock()
	s.jproblems = append(s.jproblems, msg)
	s.jpmu.Unlock()
}

// JournalProblems lists the journal files this store set aside since it
// was opened, with why: a planted or damaged file is reported, not folded
// blindly and not deleted.
func (s *Store) JournalProblems() []string {
	s.jpmu.Lock()
	defer s.jpmu.Unlock()
	return append([]string(nil), s.jproblems...)
}

// journalKey returns the store's journal key, made at random the first
// time and kept in the database.
func (s *Store) journalKey(ctx context.Context) ([]byte, error) {
	s.keyOnce.Do(func() {
		_, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS journal_key (id INTEGER PRIMARY KEY CHECK (id = 1), key BLOB NOT NULL)`)
		if err == nil {
			k := make([]byte, 32)
			_, _ = rand.Read(k)
			_, err = s.db.ExecContext(ctx, `INSERT OR IGNORE INTO journal_key (id, key) VALUES (1, ?)`, k)
		}
		if err == nil {
			err = s.db.QueryRowContext(ctx, `SELECT key FROM journal_key WHERE id = 1`).Scan(&s.jkey)
		}
		if err == nil && len(s.jkey) < 16 {
			err = errors.New("the journal key is too short")
		}
		s.jkeyErr = err
	})
	if s.jkeyErr != nil {
		return nil, wrapStore(s.path, fmt.Errorf("read the journal key: %w", s.jkeyErr))
	}
	return s.jkey, nil
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

// Journal records: [u32 length][u32 CRC-32C][payload][MAC], little-endian,
// where length and the CRC cover payload and MAC, and MAC is the first
// macLen bytes of HMAC-SHA-256(key, payload) under the store's journal key.
// The payload is kindEntry then the fields of store.Entry, or kindSnapshot
// then the hash and the bytes of a small snapshot.
const (
	kindEntry    = 'e'
	kindSnapshot = 's'
	macLen       = 16
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// jrec is one decoded record: an entry, or a snapshot's hash and bytes.
type jrec struct {
	e    *store.Entry
	hash string
	data []byte
}

func encodeEntry(key []byte, e *store.Entry) []byte {
	b := make([]byte, 8, 128+macLen+len(e.ID)+len(e.Target)+len(e.Reference)+len(e.Request)+len(e.Result)+3*72)
	b = append(b, kindEntry)
	for _, s := range []string{e.ID, e.Op, e.Target, e.Source, e.Reference, e.Hash, e.SourceHash, e.Snapshot, e.Status, e.Code} {
		b = binrec.AppendBytes(b, s)
	}
	b = binary.AppendVarint(b, e.Time.Unix())
	b = binary.AppendUvarint(b, uint64(e.Time.Nanosecond()))
	b = binary.AppendVarint(b, int64(e.Duration))
	for _, s := range [][]byte{e.Request, e.Result} {
		b = binrec.AppendBytes(b, s)
	}
	if e.DataInSnapshot {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	return frame(key, b)
}

func encodeSnapshot(key []byte, hash string, data []byte) []byte {
	b := make([]byte, 8, 8+1+macLen+2*binary.MaxVarintLen64+len(hash)+len(data))
	b = append(b, kindSnapshot)
	b = binrec.AppendBytes(b, hash)
	b = binrec.AppendBytes(b, data)
	return frame(key, b)
}

// frame appends the MAC and fills in the length and CRC of a record whose
// payload follows 8 bytes of room.
func frame(key, b []byte) []byte {
	b = appendMAC(key, b, b[8:])
	binary.LittleEndian.PutUint32(b[0:], uint32(len(b)-8))
	binary.LittleEndian.PutUint32(b[4:], crc32.Checksum(b[8:], castagnoli))
	return b
}

// macState is an HMAC-SHA-256 under one key, kept in macPool: a record's
// MAC reuses one (Reset) instead of keying a new one, which made two
// SHA-256 states and hashed the key's two pads on every append and every
// record folded (issue #31.2).
type macState struct {
	key []byte
	h   hash.Hash
	sum [sha256.Size]byte
}

var macPool sync.Pool // of *macState

// appendMAC appends to dst the first macLen bytes of HMAC-SHA-256(key,
// payload); payload may alias dst.
func appendMAC(key, dst, payload []byte) []byte {
	st, _ := macPool.Get().(*macState)
	if st == nil || !bytes.Equal(st.key, key) {
		st = &macState{key: bytes.Clone(key), h: hmac.New(sha256.New, key)}
	} else {
		st.h.Reset()
	}
	st.h.Write(payload)
	dst = append(dst, st.h.Sum(st.sum[:0])[:macLen]...)
	macPool.Put(st)
	return dst
}

func mac(key, payload []byte) []byte {
	var b [macLen]byte
	return appendMAC(key, b[:0], payload)
}

// decodeReport says what decoding a journal file met besides good records.
type decodeReport struct {
	folded  int    // good records
	forged  int    // records with a right CRC and a wrong MAC
	damaged int    // damaged spans followed by good records
	torn    bool   // the file ends in a partial or damaged record
	reason  string // why the file was refused unread
}

// setAside is why the file must be kept (asideForged, asideDamaged), ""
// when it may be removed once folded (a torn tail was never acknowledged).
func (r decodeReport) setAside() string {
	switch {
	case r.forged > 0:
		return asideForged
	case r.damaged > 0:
		return asideDamaged
	}
	return ""
}

// resyncBudget bounds the bytes hashed while looking for the next good
// record after a damaged one.
const resyncBudget = 64 << 20

// decodeRecords decodes the records of b that this store wrote. A record
// whose MAC is wrong is skipped and counted as forged. After a damaged
// record (a wrong CRC or a bad length), decoding resumes at the next
// offset where a good record starts, so a damaged record never drops the
// good ones after it; a damaged end is a torn tail.
func decodeRecords(key, b []byte) (recs []jrec, rep decodeReport) {
	budget := resyncBudget
	for len(b) > 0 {
		r, n, st := decodeOne(key, b)
		switch st {
		case recGood:
			recs = append(recs, r)
			rep.folded++
			b = b[n:]
			continue
		case recForged:
			rep.forged++
			b = b[n:]
			continue
		}
		// Damaged: look for the next good record.
		next := -1
		for i := 1; i+8 <= len(b) && budget > 0; i++ {
			l := binary.LittleEndian.Uint32(b[i:])
			if l < macLen+1 || uint64(l) > uint64(len(b)-i-8) || b[i+8] != kindEntry && b[i+8] != kindSnapshot {
				continue
			}
			budget -= int(l)
			if _, _, st := decodeOne(key, b[i:]); st == recGood {
				next = i
				break
			}
		}
		if next < 0 {
			rep.torn = true
			return recs, rep
		}
		rep.damaged++
		b = b[next:]
	}
	return recs, rep
}

// Outcomes of decoding one record.
const (
	recGood = iota
	recForged
	recDamaged
)

// decodeOne decodes the record at the start of b and returns its size.
func decodeOne(key, b []byte) (jrec, int, int) {
	var r jrec
	if len(b) < 8 {
		return r, 0, recDamaged
	}
	n := binary.LittleEndian.Uint32(b[0:])
	if n < macLen || uint64(n) > uint64(len(b)-8) || crc32.Checksum(b[8:8+n], castagnoli) != binary.LittleEndian.Uint32(b[4:]) {
		return r, 0, recDamaged
	}
	p, m := b[8:8+n-macLen], b[8+n-macLen:8+n]
	if !hmac.Equal(m, mac(key, p)) {
		return r, int(8 + n), recForged
	}
	var ok bool
	switch {
	case len(p) > 0 && p[0] == kindEntry:
		r.e, ok = decodeEntry(p)
	case len(p) > 0 && p[0] == kindSnapshot:
		d := binrec.NewDecoder(p[1:])
		r.hash, r.data = d.String(), d.Bytes()
		ok = d.OK() && validHash(r.hash) == nil
	}
	if !ok {
		// Signed by this store and malformed: a bug, not an attack; it
		// is kept for repair like a damaged record.
		return r, 0, recDamaged
	}
	return r, int(8 + n), recGood
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
		tx, err := s.foldBegin(ctx)
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
		leaves, err := s.newLeafWriter(ctx, tx, true)
		if err != nil {
			return err
		}
		defer leaves.close()
		for _, r := range recs {
			if r.e == nil {
				continue
			}
			// A record folded twice inserts nothing and has its leaf already.
			ok, err := leaves.add(ctx, r.e)
			if err != nil {
				return err
			}
			if ok {
				n++
			}
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
	d := binrec.NewDecoder(p)
	if d.Byte() != kindEntry {
		return nil, false
	}
	var e store.Entry
	for _, s := range []*string{&e.ID, &e.Op, &e.Target, &e.Source, &e.Reference, &e.Hash, &e.SourceHash, &e.Snapshot, &e.Status, &e.Code} {
		*s = d.String()
	}
	sec, nsec := d.Varint(), d.Uvarint()
	e.Time = time.Unix(sec, int64(nsec)).UTC()
	e.Duration = time.Duration(d.Varint())
	e.Request, e.Result = d.Bytes(), d.Bytes()
	e.DataInSnapshot = d.Byte() == 1
	return &e, d.OK()
}
