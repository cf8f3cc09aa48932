package sqlite

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/retrieve-dev/retrieve/store"
)

// auditStore audits s's log against its entries and wants it consistent
// with n leaves at positions 0…n-1.
func auditStore(t *testing.T, s *Store, n int) []ledger.Leaf {
	t.Helper()
	ctx := context.Background()
	leaves, err := s.Leaves(ctx)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := s.Entries(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(leaves) != n {
		t.Fatalf("got %d leaves, want %d", len(leaves), n)
	}
	for i, l := range leaves {
		if l.Index != int64(i) {
			t.Fatalf("leaf %d has index %d", i, l.Index)
		}
	}
	rep, err := ledger.Audit(leaves, entries, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Consistent {
		t.Fatalf("audit: %+v", rep.Findings)
	}
	return leaves
}

// Entries appended through the journal get their leaves when it is folded,
// once however often a record is folded.
func TestLeavesOfJournalFold(t *testing.T) {
	if !canLock {
		t.Skip("no flock on this platform: the journal is off")
	}
	s := openJournaled(t, filepath.Join(t.TempDir(), ".retrieve", "retrieve.db"), 0)
	ctx := context.Background()
	for _, target := range []string{"a.txt", "b.txt", "c.txt"} {
		if err := s.Append(ctx, journalEntry(target)); err != nil {
			t.Fatal(err)
		}
	}
	auditStore(t, s, 3)
	if err := s.sync(ctx); err != nil { // a second fold adds nothing
		t.Fatal(err)
	}
	auditStore(t, s, 3)
}

// Concurrent appends (group commits) take distinct positions, 0…n-1.
func TestLeavesOfConcurrentAppends(t *testing.T) {
	s, err := OpenStore(context.Background(), filepath.Join(t.TempDir(), "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Append(context.Background(), journalEntry("f.txt")); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	auditStore(t, s, 40)
}

// Migration 5 builds the leaves of the entries a store had before it, in
// id (time) order.
func TestLeavesMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "retrieve.db")
	s, err := OpenStore(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"a.txt", "b.txt", "c.txt", "d.txt"} {
		if err := s.Append(context.Background(), journalEntry(target)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.db.Exec(`DROP TABLE ledger_leaves; DELETE FROM schema_migrations WHERE component = 'ledger' AND version = 5`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = OpenStore(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	leaves := auditStore(t, s, 4)
	for i := 1; i < len(leaves); i++ {
		if leaves[i-1].ID >= leaves[i].ID {
			t.Errorf("leaf %d (%s) is not after leaf %d (%s)", i, leaves[i].ID, i-1, leaves[i-1].ID)
		}
	}
}

// Two handles on one file (as two processes) alternate appends: each one's
// remembered next position goes stale and is read again, and the log has
// no gap and no shared position.
func TestLeavesOfTwoWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "retrieve.db")
	var handles []*Store
	for i := 0; i < 2; i++ {
		s, err := OpenStore(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		handles = append(handles, s)
	}
	for i := 0; i < 10; i++ {
		if err := handles[i%2].Append(context.Background(), journalEntry("f.txt")); err != nil {
			t.Fatal(err)
		}
	}
	auditStore(t, handles[0], 10)
}
