package postgres_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/postgres"
)

func hashOf(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

func newEntry(target string) *store.Entry {
	return &store.Entry{
		ID: retrieve.NewID(), Time: time.Now(), Op: "get", Target: target, Source: "file",
		Reference: target + ":1-2", Status: store.StatusOK, Duration: time.Millisecond,
		Request: json.RawMessage(`{}`), Result: json.RawMessage(`{"ok":true}`),
	}
}

// sharedBytes is the snapshot every replica stores at once.
var sharedBytes = bytes.Repeat([]byte("the same bytes from every replica\n"), 200000) // ~6.6 MiB, two chunks

const replicaEntries = 200

// TestReplicaProcess is the body of one replica process; it runs only when
// started by TestReplicas.
func TestReplicaProcess(t *testing.T) {
	u := os.Getenv("RETRIEVE_PG_REPLICA_URL")
	if u == "" {
		t.Skip("run by TestReplicas")
	}
	ctx := context.Background()
	s, err := postgres.OpenStore(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range replicaEntries / 4 {
				if err := s.Append(ctx, newEntry(fmt.Sprintf("p%d/w%d/%d.md", os.Getpid(), w, i))); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	if err := s.PutSnapshot(ctx, hashOf(sharedBytes), bytes.NewReader(sharedBytes)); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestReplicas starts several processes on one new schema at once: they
// migrate once under the advisory lock, all their writes land, and the
// snapshot they all store is kept once.
func TestReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	u := pgtest.URL(t, "postgres_replicas")
	const n = 4
	var wg sync.WaitGroup
	outs := make([][]byte, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestReplicaProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), "RETRIEVE_PG_REPLICA_URL="+u)
			outs[i], errs[i] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("replica %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	ctx := context.Background()
	c, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var migs, entries, distinct, snaps, chunks int
	if err := c.QueryRow(ctx, `SELECT (SELECT count(*) - max(version) + 1 FROM schema_migrations WHERE component = 'ledger'),
		(SELECT count(*) FROM ledger), (SELECT count(DISTINCT id) FROM ledger),
		(SELECT count(*) FROM snapshots), (SELECT count(*) FROM snapshot_chunks)`).Scan(&migs, &entries, &distinct, &snaps, &chunks); err != nil {
		t.Fatal(err)
	}
	if migs != 1 {
		t.Errorf("the ledger migrations were recorded %d times each, want once", migs)
	}
	if entries != n*replicaEntries || distinct != entries {
		t.Errorf("ledger has %d entries (%d distinct ids), want %d", entries, distinct, n*replicaEntries)
	}
	if snaps != 1 || chunks != 2 {
		t.Errorf("the shared snapshot is stored as %d rows and %d chunks, want 1 and 2", snaps, chunks)
	}
	s, err := postgres.OpenStore(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rc, err := s.OpenSnapshot(ctx, hashOf(sharedBytes))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	if !bytes.Equal(got, sharedBytes) {
		t.Errorf("the shared snapshot reads back as %d bytes, want %d", len(got), len(sharedBytes))
	}
}

// TestConcurrentSnapshotWriters stores the same and different snapshots
// from many goroutines at once.
func TestConcurrentSnapshotWriters(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			same := []byte("one snapshot for all")
			own := []byte("own snapshot " + strconv.Itoa(i%8))
			for _, b := range [][]byte{same, own} {
				if err := s.PutSnapshot(ctx, hashOf(b), bytes.NewReader(b)); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var n int
	if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM snapshots`).Scan(&n); err != nil || n != 9 {
		t.Fatalf("%d snapshots (%v), want 9", n, err)
	}
}

func TestTimeKeepsNanoseconds(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	e := newEntry("ns.md")
	e.Time = time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.UTC)
	if err := s.Append(ctx, e); err != nil {
		t.Fatal(err)
	}
	got, err := s.Entry(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Time.Equal(e.Time) || got.Time.Location() != time.UTC {
		t.Errorf("time = %v, want %v", got.Time, e.Time)
	}
}

func TestErrSchemaNewer(t *testing.T) {
	u := pgtest.URL(t, "postgres_newer")
	ctx := context.Background()
	s, err := postgres.OpenStore(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pool().Exec(ctx, `INSERT INTO schema_migrations (component, version, name) VALUES ('ledger', 99, '0099_future.sql')`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = postgres.OpenStore(ctx, u)
	if retrieve.ErrorCode(err) != retrieve.CodeStoreUnavailable || !strings.Contains(retrieve.AsError(err).Hint, "upgrade retrieve") {
		t.Fatalf("opening a newer schema: %v; want STORE_UNAVAILABLE with an upgrade hint", err)
	}
}

func TestErrUnavailable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// A port nothing listens on: a clear STORE_UNAVAILABLE, without the password.
	_, err := postgres.OpenStore(ctx, "postgres://u:s3cret@127.0.0.1:1/db?sslmode=disable&connect_timeout=2")
	if retrieve.ErrorCode(err) != retrieve.CodeStoreUnavailable {
		t.Fatalf("code = %s (%v), want STORE_UNAVAILABLE", retrieve.ErrorCode(err), err)
	}
	if strings.Contains(err.Error(), "s3cret") || strings.Contains(retrieve.AsError(err).Hint, "s3cret") {
		t.Fatalf("the error shows the password: %v", err)
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:pw@h:5432/db?sslmode=require":   "postgres://u:xxxxx@h:5432/db?sslmode=require",
		"postgres://u@h/db?password=pw&sslmode=false": "postgres://u@h/db?password=xxxxx&sslmode=false",
		"postgres://h/db": "postgres://h/db",
	} {
		if got := postgres.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// A read-only standby (here: a read-only session) of a migrated store
// opens and serves reads, for `verify --all` against a read replica.
func TestReadOnlyStandby(t *testing.T) {
	u := pgtest.URL(t, "postgres_ro")
	ctx := context.Background()
	s, err := postgres.OpenStore(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	e := newEntry("ro.md")
	if err := s.Append(ctx, e); err != nil {
		t.Fatal(err)
	}
	s.Close()
	ro, err := postgres.OpenStore(ctx, u+"&default_transaction_read_only=on")
	if err != nil {
		t.Fatalf("a read-only session does not open a migrated store: %v", err)
	}
	defer ro.Close()
	if _, err := ro.Entry(ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	if err := ro.Append(ctx, newEntry("ro2.md")); retrieve.ErrorCode(err) != retrieve.CodeStoreUnavailable {
		t.Fatalf("append on a read-only session: %v; want STORE_UNAVAILABLE", err)
	}
}

// Concurrent appends are committed together; a duplicate id among them
// fails alone, and the others are recorded.
func TestGroupCommitDuplicate(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	dup := newEntry("dup.md")
	if err := s.Append(ctx, dup); err != nil {
		t.Fatal(err)
	}
	for round := range 5 {
		var wg sync.WaitGroup
		errs := make([]error, 40)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e := newEntry(fmt.Sprintf("r%d/%d.md", round, i))
				if i == 20 {
					e = dup
				}
				errs[i] = s.Append(ctx, e)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if (i == 20) != (err != nil) {
				t.Fatalf("round %d append %d: %v", round, i, err)
			}
		}
	}
	all, err := s.Entries(ctx, store.Filter{})
	if err != nil || len(all) != 1+5*39 {
		t.Fatalf("%d entries (%v), want %d", len(all), err, 1+5*39)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, newEntry("closed.md")); retrieve.ErrorCode(err) != retrieve.CodeStoreUnavailable {
		t.Fatalf("append after Close: %v", err)
	}
}

// A snapshot that loses a chunk while it is read (a concurrent gc) ends
// in an error, never in short bytes.
func TestErrSnapshotDroppedWhileRead(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	h := hashOf(sharedBytes)
	if err := s.PutSnapshot(ctx, h, bytes.NewReader(sharedBytes)); err != nil {
		t.Fatal(err)
	}
	rc, err := s.OpenSnapshot(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if _, err := io.ReadFull(rc, make([]byte, 100)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pool().Exec(ctx, `DELETE FROM snapshot_chunks WHERE hash = $1 AND seq = 1`, h); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	if err == nil {
		t.Fatalf("read %d bytes of a snapshot that lost a chunk without an error", 100+len(got))
	}
	if retrieve.ErrorCode(err) != retrieve.CodeStoreUnavailable {
		t.Fatalf("code %s: %v", retrieve.ErrorCode(err), err)
	}
}
