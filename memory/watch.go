package memory

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/retrieve-dev/retrieve"
)

// A long-lived Service (serve) can watch its memory folder (Watch): the
// kernel (inotify, kqueue, ReadDirectoryChangesW) reports every note
// created, written, touched, renamed or removed, so that a query re-reads
// those notes alone and no periodic stat sweep of every note is needed.
//
// The events of a file system reach the watcher's goroutine a little after
// the change that made them. So that a query sees every change made before
// it started, it first creates a cookie file in the store's state folder
// (.retrieve/cache, watched too) and waits for its event: the kernel keeps
// one ordered queue per watcher, so once the cookie's event is read, so are
// the events of every change made before it (watchman's "cookie" sync).
// The memory folder itself is never written.
//
// When the watcher cannot start (inotify's max_user_instances or
// max_user_watches reached, a file system without notifications) or fails
// later (its queue overflowed and was reset, the memory folder was removed
// or renamed), the Service goes back to the full checks every
// FullCheckInterval, starting with one.

// newWatcher makes the file watcher; a test replaces it.
var newWatcher = fsnotify.NewWatcher

// syncTimeout bounds the wait for a query's cookie event; past it the
// query does a full check instead.
const syncTimeout = 2 * time.Second

// watchers numbers the watchers of this process (their cookie names).
var watchers atomic.Uint64

type watcher struct {
	fw        *fsnotify.Watcher
	dir       string // the memory folder, absolute
	cookieDir string
	prefix    string // this watcher's cookie names
	done      chan struct{}
	stopOnce  sync.Once

	mu      sync.Mutex
	paths   map[string]bool // memory-relative note paths changed
	tiers   map[string]bool // tier folders to list again
	err     error           // why the watcher stopped being trustworthy
	seq     uint64          // the last cookie made
	waiters map[uint64]chan struct{}
}

// Watch starts watching the memory folder's tier folders for changes; the
// Service then brings the index up to date from the changes alone and
// stops its periodic full checks while the watcher works. It needs the
// index and the CheckFile's folder (where the sync cookies are made). The
// first query after Watch makes a full check (what changed before the
// watcher started is not in its events). stop ends the watcher. An error
// leaves the Service as it was: it keeps its full checks every
// FullCheckInterval.
func (s *Service) Watch() (stop func(), err error) {
	if s.index == nil || s.checkFile == "" {
		return nil, retrieve.Errorf(retrieve.CodeStoreUnavailable, "the memory watcher needs the index and its state folder").
			WithHint("open the memory service with an index and a CheckFile")
	}
	if fi, err := s.fs.Lstat(s.rel); err != nil || !fi.IsDir() {
		return nil, retrieve.Errorf(retrieve.CodePathNotFound, "the memory folder %s is not a folder to watch", s.rel).
			WithHint("run retrieve memory init, then restart the server")
	}
	cookieDir := filepath.Dir(s.checkFile)
	if err := os.MkdirAll(cookieDir, 0o755); err != nil {
		return nil, retrieve.Errorf(retrieve.CodeWriteFailed, "cannot create %s for the memory watcher", cookieDir).WithErr(err)
	}
	fw, err := newWatcher()
	if err != nil {
		return nil, watchErr(err)
	}
	w := &watcher{fw: fw, dir: s.dir, cookieDir: cookieDir, done: make(chan struct{}),
		prefix: fmt.Sprintf(".memory-cookie-%d-%d-", os.Getpid(), watchers.Add(1)),
		paths:  map[string]bool{}, tiers: map[string]bool{}, waiters: map[uint64]chan struct{}{}}
	// The memory folder (tier folders made, removed, renamed), the state
	// folder (cookies), and each tier folder that is a real folder (a link
	// could lead out of the workspace; the full checks still read it).
	adds := []string{s.dir, cookieDir}
	for _, t := range Tiers {
		if fi, err := s.fs.Lstat(s.name(t)); err == nil && fi.IsDir() {
			adds = append(adds, filepath.Join(s.dir, t))
		}
	}
	for _, p := range adds {
		if err := fw.Add(p); err != nil {
			fw.Close()
			return nil, watchErr(err)
		}
	}
	go w.run(s)
	s.mu.Lock()
	if s.watch != nil {
		s.watch.stop()
	}
	s.watch = w
	s.lastFull = time.Time{} // a full check under the watcher
	s.mu.Unlock()
	return func() {
		w.stop()
		s.mu.Lock()
		if s.watch == w {
			s.watch = nil
		}
		s.mu.Unlock()
	}, nil
}

func watchErr(err error) error {
	return retrieve.Errorf(retrieve.CodeSearchError, "cannot watch the memory folder: %v", err).
		WithHint("the server checks every note every 2 s instead; on Linux, raise fs.inotify.max_user_watches or max_user_instances (sysctl) to use the watcher").
		WithErr(err)
}

func (w *watcher) stop() {
	w.stopOnce.Do(func() {
		w.fw.Close()
		<-w.done
	})
}

func (w *watcher) run(s *Service) {
	defer close(w.done)
	for {
		select {
		case ev, ok := <-w.fw.Events:
			if !ok {
				w.fail(errors.New("the watcher was closed"))
				return
			}
			w.event(s, ev)
		case err, ok := <-w.fw.Errors:
			if !ok {
				w.fail(errors.New("the watcher was closed"))
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.overflow()
				continue
			}
			w.fail(err)
		}
	}
}

// event records what an event says changed.
func (w *watcher) event(s *Service, ev fsnotify.Event) {
	dir, base := filepath.Dir(ev.Name), filepath.Base(ev.Name)
	switch {
	case dir == w.cookieDir:
		if n, ok := strings.CutPrefix(base, w.prefix); ok && ev.Has(fsnotify.Create) {
			if seq, err := strconv.ParseUint(n, 10, 64); err == nil {
				w.release(seq)
			}
		}
	case ev.Name == w.dir:
		if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
			w.fail(fmt.Errorf("the memory folder %s was removed or renamed", w.dir))
		}
	case dir == w.dir:
		// A tier folder made, removed or renamed (or touched): list it
		// again, and watch it when it is (again) a real folder.
		if !ValidTier(base) {
			return
		}
		w.mu.Lock()
		w.tiers[base] = true
		w.mu.Unlock()
		if ev.Has(fsnotify.Create) {
			if fi, err := s.fs.Lstat(s.name(base)); err == nil && fi.IsDir() {
				if err := w.fw.Add(ev.Name); err != nil {
					w.fail(err)
				}
			}
		}
	case filepath.Dir(dir) == w.dir && ValidTier(filepath.Base(dir)):
		if !strings.HasSuffix(base, ".md") || strings.HasPrefix(base, ".") {
			return // the keeper's temp files, editors' swap files
		}
		w.mu.Lock()
		w.paths[filepath.Base(dir)+"/"+base] = true
		w.mu.Unlock()
	}
}

// fail marks the watcher untrustworthy: an event may have been lost. A
// queue overflow is one; the Service then goes back to full checks.
func (w *watcher) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	for _, ch := range w.waiters {
		close(ch)
	}
	clear(w.waiters)
	w.mu.Unlock()
}

// overflow: the kernel dropped events. Every tier folder is listed and
// every note compared again (a full check), and the queries waiting for
// a cookie that may be lost go on (they make that check).
func (w *watcher) overflow() {
	w.mu.Lock()
	for _, t := range Tiers {
		w.tiers[t] = true
	}
	for _, ch := range w.waiters {
		close(ch)
	}
	clear(w.waiters)
	w.mu.Unlock()
}

func (w *watcher) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// release wakes the queries waiting for cookies up to seq.
func (w *watcher) release(seq uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for n, ch := range w.waiters {
		if n <= seq {
			close(ch)
			delete(w.waiters, n)
		}
	}
}

// sync makes a cookie and waits for its event: then every change made
// before the call has been recorded. It reports false when the event did
// not come (the watcher failed, or took longer than syncTimeout).
func (w *watcher) sync() bool {
	w.mu.Lock()
	if w.err != nil {
		w.mu.Unlock()
		return false
	}
	w.seq++
	seq := w.seq
	ch := make(chan struct{})
	w.waiters[seq] = ch
	w.mu.Unlock()
	name := filepath.Join(w.cookieDir, w.prefix+strconv.FormatUint(seq, 10))
	f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err == nil {
		f.Close()
		defer os.Remove(name)
	} else {
		// Without cookies no query can know it saw every change: the
		// watcher is of no use (the state folder removed, a full disk).
		w.fail(fmt.Errorf("cannot make a sync cookie: %w", err))
	}
	if err == nil {
		timer := time.NewTimer(syncTimeout)
		defer timer.Stop()
		select {
		case <-ch:
			return w.failed() == nil
		case <-timer.C:
		}
	}
	w.mu.Lock()
	delete(w.waiters, seq)
	w.mu.Unlock()
	return false
}

// take returns and forgets what changed since the last take.
func (w *watcher) take() (paths []string, tiers map[string]bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for p := range w.paths {
		paths = append(paths, p)
	}
	clear(w.paths)
	tiers = w.tiers
	w.tiers = map[string]bool{}
	return paths, tiers
}
