package memory_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/sqlite"
	"github.com/retrieve-dev/retrieve/workspace"
)

// countingIndex counts the loads of every note's state, the sweep a
// query must not need.
type countingIndex struct {
	memory.Index
	loads int
}

func (c *countingIndex) MemoryStates(ctx context.Context, dir string) (map[string]memory.FileState, error) {
	c.loads++
	return c.Index.MemoryStates(ctx, dir)
}

func note(id, title, body string) string {
	return "---\nmemory_entry_id: " + id + "\ntitle: \"" + title + "\"\nmemory_type: semantic\ntags: []\nmetadata: {}\ncreated: \"2026-04-16T10:30:00Z\"\nupdated: \"2026-04-16T10:30:00Z\"\n---\n\n# " + title + "\n\n" + body + "\n"
}

// TestFreshnessAcrossRuns: each CLI run is a new Service. With a check
// file, a run within the bound of the last full check reads only the
// index; a note added (the folder changes) is seen at once; a note edited
// in place, within the bound. Without one, every run checks every file.
func TestFreshnessAcrossRuns(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	sem := filepath.Join(root, "memory", "semantic")
	for _, tier := range memory.Tiers {
		if err := os.MkdirAll(filepath.Join(root, "memory", tier), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(sem, "alpha.md"), []byte(note("sem-20260416-001", "Alpha", "the walrus sleeps")), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	settle := func() { // the folders changed long ago: past the racy window
		t.Helper()
		for _, tier := range memory.Tiers {
			if err := os.Chtimes(filepath.Join(root, "memory", tier), old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	settle()
	base, err := sqlite.OpenMemoryIndex(ctx, filepath.Join(root, ".retrieve", "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	check := filepath.Join(root, ".retrieve", "cache", "memory-check.json")
	now := time.Now()
	run := func(query string, checkFile string) (*countingIndex, int) {
		t.Helper()
		idx := &countingIndex{Index: base}
		s, err := memory.New(memory.Options{Root: root, Index: idx, FullCheckInterval: 10 * time.Second, CheckFile: checkFile, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		res, _, err := s.Overview(ctx, memory.OverviewInput{Target: query})
		if err != nil {
			t.Fatal(err)
		}
		return idx, len(res.SourceMap)
	}
	if _, n := run("walrus", check); n != 1 {
		t.Fatalf("first run found %d notes", n)
	}
	idx, n := run("walrus", check)
	if n != 1 || idx.loads != 0 {
		t.Fatalf("second run: %d notes, %d state loads; want 1 note and no sweep", n, idx.loads)
	}
	// A new note changes the folder: seen by the next run at once.
	if err := os.WriteFile(filepath.Join(sem, "beta.md"), []byte(note("sem-20260416-002", "Beta", "the narwhal swims")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, n := run("narwhal", check); n != 1 {
		t.Fatalf("a new note was not found by the next run (%d)", n)
	}
	settle()
	run("narwhal", check) // records the settled folder mtimes
	// A note edited in place leaves the folder as it was: within the bound
	// the run does not look; past it, it does.
	if err := os.WriteFile(filepath.Join(sem, "alpha.md"), []byte(note("sem-20260416-001", "Alpha", "the octopus hides")), 0o644); err != nil {
		t.Fatal(err)
	}
	settle()
	if idx, n := run("octopus", check); n != 0 || idx.loads != 0 {
		t.Fatalf("within the bound: %d notes, %d loads; the documented staleness is that it is not seen yet", n, idx.loads)
	}
	if _, n := run("octopus", ""); n != 1 {
		t.Fatalf("a run without a check file checks every file, found %d", n)
	}
	if err := os.WriteFile(filepath.Join(sem, "alpha.md"), []byte(note("sem-20260416-001", "Alpha", "the squid waits")), 0o644); err != nil {
		t.Fatal(err)
	}
	settle()
	now = now.Add(11 * time.Second)
	if _, n := run("squid", check); n != 1 {
		t.Fatalf("past the bound the in-place edit was not seen (%d)", n)
	}
}

// countedIndex is an IndexCounter that counts the loads of every note's
// state.
type countedIndex struct {
	*sqlite.MemoryIndex
	loads int
}

func (c *countedIndex) MemoryStates(ctx context.Context, dir string) (map[string]memory.FileState, error) {
	c.loads++
	return c.MemoryIndex.MemoryStates(ctx, dir)
}

// TestFullCheckFromTheListing: a run past the bound lists every note;
// when the listing (names, sizes, mtimes, ctimes) is the one the index was
// last made true to, it reads no row. An in-place edit that keeps the size
// and the mtime still changes the ctime and is seen; an index emptied
// behind the check file's back is rebuilt; a note a new deny pattern
// refuses leaves the index.
func TestFullCheckFromTheListing(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	sem := filepath.Join(root, "memory", "semantic")
	for _, tier := range memory.Tiers {
		if err := os.MkdirAll(filepath.Join(root, "memory", tier), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	alpha := filepath.Join(sem, "alpha.md")
	for p, n := range map[string]string{alpha: note("sem-20260416-001", "Alpha", "the walrus sleeps"), filepath.Join(sem, "beta.md"): note("sem-20260416-002", "Beta", "the narwhal swims")} {
		if err := os.WriteFile(p, []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base, err := sqlite.OpenMemoryIndex(ctx, filepath.Join(root, ".retrieve", "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	check := filepath.Join(root, ".retrieve", "cache", "memory-check.json")
	// Every run makes the full check; the writes are past the racy window
	// once settled.
	defer memory.SetRacyWindow(50 * time.Millisecond)()
	settle := func() { time.Sleep(60 * time.Millisecond) }
	settle()
	run := func(ws *workspace.FS, query string) (loads, found int) {
		t.Helper()
		idx := &countedIndex{MemoryIndex: base}
		s, err := memory.New(memory.Options{Root: root, FS: ws, Index: idx, FullCheckInterval: -1, CheckFile: check})
		if err != nil {
			t.Fatal(err)
		}
		res, _, err := s.Overview(ctx, memory.OverviewInput{Target: query})
		if err != nil {
			t.Fatal(err)
		}
		return idx.loads, len(res.SourceMap)
	}
	if _, n := run(nil, "walrus"); n != 1 {
		t.Fatalf("first run found %d notes", n)
	}
	if loads, n := run(nil, "walrus"); loads != 0 || n != 1 {
		t.Fatalf("an unchanged folder: %d state loads, %d notes; want 0 and 1", loads, n)
	}
	// Same size, same mtime, new words: only the ctime tells.
	fi, err := os.Stat(alpha)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alpha, []byte(note("sem-20260416-001", "Alpha", "the walrus sweeps")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(alpha, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	settle()
	if loads, n := run(nil, "sweeps"); loads != 1 || n != 1 {
		t.Fatalf("an in-place edit keeping size and mtime: %d loads, %d notes; want 1 and 1", loads, n)
	}
	// The index emptied behind the check file's back (a migration).
	if err := base.MemoryReset(ctx, "memory"); err != nil {
		t.Fatal(err)
	}
	if _, n := run(nil, "narwhal"); n != 1 {
		t.Fatalf("an emptied index was not rebuilt (%d notes)", n)
	}
	// A deny pattern added: the note it refuses is dropped by the next
	// full check, although its listing did not change.
	ws, err := workspace.Open(root, []string{"beta.md"})
	if err != nil {
		t.Fatal(err)
	}
	if _, n := run(ws, "narwhal"); n != 0 {
		t.Fatalf("a note the deny list refuses is still found (%d)", n)
	}
}
