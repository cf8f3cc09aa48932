package sqlite

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/retrieve-dev/retrieve/store"
	"golang.org/x/mod/sumdb/tlog"
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

// A store made by the binary before ledger migration 6 (leaves in
// ledger_leaves): migration 5 builds the leaves of its entries in id
// (time) order; then one entry is deleted by gc (a tombstone), one by hand
// (its leaf stays, unmarked), and a checkpoint is taken. Migration 6 moves
// the leaves into the entries' rows: the log hashes to the same root, the
// audit against that checkpoint is clean but for the entry deleted by
// hand, named as before, and appends continue at the next position.
func TestLeavesMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "retrieve.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx, "ledger", ledgerMigrations[:4]); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, target := range []string{"a.txt", "b.txt", "c.txt", "d.txt", "e.txt"} {
		e := journalEntry(target)
		if _, err := db.db.Exec(`INSERT INTO ledger (`+entryColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, entryArgs(e)...); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	if err := db.Migrate(ctx, "ledger", ledgerMigrations[:5]); err != nil {
		t.Fatal(err)
	}
	// gc of ids[1] (the old store's way), a hand delete of ids[3].
	for _, q := range []string{`UPDATE ledger_leaves SET tombstone = 1 WHERE id = ?`, `DELETE FROM ledger WHERE id = ?`} {
		if _, err := db.db.Exec(q, ids[1]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.db.Exec(`DELETE FROM ledger WHERE id = ?`, ids[3]); err != nil {
		t.Fatal(err)
	}
	var old []tlog.Hash
	rows, err := db.db.Query(`SELECT hash FROM ledger_leaves ORDER BY idx`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var h []byte
		if err := rows.Scan(&h); err != nil {
			t.Fatal(err)
		}
		old = append(old, tlog.Hash(h))
	}
	rows.Close()
	tree, err := ledger.NewTree(old)
	if err != nil {
		t.Fatal(err)
	}
	root, err := tree.Root(tree.Size())
	if err != nil {
		t.Fatal(err)
	}
	last := &ledger.Checkpoint{Origin: "test", Size: tree.Size(), Root: root, Time: time.Now()}
	db.Close()

	s, err := OpenStore(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var leafTables int
	if err := s.db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'ledger_leaves'`).Scan(&leafTables); err != nil || leafTables != 0 {
		t.Fatalf("ledger_leaves still there (%d, %v)", leafTables, err)
	}
	if err := s.Append(ctx, journalEntry("f.txt")); err != nil {
		t.Fatal(err)
	}
	rep, err := ledger.AuditLog(ctx, s, last)
	if err != nil {
		t.Fatal(err)
	}
	want := []ledger.Finding{{Kind: ledger.Removed, Index: 3, ID: ids[3]}}
	if len(rep.Findings) != 1 || rep.Findings[0].Kind != want[0].Kind || rep.Findings[0].Index != 3 || rep.Findings[0].ID != ids[3] {
		t.Fatalf("findings %+v, want %+v", rep.Findings, want)
	}
	if rep.Size != 6 || rep.Tombstones != 1 {
		t.Errorf("size %d, tombstones %d; want 6 and 1", rep.Size, rep.Tombstones)
	}
	leaves, err := s.Leaves(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range leaves {
		if l.Index != int64(i) {
			t.Fatalf("leaf %d has index %d", i, l.Index)
		}
		if i < len(old) && l.Hash != old[i] {
			t.Errorf("leaf %d changed in the migration", i)
		}
		if i < len(ids) && l.ID != ids[i] {
			t.Errorf("leaf %d is %s, want %s (id order)", i, l.ID, ids[i])
		}
	}
}

// gc keeps the leaves of what it deletes as tombstones; an entry brought
// back (store copy) takes its position and leaf again; a delete by hand
// leaves its leaf unmarked (the trigger), which audit names.
func TestLeavesTombstones(t *testing.T) {
	ctx := context.Background()
	s, err := OpenStore(ctx, filepath.Join(t.TempDir(), "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var es []*store.Entry
	for i, target := range []string{"a.txt", "b.txt", "c.txt", "d.txt"} {
		e := journalEntry(target)
		e.Time = e.Time.Add(time.Duration(i) * time.Hour)
		if err := s.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
	if n, err := s.DeleteEntriesBefore(ctx, es[2].Time); err != nil || n != 2 {
		t.Fatalf("gc: %d, %v", n, err)
	}
	leaves := auditStore(t, s, 4)
	if !leaves[0].Tombstone || !leaves[1].Tombstone || leaves[2].Tombstone {
		t.Fatalf("tombstones: %+v", leaves)
	}
	if n, err := s.ImportEntries(ctx, es[:1]); err != nil || n != 1 {
		t.Fatalf("import: %d, %v", n, err)
	}
	if err := s.Append(ctx, journalEntry("e.txt")); err != nil {
		t.Fatal(err)
	}
	leaves = auditStore(t, s, 5)
	if leaves[0].ID != es[0].ID || leaves[0].Tombstone || !leaves[1].Tombstone {
		t.Fatalf("after the restore: %+v", leaves[:2])
	}
	if _, err := s.db.Exec(`DELETE FROM ledger WHERE id = ?`, es[3].ID); err != nil {
		t.Fatal(err)
	}
	rep, err := ledger.AuditLog(ctx, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Kind != ledger.Removed || rep.Findings[0].Index != 3 || rep.Findings[0].ID != es[3].ID {
		t.Fatalf("findings %+v, want removed 3 %s", rep.Findings, es[3].ID)
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
