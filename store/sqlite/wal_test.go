package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// The last close checkpoints the WAL into the database and keeps the -wal
// file at zero bytes (and the -shm file), so the next process does not
// create them again; what was committed is in the database file itself.
func TestCloseKeepsAnEmptyWAL(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), ".retrieve", "retrieve.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, `CREATE TABLE t (v TEXT)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, `INSERT INTO t VALUES (?)`, strings.Repeat("x", 100_000)); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("before close the WAL holds the commits: %v, %v", fi, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatalf("the WAL file is kept: %v", err)
	}
	if fi.Size() != 0 {
		t.Errorf("the WAL file is %d bytes after close, want 0 (checkpointed and truncated)", fi.Size())
	}
	if _, err := os.Stat(path + "-shm"); err != nil {
		t.Errorf("the -shm file is kept: %v", err)
	}
	// The commit is in the database file: a copy of it alone has the row.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(copyPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	db2, err := sqlite.Open(ctx, copyPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	var n int
	if err := db2.SQL().QueryRowContext(ctx, `SELECT length(v) FROM t`).Scan(&n); err != nil || n != 100_000 {
		t.Fatalf("the database file alone: length %d, %v", n, err)
	}
	// Reopened where it was, the store reuses the empty WAL.
	db3, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db3.Close()
	if _, err := db3.SQL().ExecContext(ctx, `INSERT INTO t VALUES ('y')`); err != nil {
		t.Fatal(err)
	}
	if err := db3.SQL().QueryRowContext(ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("after reopening: %d rows, %v", n, err)
	}
}

// Opening a store whose schema is current takes no write lock: it opens
// while another connection holds the writer's lock (before, each
// component's migration check began an immediate transaction and waited
// for the busy timeout).
func TestOpenCurrentStoreTakesNoWriteLock(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), ".retrieve", "retrieve.db")
	s, err := sqlite.OpenStore(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	holder, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	conn, err := holder.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, `ROLLBACK`)

	done := make(chan error, 1)
	go func() {
		s, err := sqlite.OpenStore(ctx, path)
		if err == nil {
			err = s.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("opening a current store waited for another connection's write lock")
	}
}

// A short-lived process (LeaveWAL) leaves its commits in the WAL at close,
// without a checkpoint (and its fsyncs): the next opener — here a copy of
// the files, as a new process finds them — reads them back. Once the WAL
// has grown past the bound, the close checkpoints it as before.
func TestLeaveWAL(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), ".retrieve", "retrieve.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.SQL().Close() })
	db.LeaveWAL()
	if _, err := db.SQL().ExecContext(ctx, `CREATE TABLE t (v TEXT)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, `INSERT INTO t VALUES ('left in the WAL')`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path + "-wal")
	if err != nil || fi.Size() == 0 {
		t.Fatalf("the WAL after a short-lived close: %v, %v; want the commits left in it", fi, err)
	}
	next := filepath.Join(t.TempDir(), "next.db")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(next+suffix, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db2, err := sqlite.Open(ctx, next)
	if err != nil {
		t.Fatal(err)
	}
	var v string
	if err := db2.SQL().QueryRowContext(ctx, `SELECT v FROM t`).Scan(&v); err != nil || v != "left in the WAL" {
		t.Fatalf("the next opener reads %q, %v", v, err)
	}
	// Past the bound, the close checkpoints: the WAL is emptied.
	db2.LeaveWAL()
	if _, err := db2.SQL().ExecContext(ctx, `INSERT INTO t VALUES (?)`, strings.Repeat("x", 1<<20)); err != nil {
		t.Fatal(err)
	}
	if err := db2.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(next + "-wal"); err != nil || fi.Size() != 0 {
		t.Fatalf("the WAL after a close past the bound: %v, %v; want it checkpointed to 0 bytes", fi, err)
	}
}

// TestOpenPathWithURISyntax: a store whose path holds the characters a
// SQLite URI reads as syntax ('#', '?', '%') is opened at exactly that
// path. They were read as syntax once: every store under "run#1/…" and
// "run#2/…" was the one file "run" beside them.
func TestOpenPathWithURISyntax(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var paths []string
	for _, name := range []string{"run#1", "run#2", "what?x=1", "100%25"} {
		p := filepath.Join(dir, name, "retrieve.db")
		st, err := sqlite.OpenStore(ctx, p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: the store is not at its path: %v", name, err)
		}
		paths = append(paths, p)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			t.Errorf("a file %q was made beside the stores", e.Name())
		}
	}
	if len(entries) != len(paths) {
		t.Errorf("%d entries in %s, want the %d store directories", len(entries), dir, len(paths))
	}
}
