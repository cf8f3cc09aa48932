package sqlite_test

import (
	"context"
	dbsql "database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// TestSecurityDiskFull: a store whose disk is full says so — WRITE_FAILED
// with a hint to free space — never "corrupt, move it away", which would
// make a user discard a healthy ledger. The disk is full for real here:
// SQLite's page limit gives the very SQLITE_FULL a full disk gives, and
// /dev/full the operating system's ENOSPC.
func TestSecurityDiskFull(t *testing.T) {
	path := filepath.Join(t.TempDir(), "retrieve.db")
	s, err := sqlite.OpenStore(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Cap the file at its current size on every connection of the pool.
	var pages int
	if err := s.SQL().QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	s.SQL().SetMaxOpenConns(1)
	if _, err := s.SQL().Exec(`PRAGMA max_page_count = ` + strconv.Itoa(pages)); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 1<<20)
	err = s.Append(context.Background(), &store.Entry{ID: retrieve.NewID(), Op: "get", Target: "a", Status: store.StatusOK,
		Request: []byte(`{}`), Result: []byte(`"` + big + `"`)})
	checkDiskFull(t, err)

	// ENOSPC from the kernel, as a write to a full disk returns it.
	if f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0); err == nil {
		_, werr := f.Write([]byte("x"))
		f.Close()
		if !retrieve.IsDiskFull(werr) {
			t.Errorf("IsDiskFull(%v) = false", werr)
		}
		checkDiskFull(t, retrieve.DiskFullError(path, werr))
	}
	// The store is intact: it opens, and the earlier content is there.
	s.Close()
	s2, err := sqlite.OpenStore(context.Background(), path)
	if err != nil {
		t.Fatalf("the store no longer opens: %v", err)
	}
	s2.Close()
	raw, _ := dbsql.Open("sqlite", path)
	defer raw.Close()
	var ok string
	if err := raw.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check: %q %v", ok, err)
	}
}

func checkDiskFull(t *testing.T, err error) {
	t.Helper()
	e := retrieve.AsError(err)
	if err == nil || e.Code != retrieve.CodeWriteFailed || !strings.Contains(e.Message, "disk is full") {
		t.Fatalf("got %v (code %s), want WRITE_FAILED saying the disk is full", err, e.Code)
	}
	if strings.Contains(e.Hint, "move it away") || !strings.Contains(e.Hint, "free space") {
		t.Errorf("hint %q: must ask to free space, never to move the store", e.Hint)
	}
}
