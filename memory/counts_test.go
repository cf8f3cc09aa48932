package memory_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// TestCountsGoOnFromTheLastCheck: a new process counts the notes from the
// index as of the last full check, however old (a note edited in place
// since counts with its tags of then, and the counts say when that check
// was); a note added since is counted at once (the tier folder's mtime);
// a search's full check then counts the edit.
func TestCountsGoOnFromTheLastCheck(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	sem := filepath.Join(root, "memory", "semantic")
	for _, tier := range memory.Tiers {
		if err := os.MkdirAll(filepath.Join(root, "memory", tier), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour) // past the racy window, the same for both writes
	write := func(tags string) {
		t.Helper()
		body := strings.Replace(note("sem-20260416-001", "Alpha", "the walrus sleeps"), "tags: []", "tags: "+tags, 1)
		if err := os.WriteFile(filepath.Join(sem, "alpha.md"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(filepath.Join(sem, "alpha.md"), old, old); err != nil {
			t.Fatal(err)
		}
		for _, tier := range memory.Tiers {
			if err := os.Chtimes(filepath.Join(root, "memory", tier), old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(`["old"]`)
	idx, err := sqlite.OpenMemoryIndex(ctx, filepath.Join(root, ".retrieve", "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	check := filepath.Join(root, ".retrieve", "cache", "memory-check.json")
	first := time.Now()
	counts := func(now time.Time) *memory.Counts {
		t.Helper()
		s, err := memory.New(memory.Options{Root: root, Index: idx, FullCheckInterval: 10 * time.Second, CheckFile: check, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		c, ok, err := s.Counts(ctx)
		if !ok || err != nil {
			t.Fatalf("counts: %v %v", ok, err)
		}
		return c
	}
	if c := counts(first); c.Notes != 1 || c.ByTag["old"] != 1 || !c.CheckedAt.IsZero() {
		t.Fatalf("first counts %+v", c)
	}
	write(`["new"]`) // in place: the folder's mtime is as it was
	if c := counts(first.Add(11 * time.Second)); c.ByTag["old"] != 1 || c.CheckedAt.UnixNano() != first.UnixNano() {
		t.Fatalf("eleven seconds later: %+v, want the tags of the last full check and its time", c)
	}
	later := first.Add(30 * 24 * time.Hour)
	if c := counts(later); c.ByTag["old"] != 1 || c.ByTag["new"] != 0 || c.CheckedAt.UnixNano() != first.UnixNano() {
		t.Fatalf("a month later: %+v, want the tags of the last full check and its time", c)
	}
	if err := os.WriteFile(filepath.Join(sem, "beta.md"), []byte(note("sem-20260416-002", "Beta", "the seal swims")), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := counts(later); c.Notes != 2 {
		t.Fatalf("a note added: %+v, want it counted", c)
	}
	s, err := memory.New(memory.Options{Root: root, Index: idx, FullCheckInterval: 10 * time.Second, CheckFile: check, Now: func() time.Time { return later }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Refresh(ctx, nil); err != nil { // what a search runs first
		t.Fatal(err)
	}
	if c := counts(later.Add(time.Second)); c.ByTag["new"] != 1 || c.ByTag["old"] != 0 || !c.CheckedAt.IsZero() {
		t.Fatalf("after a search's full check: %+v, want the edit counted", c)
	}
}
