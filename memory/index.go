package memory

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
)

// racyWindow: a file changed this close to the moment it is indexed may
// change again within the file system's timestamp granularity without its
// mtime moving. Such a file is indexed with an unknown mtime, so that the
// next check reads it again (git's "racy clean" rule).
var racyWindow = 2 * time.Second

// batchSize is how many notes are written per index transaction.
const batchSize = 1000

// Progress reports indexing: done of total files.
type Progress func(done, total int)

// fileInfo is a note file seen on disk.
type fileInfo struct {
	rel   string
	size  int64
	mtime int64
	ctime int64 // 0 when not known
}

// scanTier lists the note files of a tier folder that the deny list lets
// through (listTier, then allowed).
func (s *Service) scanTier(tier string) ([]fileInfo, error) {
	files, err := s.listTier(tier)
	if err != nil {
		return nil, err
	}
	return s.allowed(files), nil
}

// listTier lists the note files of a tier folder, the ones the deny list
// refuses included: the caller filters them out (allowed) before it uses
// them, or only compares a digest of the listing with the one of a
// listing it filtered before. One lstat each, relative to the open folder
// and spread over a few goroutines (workspace.LstatDir).
func (s *Service) listTier(tier string) ([]fileInfo, error) {
	prefix := tier + "/"
	ents, err := s.fs.LstatDir(s.name(tier), func(name string) (bool, bool) {
		return strings.HasSuffix(name, ".md") && !strings.HasPrefix(name, "."), true
	})
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	out := make([]fileInfo, 0, len(ents))
	for _, e := range ents {
		if e.Mode == 0 {
			out = append(out, fileInfo{rel: prefix + e.Name, size: e.Size, mtime: e.ModTime, ctime: e.ChangeTime})
		}
	}
	return out, nil
}

// listTiers lists the tiers of scan (listTier) at the same time: a tier's
// readdir runs while another's lstats do, which shortens a full check's
// wall time where the stats wait on the disk or on a busy CPU.
func (s *Service) listTiers(scan []string) (map[string][]fileInfo, error) {
	files := make([][]fileInfo, len(scan))
	errs := make([]error, len(scan))
	var wg sync.WaitGroup
	for i, tier := range scan {
		wg.Add(1)
		go func() {
			defer wg.Done()
			files[i], errs[i] = s.listTier(tier)
		}()
	}
	wg.Wait()
	listed := make(map[string][]fileInfo, len(scan))
	for i, tier := range scan {
		if errs[i] != nil {
			return nil, retrieve.Errorf(retrieve.CodeSearchError, "cannot read %s", s.workspacePath(tier)).WithErr(errs[i])
		}
		listed[tier] = files[i]
	}
	return listed, nil
}

// allowed drops from files the notes the deny list refuses. The names the
// index already holds are not matched again when every one of them was
// checked against this same list (s.denyOK): an unchanged note then costs
// its lstat alone.
func (s *Service) allowed(files []fileInfo) []fileInfo {
	trusted := s.states
	if !s.denyOK {
		trusted = nil
	}
	out := files[:0]
	for _, f := range files {
		if _, ok := trusted[f.rel]; ok || !s.fs.Denied(s.name(f.rel)) {
			out = append(out, f)
		}
	}
	return out
}

// listingDigest sums a hash of every file's name, size, mtime and ctime
// (in any order): equal digests say, short of a collision, that no note
// was added, removed, written, renamed or touched in between. ok is false
// when a file changed so recently (within racyWindow of now, or later)
// that a write within the same timestamp would leave it unchanged.
func listingDigest(files []fileInfo, now time.Time) (sum uint64, ok bool) {
	var b [24]byte
	limit := now.UnixNano() - racyWindow.Nanoseconds()
	ok = true
	for _, f := range files {
		// FNV-1a, inline: no allocation per file.
		h := uint64(14695981039346656037)
		for i := 0; i < len(f.rel); i++ {
			h = (h ^ uint64(f.rel[i])) * 1099511628211
		}
		binary.LittleEndian.PutUint64(b[0:], uint64(f.size))
		binary.LittleEndian.PutUint64(b[8:], uint64(f.mtime))
		binary.LittleEndian.PutUint64(b[16:], uint64(f.ctime))
		for _, c := range b {
			h = (h ^ uint64(c)) * 1099511628211
		}
		sum += h
		if f.ctime >= limit || f.mtime >= limit {
			ok = false
		}
	}
	return sum + uint64(len(files)), ok
}

// readNote reads, hashes and parses one note file into an index row.
func (s *Service) readNote(f fileInfo, now time.Time) (IndexNote, error) {
	data, err := s.fs.ReadFile(s.name(f.rel))
	if err != nil {
		return IndexNote{}, err
	}
	sum := sha256.Sum256(data)
	p := ParseNote(data)
	fillDefaults(&p.Note, f.rel)
	tier, _, _ := strings.Cut(f.rel, "/")
	mtime := f.mtime
	if now.UnixNano()-mtime < racyWindow.Nanoseconds() {
		mtime = -1
	}
	n := IndexNote{
		Path: f.rel, Tier: tier, ID: p.Note.ID, Title: p.Note.Title, Tags: p.Note.Tags, Body: p.Note.Body,
		Size: int64(len(data)), ModTime: mtime, Hash: hex.EncodeToString(sum[:]), Warning: p.Warnings(),
	}
	if t, err := ParseTime(p.Note.Created); err == nil {
		n.Recorded = t.UnixNano()
	}
	if prov, err := p.Note.Provenance(); err != nil {
		n.Warning = joinWarning(n.Warning, err.Error())
	} else {
		n.Evidence, n.Session = prov.Evidence, prov.Session
	}
	// Analyzed here, in the reader goroutines, not in the one writer.
	n.Analyze()
	return n, nil
}

// indexFiles indexes files in a pipeline, so that every core has work:
// readers (one per core, up to 4) read, hash, parse and analyze notes;
// this goroutine gathers them in batches; one writer goroutine writes each
// batch (the stores have one writer) while the readers go on with the next.
func (s *Service) indexFiles(ctx context.Context, files []fileInfo, progress Progress, total, doneBefore int) (int, []string, error) {
	now := s.now()
	type res struct {
		note IndexNote
		err  error
		rel  string
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := min(runtime.GOMAXPROCS(0), 4)
	jobs := make(chan fileInfo)
	results := make(chan res, 64)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range jobs {
				n, err := s.readNote(f, now)
				results <- res{n, err, f.rel}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, f := range files {
			select {
			case jobs <- f:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	// One batch waits while another is written: the readers run ahead by
	// one batch at most.
	writes := make(chan []IndexNote, 1)
	written := make(chan error, 1)
	go func() {
		var err error
		for batch := range writes {
			if err == nil {
				if err = s.index.MemoryUpsert(ctx, s.rel, batch); err != nil {
					cancel() // the readers stop; what they read is dropped
				}
			}
		}
		written <- err
	}()
	batch := make([]IndexNote, 0, batchSize)
	var gone []string
	done := doneBefore
	for r := range results {
		done++
		if r.err != nil {
			if os.IsNotExist(r.err) {
				gone = append(gone, r.rel)
			}
			continue
		}
		if ctx.Err() != nil {
			continue
		}
		if s.states != nil {
			s.states[r.note.Path] = FileState{Size: r.note.Size, ModTime: r.note.ModTime, Hash: r.note.Hash}
		}
		batch = append(batch, r.note)
		if len(batch) >= batchSize {
			writes <- batch
			batch = make([]IndexNote, 0, batchSize)
		}
		if progress != nil && (done%100 == 0 || done == total) {
			progress(done, total)
		}
	}
	if len(batch) > 0 && ctx.Err() == nil {
		writes <- batch
	}
	close(writes)
	werr := <-written
	if werr == nil {
		werr = ctx.Err()
	}
	if progress != nil {
		progress(done, total)
	}
	return done - doneBefore, gone, werr
}

// ReindexInput asks for the index of the memory folder to be rebuilt.
type ReindexInput struct {
	// Progress, when set, is called as files are indexed.
	Progress Progress `json:"-" yaml:"-"`
}

// ReindexOutput says what was indexed.
type ReindexOutput struct {
	Dir      string   `json:"dir" yaml:"dir"`
	Notes    int      `json:"notes" yaml:"notes"`
	Warnings []string `json:"warnings" yaml:"warnings"`
	Duration string   `json:"duration" yaml:"duration"`
}

// Reindex rebuilds the index of the folder from scratch.
func (s *Service) Reindex(ctx context.Context, in ReindexInput) (*ReindexOutput, error) {
	if s.index == nil {
		return nil, retrieve.Errorf(retrieve.CodeStoreUnavailable, "no index store is open").WithHint("check .retrieve/retrieve.db")
	}
	if _, err := s.fs.Stat(s.rel); err != nil {
		return nil, s.missing(err)
	}
	start := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	var files []fileInfo
	listed := map[string][]fileInfo{}
	for _, t := range Tiers {
		fs, err := s.listTier(t)
		if err != nil {
			return nil, retrieve.Errorf(retrieve.CodeSearchError, "cannot read %s", s.workspacePath(t)).WithErr(err)
		}
		listed[t] = fs
		files = append(files, s.allowed(append([]fileInfo(nil), fs...))...)
	}
	err := s.index.MemoryReset(ctx, s.rel)
	if err != nil {
		return nil, err
	}
	s.states = nil
	s.dirMtimes = map[string]int64{}
	s.denyOK = false
	s.digests = nil
	var n int
	if bulk, ok := s.index.(BulkIndex); ok {
		if err := bulk.BeginBulk(ctx); err != nil {
			return nil, err
		}
		n, _, err = s.indexFiles(ctx, files, in.Progress, len(files), 0)
		if eerr := bulk.EndBulk(context.WithoutCancel(ctx)); err == nil {
			err = eerr
		}
	} else {
		n, _, err = s.indexFiles(ctx, files, in.Progress, len(files), 0)
	}
	if err != nil {
		return nil, err
	}
	s.denyOK = true // every name was listed through the deny list
	if err := s.loadStates(ctx); err != nil {
		return nil, err
	}
	s.lastFull = s.now()
	s.recordListing(listed, s.lastFull)
	s.saveCheck()
	out := &ReindexOutput{Dir: s.rel, Notes: n, Warnings: []string{}, Duration: time.Since(start).Round(time.Millisecond).String()}
	return out, nil
}

func (s *Service) loadStates(ctx context.Context) error {
	st, err := s.index.MemoryStates(ctx, s.rel)
	if err != nil {
		return err
	}
	s.states = st
	return nil
}

// Refresh brings the index up to date with the folder: new and changed
// notes are indexed, removed ones dropped. Without a watcher, folders whose
// mtime did not move are only re-checked file by file every
// FullCheckInterval; with a working watcher (Watch), only the notes it saw
// change are read.
func (s *Service) Refresh(ctx context.Context, progress Progress) (int, error) {
	if s.index == nil {
		return 0, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.checkRead {
		s.checkRead = true
		s.loadCheck()
	}
	now := s.now()
	if w := s.watch; w != nil {
		if w.failed() != nil {
			// Events may have been lost: back to full checks, starting
			// now, which also read again the notes the watcher named.
			paths, _ := w.take()
			s.watch = nil
			go w.stop()
			return s.update(ctx, Tiers, s.tierMtimes(), paths, false, true, now, progress)
		} else if !s.lastFull.IsZero() {
			mtimes := s.tierMtimes()
			if w.sync() {
				paths, tiers := w.take()
				var scan []string
				for _, t := range Tiers {
					if tiers[t] {
						scan = append(scan, t)
					}
				}
				// Every change made before now is in paths and tiers: the
				// index is then as fresh as after a full check at now, and
				// the folders' mtimes read before the cookie are the ones
				// its listing matches.
				for t, m := range mtimes {
					s.dirMtimes[t] = m
				}
				return s.update(ctx, scan, mtimes, paths, true, true, now, progress)
			}
			// The cookie did not come back in time (or could not be made:
			// the watcher failed, and is dropped): a full check, which also
			// reads again the notes the watcher named (an edit that kept
			// the size and the mtime is seen only that way).
			paths, _ := w.take()
			if w.failed() != nil {
				s.watch = nil
				go w.stop()
			}
			return s.update(ctx, Tiers, s.tierMtimes(), paths, false, true, now, progress)
		}
	}
	full := s.lastFull.IsZero() || now.Sub(s.lastFull) >= checkEvery(ctx, s.every)
	// The tiers to scan: every one on a full check, else those whose folder
	// changed (a note added, removed or renamed; the keeper's atomic
	// writes) or changed too recently to be sure.
	var scan []string
	mtimes := s.tierMtimes()
	for _, tier := range Tiers {
		dm := mtimes[tier]
		prev, seen := s.dirMtimes[tier]
		if full || !seen || prev != dm || dm != -1 && now.UnixNano()-dm <= racyWindow.Nanoseconds() {
			scan = append(scan, tier)
		}
	}
	if len(scan) == 0 {
		return 0, nil // nothing to read: the index is as fresh as the bound says
	}
	return s.update(ctx, scan, mtimes, nil, false, full, now, progress)
}

// tierMtimes returns the tier folders' mtimes (-1: absent).
func (s *Service) tierMtimes() map[string]int64 {
	mtimes := make(map[string]int64, len(Tiers))
	for _, tier := range Tiers {
		var dm int64 = -1
		if fi, err := s.fs.Stat(s.name(tier)); err == nil {
			dm = fi.ModTime().UnixNano()
		}
		mtimes[tier] = dm
	}
	return mtimes
}

// update lists the tiers of scan and compares every note of them with the
// index (size and mtime), and reads again the notes of paths
// (memory-relative, named by the watcher) whatever their size and mtime;
// it indexes what changed and drops what is gone. mtimes are the tier
// folders' mtimes read before the listing; watched says the watcher's
// cookie came back (its changes are all in paths and scan); full says the
// result is as fresh as a full check made at now.
func (s *Service) update(ctx context.Context, scan []string, mtimes map[string]int64, paths []string, watched, full bool, now time.Time, progress Progress) (int, error) {
	if len(scan) == 0 && len(paths) == 0 {
		if full {
			s.lastFull = now
			s.saveCheckEvery(now)
		}
		return 0, nil
	}
	listed, err := s.listTiers(scan)
	if err != nil {
		return 0, err
	}
	if s.states == nil {
		if full && len(paths) == 0 && len(scan) == len(Tiers) && s.unchanged(ctx, listed, now) {
			// The listing is the one the index was last made true to: no
			// row needs reading (a new CLI run's full check).
			s.lastFull = now
			for t, m := range mtimes {
				s.dirMtimes[t] = m
			}
			s.saveCheckEvery(now)
			return 0, nil
		}
		if err := s.loadStates(ctx); err != nil {
			return 0, err
		}
	}
	// A note whose ctime is past the last full check was written since,
	// even when its size and mtime are the same (a tool that restores the
	// mtime): read again.
	var since int64
	if !s.lastFull.IsZero() {
		since = s.lastFull.UnixNano() - racyWindow.Nanoseconds()
	}
	changed, gone := s.changes(listed, mtimes, paths, since)
	// Every tier listed: the names the deny list refuses are gone from the
	// index once this update is written.
	everyTier := len(scan) == len(Tiers)
	if full {
		s.lastFull = now
	}
	if len(changed) == 0 && len(gone) == 0 {
		s.denyOK = s.denyOK || everyTier
		s.recordListing(listed, now)
		s.saveCheckEvery(now)
		return 0, nil
	}
	var p Progress
	if len(changed) > 200 {
		p = progress
	}
	n, vanished, err := s.indexFiles(ctx, changed, p, len(changed), 0)
	gone = append(gone, vanished...)
	if err == nil {
		err = s.index.MemoryDelete(ctx, s.rel, gone)
	}
	if err != nil {
		s.states = nil
		s.dirMtimes = map[string]int64{}
		s.lastFull = time.Time{}
		s.denyOK = false
		s.digests = nil
		return 0, err
	}
	// indexFiles kept s.states up to date for what it wrote; drop the gone.
	for _, p := range gone {
		delete(s.states, p)
	}
	s.denyOK = s.denyOK || everyTier
	s.recordListing(listed, now)
	if !watched {
		// The folder mtimes were just recorded; keep them.
		for _, tier := range Tiers {
			if fi, err := s.fs.Stat(s.name(tier)); err == nil {
				s.dirMtimes[tier] = fi.ModTime().UnixNano()
			}
		}
	}
	s.saveCheck()
	s.savedAt = now
	return n + len(gone), nil
}

// changes are the note files to index again (changed) and to drop
// (gone): in the tiers listed, those whose size or mtime differ from the
// index's, whose ctime is since or later (when since is not 0) or that an
// event named; elsewhere, the paths events named.
func (s *Service) changes(listed map[string][]fileInfo, mtimes map[string]int64, paths []string, since int64) (changed []fileInfo, gone []string) {
	scanned := map[string]bool{}
	named := make(map[string]bool, len(paths))
	for _, p := range paths {
		named[p] = true
	}
	for tier, files := range listed {
		scanned[tier] = true
		files = s.allowed(append([]fileInfo(nil), files...))
		seen := make(map[string]bool, len(files))
		for _, f := range files {
			seen[f.rel] = true
			st, ok := s.states[f.rel]
			if !ok || st.Size != f.size || st.ModTime != f.mtime || named[f.rel] || since != 0 && f.ctime >= since {
				changed = append(changed, f)
			}
		}
		prefix := tier + "/"
		for p := range s.states {
			if strings.HasPrefix(p, prefix) && !seen[p] {
				gone = append(gone, p)
			}
		}
		s.dirMtimes[tier] = mtimes[tier]
	}
	for _, p := range paths {
		tier, _, _ := strings.Cut(p, "/")
		if scanned[tier] {
			continue
		}
		// Lstat through the workspace: a denied name, a link or a file
		// that is gone is not a note (as in a listing).
		fi, err := s.fs.Lstat(s.name(p))
		if err != nil || !fi.Mode().IsRegular() {
			if _, ok := s.states[p]; ok {
				gone = append(gone, p)
			}
			continue
		}
		// Read again even when its size and mtime are the same: the
		// event says it was written (an edit within the same second).
		changed = append(changed, fileInfo{rel: p, size: fi.Size(), mtime: fi.ModTime().UnixNano()})
	}
	return changed, gone
}

// IndexCounter is an Index that counts the rows of a folder without
// reading them. With it, a full check whose listing did not change since
// the last one (listingDigest) reads no row of the index: the count guards
// against an index emptied or rebuilt behind the check file's back.
type IndexCounter interface {
	MemoryCount(ctx context.Context, dir string) (int, error)
}

// unchanged reports whether the listing of every tier has the digest
// recorded when the index was last made true to the folder, under the
// same deny list, and the index still holds as many notes as then.
func (s *Service) unchanged(ctx context.Context, listed map[string][]fileInfo, now time.Time) bool {
	c, ok := s.index.(IndexCounter)
	if !ok || !s.denyOK || s.digests == nil {
		return false
	}
	for _, tier := range Tiers {
		want, recorded := s.digests[tier]
		got, sure := listingDigest(listed[tier], now)
		if !recorded || !sure || got != want {
			return false
		}
	}
	n, err := c.MemoryCount(ctx, s.rel)
	return err == nil && n == s.indexed
}

// recordListing keeps the digests of the tiers just listed, now that the
// index holds what they list (and how many notes it holds then), for the
// next full check (unchanged). A tier changed too recently has none.
func (s *Service) recordListing(listed map[string][]fileInfo, now time.Time) {
	if !s.denyOK {
		s.digests = nil
		return
	}
	if s.digests == nil {
		s.digests = map[string]uint64{}
	}
	for tier, files := range listed {
		if d, ok := listingDigest(files, now); ok {
			s.digests[tier] = d
		} else {
			delete(s.digests, tier)
		}
	}
	s.indexed = len(s.states)
}

// saveCheckEvery saves the check file when it is a second old or more: a
// server with a watcher advances its last full check on every query, and
// the CLI runs go on from the one saved.
func (s *Service) saveCheckEvery(now time.Time) {
	if now.Sub(s.savedAt) < time.Second {
		return
	}
	s.saveCheck()
	s.savedAt = now
}

// check is what CheckFile holds.
type check struct {
	Dir       string           `json:"dir"`
	LastFull  int64            `json:"last_full_ns"`
	DirMtimes map[string]int64 `json:"dir_mtimes_ns"`
	// Format is checkFormat: a check recorded by a binary whose index
	// held other rows (before a migration that dropped them) is not
	// trusted, so that the first run after an upgrade re-indexes.
	Format int `json:"format"`
	// Deny is the deny list's fingerprint when every name of the index was
	// checked against it (empty when not known).
	Deny string `json:"deny,omitempty"`
	// Listing is the digest of each tier's listing when the index was last
	// made true to it, and Indexed how many notes the index held then.
	Listing map[string]uint64 `json:"listing,omitempty"`
	Indexed int               `json:"indexed,omitempty"`
}

// checkFormat changes with every migration that drops the index's rows
// (issue 30's memory schema 4).
const checkFormat = 4

// loadCheck starts from the last full check another Service recorded.
func (s *Service) loadCheck() {
	if s.checkFile == "" {
		return
	}
	b, err := os.ReadFile(s.checkFile)
	if err != nil {
		return
	}
	var c check
	if json.Unmarshal(b, &c) != nil || c.Dir != s.rel || c.Format != checkFormat || c.LastFull <= 0 || time.Unix(0, c.LastFull).After(s.now()) {
		return
	}
	s.lastFull = time.Unix(0, c.LastFull)
	s.denyOK = c.Deny != "" && c.Deny == s.fs.DenyFingerprint()
	if s.denyOK {
		s.digests, s.indexed = c.Listing, c.Indexed
	}
	for t, m := range c.DirMtimes {
		s.dirMtimes[t] = m
	}
}

// saveCheck records the last full check and the folders' mtimes for the
// next Service. A failure only costs the next one a full check.
func (s *Service) saveCheck() {
	if s.checkFile == "" || s.lastFull.IsZero() {
		return
	}
	c := check{Dir: s.rel, LastFull: s.lastFull.UnixNano(), DirMtimes: s.dirMtimes, Format: checkFormat}
	if s.denyOK {
		c.Deny = s.fs.DenyFingerprint()
		c.Listing, c.Indexed = s.digests, s.indexed
	}
	b, err := json.Marshal(c)
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(s.checkFile), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.checkFile), ".check-*")
	if err != nil {
		return
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), s.checkFile)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}

func joinWarning(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
