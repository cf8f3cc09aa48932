package postgres_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/postgres"
)

// twoReplicas opens two stores on one database, as two replicas of serve.
func twoReplicas(t *testing.T) (a, b *postgres.Store) {
	t.Helper()
	u := pgtest.URL(t, "gc_replica")
	var err error
	if a, err = postgres.OpenStore(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	if b, err = postgres.OpenStore(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return a, b
}

// TestAppendSeesGCOfAnotherReplica: replica a stores a snapshot and
// remembers it (no look-up when it cites it); replica b's gc drops it. The
// append of a that cites it is refused with store.ErrSnapshotGone, records
// nothing, and a asks the database again afterwards.
func TestAppendSeesGCOfAnotherReplica(t *testing.T) {
	ctx := context.Background()
	a, b := twoReplicas(t)
	data := []byte("bytes that replica b's gc drops")
	h := hashOf(data)
	if err := a.PutSnapshot(ctx, h, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if n, err := b.DeleteUnreferencedSnapshots(ctx); err != nil || n != 1 {
		t.Fatalf("gc of replica b dropped %d (%v), want 1", n, err)
	}
	if ok, err := a.HasSnapshot(ctx, h); err != nil || !ok {
		t.Fatalf("replica a answers %v, %v from what it saw; want true (no look-up)", ok, err)
	}

	e := newEntry("gone.md")
	e.Snapshot = h
	err := a.Append(ctx, e)
	if !errors.Is(err, store.ErrSnapshotGone) || retrieve.AsError(err).Code != retrieve.CodeNotFound {
		t.Fatalf("append citing a dropped snapshot: %v, want NOT_FOUND wrapping ErrSnapshotGone", err)
	}
	if _, err := b.Entry(ctx, e.ID); retrieve.AsError(err).Code != retrieve.CodeNotFound {
		t.Fatalf("the refused entry was recorded: %v", err)
	}
	if ok, err := a.HasSnapshot(ctx, h); err != nil || ok {
		t.Fatalf("after the refusal replica a answers %v, %v; want false", ok, err)
	}
	// The same entry without the snapshot is recorded, at the next
	// position of the log.
	e.Snapshot = ""
	if err := a.Append(ctx, e); err != nil {
		t.Fatal(err)
	}
	var next int64
	if err := a.Pool().QueryRow(ctx, `SELECT next FROM ledger_log`).Scan(&next); err != nil || next != 1 {
		t.Fatalf("the log's next position is %d (%v), want 1: the refusal must take no position", next, err)
	}

	// A batch (concurrent appends) with one entry citing a dropped
	// snapshot: that one is refused, the others recorded.
	if err := a.PutSnapshot(ctx, h, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.DeleteUnreferencedSnapshots(ctx); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 64)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := newEntry(fmt.Sprintf("batch/%d.md", i))
			if i == 7 {
				e.Snapshot = h
			}
			errs[i] = a.Append(ctx, e)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if (i == 7) != errors.Is(err, store.ErrSnapshotGone) || i != 7 && err != nil {
			t.Errorf("append %d: %v", i, err)
		}
	}
	assertNoEntryCitesAMissingSnapshot(t, a)
}

// TestGCRacesAppends runs gc in replica b while replica a appends entries
// that cite snapshots a just stored: every entry that was recorded cites a
// snapshot that is there.
func TestGCRacesAppends(t *testing.T) {
	ctx := context.Background()
	a, b := twoReplicas(t)
	recorded, refused := 0, 0
	for round := range 40 {
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			data := []byte(fmt.Sprintf("round %d snapshot %d", round, i))
			if err := a.PutSnapshot(ctx, hashOf(data), bytes.NewReader(data)); err != nil {
				t.Fatal(err)
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := b.DeleteUnreferencedSnapshots(ctx); err != nil {
				t.Error(err)
			}
		}()
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e := newEntry(fmt.Sprintf("race/%d/%d.md", round, i))
				e.Snapshot = hashOf([]byte(fmt.Sprintf("round %d snapshot %d", round, i)))
				errs[i] = a.Append(ctx, e)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			switch {
			case err == nil:
				recorded++
			case errors.Is(err, store.ErrSnapshotGone):
				refused++
			default:
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d entries recorded, %d refused (their snapshot dropped first)", recorded, refused)
	assertNoEntryCitesAMissingSnapshot(t, a)
}

func assertNoEntryCitesAMissingSnapshot(t *testing.T, s *postgres.Store) {
	t.Helper()
	var n int
	if err := s.Pool().QueryRow(context.Background(), `SELECT count(*) FROM ledger l
		WHERE l.snapshot <> '' AND NOT EXISTS (SELECT 1 FROM snapshots s WHERE s.hash = l.snapshot)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d entries cite a snapshot that is not stored", n)
	}
}
