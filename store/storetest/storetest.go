// Package storetest is the conformance suite of store.Store: every
// implementation runs it against a real database.
package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
)

// Opener returns a new, empty store for one test.
type Opener func(t *testing.T) store.Store

func hashOf(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// base is the time of the suite's first entry.
var base = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// entry is the i-th ledger entry of the suite.
func entry(i int, op, target, status string) *store.Entry {
	return &store.Entry{
		ID:        retrieve.NewID(),
		Time:      base.Add(time.Duration(i) * time.Minute),
		Op:        op,
		Target:    target,
		Source:    "file",
		Reference: target + ":1-2",
		Hash:      hashOf([]byte(target)),
		Status:    status,
		Duration:  time.Millisecond,
		Request:   json.RawMessage(`{"target":"` + target + `"}`),
		Result:    json.RawMessage(`{"ok":true}`),
	}
}

// Run runs the conformance suite: one function per case.
func Run(t *testing.T, open Opener) {
	runConcurrent(t, open)
	t.Run("Ledger/OK", func(t *testing.T) { testLedgerOK(t, open) })
	t.Run("Ledger/ErrNotFound", func(t *testing.T) { testLedgerErrNotFound(t, open) })
	t.Run("Ledger/Concurrent", func(t *testing.T) { testLedgerConcurrent(t, open) })
	t.Run("Ledger/ConcurrentDuplicate", func(t *testing.T) { testLedgerConcurrentDuplicate(t, open) })
	t.Run("Snapshots/OK", func(t *testing.T) { testSnapshotsOK(t, open) })
	t.Run("Snapshots/ErrWrongHash", func(t *testing.T) { testSnapshotsErrWrongHash(t, open) })
	t.Run("Snapshots/ErrNotFound", func(t *testing.T) { testSnapshotsErrNotFound(t, open) })
	t.Run("Snapshots/GC", func(t *testing.T) { testSnapshotsGC(t, open) })
	t.Run("OutlineCache/OK", func(t *testing.T) { testOutlineCache(t, open) })
}

func testLedgerOK(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	var ids []string
	for i, target := range []string{"a.md", "b.md", "a.md"} {
		e := entry(i, "get", target, store.StatusOK)
		if err := s.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	if err := s.Append(ctx, entry(3, "get", "c.md", store.StatusError)); err != nil {
		t.Fatal(err)
	}
	got, err := s.Entry(ctx, ids[1])
	if err != nil {
		t.Fatal(err)
	}
	if got.Target != "b.md" || !got.Time.Equal(base.Add(time.Minute)) || got.Duration != time.Millisecond || string(got.Request) != `{"target":"b.md"}` {
		t.Errorf("entry = %+v", got)
	}
	all, err := s.Entries(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 4 || all[0].Target != "c.md" {
		t.Fatalf("entries: got %d, first %q; want 4, newest first", len(all), all[0].Target)
	}
	for _, tt := range []struct {
		name string
		f    store.Filter
		want int
	}{
		{"Target", store.Filter{Target: "a.md"}, 2},
		{"Status", store.Filter{Status: store.StatusError}, 1},
		{"Reference", store.Filter{Reference: "b.md:1-2"}, 1},
		{"ReferencePrefix", store.Filter{ReferencePrefix: "a.md:"}, 2},
		{"ReferencePrefixWhole", store.Filter{ReferencePrefix: "b.md:1-2"}, 1},
		{"ReferencePrefixLonger", store.Filter{ReferencePrefix: "b.md:1-23"}, 0},
		{"ReferencePrefixNoPattern", store.Filter{ReferencePrefix: "_.md%"}, 0},
		{"Since", store.Filter{Since: base.Add(2 * time.Minute)}, 2},
		{"Limit", store.Filter{Limit: 3}, 3},
		{"Op", store.Filter{Op: "verify"}, 0},
		{"ExcludeOp", store.Filter{ExcludeOp: "get"}, 0},
		{"ExcludeOpOther", store.Filter{ExcludeOp: "verify"}, 4},
		{"Until", store.Filter{Until: base.Add(2 * time.Minute)}, 2},
		{"BeforeID", store.Filter{BeforeID: ids[2]}, 2},
		{"BeforeIDFirst", store.Filter{BeforeID: ids[0]}, 0},
		{"BeforeIDLimit", store.Filter{BeforeID: ids[2], Limit: 1}, 1},
	} {
		got, err := s.Entries(ctx, tt.f)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tt.want {
			t.Errorf("%s: %d entries, want %d", tt.name, len(got), tt.want)
		}
	}
	n, err := s.DeleteEntriesBefore(ctx, base.Add(2*time.Minute))
	if err != nil || n != 2 {
		t.Errorf("DeleteEntriesBefore = %d, %v; want 2", n, err)
	}
}

func testLedgerErrNotFound(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	_, err := s.Entry(ctx, "0190f5a0-0000-7000-8000-000000000000")
	if retrieve.ErrorCode(err) != retrieve.CodeNotFound {
		t.Fatalf("code = %s, want NOT_FOUND", retrieve.ErrorCode(err))
	}
}

func testLedgerConcurrent(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- s.Append(ctx, entry(i, "get", fmt.Sprintf("f%d.md", i), store.StatusOK))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.Entries(ctx, store.Filter{})
	if err != nil || len(all) != 50 {
		t.Fatalf("entries = %d, %v; want 50", len(all), err)
	}
}

func testLedgerConcurrentDuplicate(t *testing.T, open Opener) {
	ctx := context.Background()
	// Entries appended at once, some with an id already taken: each
	// duplicate fails alone, every other entry lands.
	s := open(t)
	taken := make([]string, 5)
	for i := range taken {
		e := entry(i, "get", fmt.Sprintf("d%d.md", i), store.StatusOK)
		taken[i] = e.ID
		if err := s.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := entry(i, "get", fmt.Sprintf("d%d.md", i), store.StatusOK)
			if i < len(taken) {
				e.ID = taken[i]
			}
			errs[i] = s.Append(ctx, e)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if (i < 5) != (err != nil) {
			t.Errorf("append %d: err = %v (duplicate: %v)", i, err, i < 5)
		}
	}
	all, err := s.Entries(ctx, store.Filter{})
	if err != nil || len(all) != 40 {
		t.Fatalf("entries = %d, %v; want 40", len(all), err)
	}
}

func testSnapshotsOK(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	small := []byte("hello snapshot\n")
	big := make([]byte, 9<<20+123) // several chunks
	r := rand.New(rand.NewPCG(1, 2))
	for i := range big {
		big[i] = byte('a' + r.IntN(4))
	}
	for _, b := range [][]byte{small, big, {}} {
		h := hashOf(b)
		for range 2 { // the second put is a no-op
			if err := s.PutSnapshot(ctx, h, bytes.NewReader(b)); err != nil {
				t.Fatal(err)
			}
		}
		ok, err := s.HasSnapshot(ctx, h)
		if err != nil || !ok {
			t.Fatalf("HasSnapshot = %v, %v", ok, err)
		}
		rc, err := s.OpenSnapshot(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("snapshot of %d bytes read back as %d bytes (%v)", len(b), len(got), err)
		}
	}
}

func testSnapshotsErrWrongHash(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	h := hashOf([]byte("one"))
	if err := s.PutSnapshot(ctx, h, bytes.NewReader([]byte("two"))); err == nil {
		t.Fatal("a snapshot whose bytes do not match its hash was accepted")
	}
	if ok, _ := s.HasSnapshot(ctx, h); ok {
		t.Fatal("a refused snapshot is present")
	}
}

func testSnapshotsErrNotFound(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	_, err := s.OpenSnapshot(ctx, hashOf([]byte("absent")))
	if retrieve.ErrorCode(err) != retrieve.CodeNotFound {
		t.Fatalf("code = %s, want NOT_FOUND", retrieve.ErrorCode(err))
	}
}

func testSnapshotsGC(t *testing.T, open Opener) {
	ctx := context.Background()
	s := open(t)
	kept, dropped := []byte("kept"), []byte("dropped")
	for _, b := range [][]byte{kept, dropped} {
		if err := s.PutSnapshot(ctx, hashOf(b), bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
	}
	e := entry(0, "get", "k.md", store.StatusOK)
	e.Snapshot = hashOf(kept)
	if err := s.Append(ctx, e); err != nil {
		t.Fatal(err)
	}
	n, err := s.DeleteUnreferencedSnapshots(ctx)
	if err != nil || n != 1 {
		t.Fatalf("DeleteUnreferencedSnapshots = %d, %v; want 1", n, err)
	}
	if ok, _ := s.HasSnapshot(ctx, hashOf(kept)); !ok {
		t.Error("a referenced snapshot was dropped")
	}
	if ok, _ := s.HasSnapshot(ctx, hashOf(dropped)); ok {
		t.Error("an unreferenced snapshot was kept")
	}
}
