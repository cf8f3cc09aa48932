package postgres

import (
	"context"
	"encoding/json"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/store"
)

func appendEntryFor(target string) *store.Entry {
	return &store.Entry{
		ID: retrieve.NewID(), Time: time.Now(), Op: "get", Target: target, Source: "file",
		Reference: target + ":1-2", Status: store.StatusOK, Duration: time.Millisecond,
		Request: json.RawMessage(`{}`), Result: json.RawMessage(`{"ok":true}`),
	}
}

// goroutinesSettle waits up to a second for the number of goroutines to
// fall to at most n, and returns the last count.
func goroutinesSettle(n int) int {
	got := runtime.NumGoroutine()
	for deadline := time.Now().Add(time.Second); got > n && time.Now().Before(deadline); got = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond)
	}
	return got
}

// A lone Append runs its statement in the caller's goroutine: appending
// one entry at a time leaves no goroutine behind (the store used to start
// flusher goroutines and hand every append to one of them).
func TestLoneAppendRunsInTheCaller(t *testing.T) {
	ctx := context.Background()
	s, err := OpenStore(ctx, pgtest.URL(t, "pglone"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, _, _, err := s.Counts(ctx); err != nil { // the pool has its connection
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // what the pool started ends
	before := runtime.NumGoroutine()
	for range 20 {
		if err := s.Append(ctx, appendEntryFor("lone.txt")); err != nil {
			t.Fatal(err)
		}
	}
	if got := goroutinesSettle(before); got > before {
		t.Fatalf("%d goroutines after 20 lone appends, %d before: an append was handed to another goroutine", got, before)
	}
}

// While an append is under way, later ones wait in the queue and
// are inserted together when a flush ends; one that gives up while it
// waits is not inserted.
func TestOverlappingAppendsAreBatched(t *testing.T) {
	ctx := context.Background()
	s, err := OpenStore(ctx, pgtest.URL(t, "pgbatch"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Hold the log's position: every append blocks on it.
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	var next int64
	if err := tx.QueryRow(ctx, `SELECT next FROM ledger_log FOR UPDATE`).Scan(&next); err != nil {
		t.Fatal(err)
	}
	queued := func() (active, waiting int) {
		s.app.mu.Lock()
		defer s.app.mu.Unlock()
		return s.app.active, len(s.app.queue)
	}
	waitFor := func(active, waiting int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; {
			a, w := queued()
			if a == active && w == waiting {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d flushes under way and %d appends waiting, want %d and %d", a, w, active, waiting)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	start := func(e *store.Entry) {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- s.Append(ctx, e) }()
	}
	start(appendEntryFor("first"))
	waitFor(1, 0)
	late := []*store.Entry{appendEntryFor("late1"), appendEntryFor("late2"), appendEntryFor("late3")}
	for i, e := range late {
		start(e)
		waitFor(1, i+1)
	}
	gaveUp := appendEntryFor("gave-up")
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	err = s.Append(cctx, gaveUp)
	cancel()
	if err == nil {
		t.Fatal("an append whose context ended while it waited succeeded")
	}
	waitFor(1, len(late))
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	select {
	case <-all:
	case <-time.After(20 * time.Second):
		t.Fatal("the queued appends were not inserted within 20 s of the log's release")
	}
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	waitFor(0, 0)
	for _, e := range late {
		if _, err := s.Entry(ctx, e.ID); err != nil {
			t.Fatalf("queued entry %s: %v", e.Target, err)
		}
	}
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM ledger WHERE id = $1`, gaveUp.ID).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the append that gave up while it waited was inserted (%d rows, %v)", n, err)
	}
	var leaves, maxIdx int64
	if err := s.pool.QueryRow(ctx, `SELECT count(*), max(idx) FROM ledger_leaves`).Scan(&leaves, &maxIdx); err != nil {
		t.Fatal(err)
	}
	if leaves != int64(1+len(late)) || maxIdx != leaves-1 {
		t.Fatalf("%d leaves, last position %d: want %d dense positions", leaves, maxIdx, 1+len(late))
	}
}
