package memory_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// watchedMemory is a memory folder with one note (semantic/alpha.md, "the
// walrus sleeps") and a Service on a real SQLite index whose full checks
// are an hour apart: only the watcher can make it see an in-place edit.
func watchedMemory(t *testing.T) (root string, s *memory.Service, count func(q string) int) {
	t.Helper()
	ctx := context.Background()
	root = t.TempDir()
	for _, tier := range memory.Tiers {
		if err := os.MkdirAll(filepath.Join(root, "memory", tier), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "memory", "semantic", "alpha.md"), []byte(note("sem-20260416-001", "Alpha", "the walrus sleeps")), 0o644); err != nil {
		t.Fatal(err)
	}
	// Everything settled long ago (past the racy window, in which a sweep
	// rereads a folder or a note whatever its mtime says).
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{"memory/semantic/alpha.md", "memory/semantic", "memory/episodic", "memory/procedural"} {
		if err := os.Chtimes(filepath.Join(root, p), old, old); err != nil {
			t.Fatal(err)
		}
	}
	idx, err := sqlite.OpenMemoryIndex(ctx, filepath.Join(root, ".retrieve", "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	s, err = memory.New(memory.Options{Root: root, Index: idx, FullCheckInterval: time.Hour,
		CheckFile: filepath.Join(root, ".retrieve", "cache", "memory-check.json")})
	if err != nil {
		t.Fatal(err)
	}
	count = func(q string) int {
		t.Helper()
		res, _, err := s.Overview(ctx, memory.OverviewInput{Target: q, Depth: memory.DepthShallow})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.SourceMap)
	}
	return root, s, count
}

// editInPlace rewrites a note with text of the same size and puts its
// mtime back: nothing a stat sweep compares has moved.
func editInPlace(t *testing.T, path, from, to string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	nb := []byte(string(b[:len(b)-len(from)-1]) + to + "\n")
	if len(from) != len(to) || string(b[len(b)-len(from)-1:len(b)-1]) != from {
		t.Fatalf("bad edit of %s", path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(nb); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if nfi, _ := os.Stat(path); nfi.Size() != fi.Size() || !nfi.ModTime().Equal(fi.ModTime()) {
		t.Fatal("the edit moved the size or the mtime")
	}
}

func TestWatchSeesEditsAtOnce(t *testing.T) {
	root, s, count := watchedMemory(t)
	stop, err := s.Watch()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if n := count("walrus"); n != 1 {
		t.Fatalf("walrus: %d", n)
	}
	alpha := filepath.Join(root, "memory", "semantic", "alpha.md")
	// In place, same size, same mtime: only the watcher can tell.
	editInPlace(t, alpha, "the walrus sleeps", "the narwhal naps!")
	if n := count("narwhal"); n != 1 {
		t.Fatalf("an in-place edit was not seen by the next search (%d hits)", n)
	}
	if n := count("walrus"); n != 0 {
		t.Fatalf("the old text is still found (%d)", n)
	}
	// A new note, in another tier; then a removed one.
	if err := os.WriteFile(filepath.Join(root, "memory", "procedural", "beta.md"), []byte(note("proc-20260416-001", "Beta", "the octopus hides")), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := count("octopus"); n != 1 {
		t.Fatalf("a new note was not seen (%d)", n)
	}
	if err := os.Remove(alpha); err != nil {
		t.Fatal(err)
	}
	if n := count("narwhal"); n != 0 {
		t.Fatalf("a removed note is still found (%d)", n)
	}
	// A tier folder made after the watcher started is watched too.
	if err := os.RemoveAll(filepath.Join(root, "memory", "episodic")); err != nil {
		t.Fatal(err)
	}
	count("octopus")
	if err := os.MkdirAll(filepath.Join(root, "memory", "episodic"), 0o755); err != nil {
		t.Fatal(err)
	}
	count("octopus")
	epi := filepath.Join(root, "memory", "episodic", "gamma.md")
	if err := os.WriteFile(epi, []byte(note("epi-20260416-001", "Gamma", "the squid waits")), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := count("squid"); n != 1 {
		t.Fatalf("a note of a new tier folder was not seen (%d)", n)
	}
	editInPlace(t, epi, "the squid waits", "the crab scuttl")
	if n := count("crab"); n != 1 {
		t.Fatalf("an in-place edit in a new tier folder was not seen (%d)", n)
	}
	if !s.Watching() {
		t.Fatal("the watcher stopped")
	}
	// The memory folder is never written: the cookies go to the state
	// folder, and are removed.
	ents, err := os.ReadDir(filepath.Join(root, ".retrieve", "cache"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "memory-check.json" {
			t.Errorf("left in the state folder: %s", e.Name())
		}
	}
}

// A watcher that cannot start leaves the Service on its full checks.
func TestWatchCannotStart(t *testing.T) {
	defer memory.SetNewWatcher(func() (*fsnotify.Watcher, error) {
		return nil, errors.New("too many open files (inotify max_user_instances)")
	})()
	root, s, count := watchedMemory(t)
	if _, err := s.Watch(); err == nil {
		t.Fatal("Watch did not report the failure")
	}
	if s.Watching() {
		t.Fatal("the Service relies on a watcher that did not start")
	}
	if n := count("walrus"); n != 1 {
		t.Fatalf("walrus: %d", n)
	}
	// Without the watcher, an in-place edit waits for the full check:
	// not seen within the hour this Service was given.
	editInPlace(t, filepath.Join(root, "memory", "semantic", "alpha.md"), "the walrus sleeps", "the narwhal naps!")
	if n := count("narwhal"); n != 0 {
		t.Fatalf("without a watcher and within the bound, the edit is seen (%d): this test does not test the fallback", n)
	}
}

// A watcher that fails while it runs (an error from the kernel) is
// dropped, and the next query makes a full check.
func TestWatchFailsLater(t *testing.T) {
	root, s, count := watchedMemory(t)
	stop, err := s.Watch()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if n := count("walrus"); n != 1 {
		t.Fatalf("walrus: %d", n)
	}
	// An overflow keeps the watcher (every folder is listed again).
	s.WatcherErrors() <- fsnotify.ErrEventOverflow
	if n := count("walrus"); n != 1 || !s.Watching() {
		t.Fatalf("after an overflow: %d hits, watching %v", n, s.Watching())
	}
	s.WatcherErrors() <- errors.New("the watched file system went away")
	alpha := filepath.Join(root, "memory", "semantic", "alpha.md")
	write := func(body string, mtime time.Time) {
		t.Helper()
		if err := os.WriteFile(alpha, []byte(note("sem-20260416-001", "Alpha", body)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(alpha, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	write("the narwhal naps", time.Now().Add(-time.Hour))
	if n := count("narwhal"); n != 1 {
		t.Fatalf("an edit made as the watcher failed is not seen (%d)", n)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.Watching() && time.Now().Before(deadline) {
		count("narwhal")
	}
	if s.Watching() {
		t.Fatal("the failed watcher is still used")
	}
	// Back on the full checks an hour apart: an in-place edit (the mtime
	// moved, the folder's did not) waits for the next one.
	write("the octopus hide", time.Now().Add(-2*time.Hour))
	if n := count("octopus"); n != 0 {
		t.Fatalf("octopus seen %d times: the fallback is not the interval's full check", n)
	}
}

// When the state folder for the cookies goes away, the watcher is dropped;
// the full check that follows still reads again what it had seen change.
func TestWatchLosesItsCookies(t *testing.T) {
	root, s, count := watchedMemory(t)
	stop, err := s.Watch()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if n := count("walrus"); n != 1 {
		t.Fatalf("walrus: %d", n)
	}
	alpha := filepath.Join(root, "memory", "semantic", "alpha.md")
	editInPlace(t, alpha, "the walrus sleeps", "the narwhal naps!")
	// Let the watcher record the edit before its cookies fail.
	time.Sleep(200 * time.Millisecond)
	if err := os.RemoveAll(filepath.Join(root, ".retrieve", "cache")); err != nil {
		t.Fatal(err)
	}
	if n := count("narwhal"); n != 1 {
		t.Fatalf("the edit the watcher saw was lost when it failed (%d hits)", n)
	}
	if s.Watching() {
		t.Fatal("a watcher that cannot sync is still used")
	}
}
