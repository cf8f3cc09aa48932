package sqlite_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

func openStore(t *testing.T) (*sqlite.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".retrieve", "retrieve.db")
	s, err := sqlite.OpenStore(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func objectFile(path, hash string) string {
	h := strings.TrimPrefix(hash, "sha256:")
	return filepath.Join(path+"-objects", "sha256", h[:2], h[2:])
}

func readAll(t *testing.T, s store.Snapshots, hash string) ([]byte, error) {
	t.Helper()
	rc, err := s.OpenSnapshot(context.Background(), hash)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// Where each snapshot goes: small ones in the database (compressed when
// that pays), large ones in a file beside it, written once.
func TestSnapshotStorage(t *testing.T) {
	ctx := context.Background()
	s, path := openStore(t)
	random := make([]byte, 3000)
	rand.Read(random)
	large := bytes.Repeat([]byte("a large snapshot, stored as a file\n"), 100000)
	for _, tc := range []struct {
		name    string
		b       []byte
		storage string
	}{
		{"empty", nil, "raw"},
		{"text", bytes.Repeat([]byte("small text compresses\n"), 100), "zstd"},
		{"random", random, "raw"},
		{"large", large, "file"},
	} {
		h := sum(tc.b)
		st, err := s.StageSnapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		st.Write(tc.b)
		if err := st.Commit(ctx, h); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var storage string
		if err := s.SQL().QueryRow(`SELECT storage FROM snapshots WHERE hash = ?`, h).Scan(&storage); err != nil || storage != tc.storage {
			t.Errorf("%s: stored as %q (%v), want %q", tc.name, storage, err, tc.storage)
		}
		got, err := readAll(t, s, h)
		if err != nil || !bytes.Equal(got, tc.b) {
			t.Errorf("%s: read back %d bytes (%v), want %d", tc.name, len(got), err, len(tc.b))
		}
		// The same bytes again: nothing more is written, nothing is left.
		if err := s.PutSnapshot(ctx, h, bytes.NewReader(tc.b)); err != nil {
			t.Fatal(err)
		}
	}
	if fi, err := os.Stat(objectFile(path, sum(large))); err != nil || fi.Size() != int64(len(large)) {
		t.Fatalf("the large snapshot's file: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(path+"-objects", "tmp")); len(ents) != 0 {
		t.Errorf("%d staging files left", len(ents))
	}
	var n int
	s.SQL().QueryRow(`SELECT count(*) FROM snapshot_chunks WHERE hash = ?`, sum(large)).Scan(&n)
	if n != 0 {
		t.Errorf("the large snapshot has %d chunks in the database too", n)
	}
	// Wrong bytes for a hash are refused, and leave nothing.
	if err := s.PutSnapshot(ctx, sum([]byte("other")), bytes.NewReader(large)); retrieve.ErrorCode(err) != retrieve.CodeInputValidation {
		t.Errorf("mismatching bytes: %v", err)
	}
	if has, _ := s.HasSnapshot(ctx, sum([]byte("other"))); has {
		t.Error("a mismatching snapshot was kept")
	}
	// A damaged file is an error on the way out, never other bytes.
	if err := os.WriteFile(objectFile(path, sum(large)), bytes.ToUpper(large), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readAll(t, s, sum(large)); retrieve.ErrorCode(err) != retrieve.CodeStoreUnavailable {
		t.Errorf("damaged snapshot file: %v, want STORE_UNAVAILABLE", err)
	}
	// A file that is gone is not a snapshot any more.
	os.Remove(objectFile(path, sum(large)))
	if has, _ := s.HasSnapshot(ctx, sum(large)); has {
		t.Error("a snapshot whose file is gone counts as stored")
	}
	if err := s.PutSnapshot(ctx, sum(large), bytes.NewReader(large)); err != nil {
		t.Fatal(err)
	}
	if got, err := readAll(t, s, sum(large)); err != nil || !bytes.Equal(got, large) {
		t.Errorf("stored again after its file was lost: %d bytes, %v", len(got), err)
	}
	// gc drops the unreferenced snapshots, files included.
	if _, err := s.DeleteUnreferencedSnapshots(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(objectFile(path, sum(large))); !os.IsNotExist(err) {
		t.Errorf("gc left the file of an unreferenced snapshot: %v", err)
	}
}

// An aborted stage leaves nothing behind.
func TestSnapshotStageAbort(t *testing.T) {
	s, path := openStore(t)
	st, _ := s.StageSnapshot(context.Background())
	st.Write(bytes.Repeat([]byte("x"), 3<<20))
	st.Abort()
	if err := st.Commit(context.Background(), sum(nil)); err != nil {
		t.Fatal(err)
	}
	if has, _ := s.HasSnapshot(context.Background(), sum(nil)); has {
		t.Error("a commit after abort stored something")
	}
	if ents, _ := os.ReadDir(filepath.Join(path+"-objects", "tmp")); len(ents) != 0 {
		t.Errorf("%d staging files left", len(ents))
	}
}

// gc removes a snapshot file that no index row names once it is a day old
// (a process killed between the file and its row left it), and keeps a
// younger one, which a retrieval may be indexing now, and every indexed one.
func TestSnapshotOrphanFilesGC(t *testing.T) {
	ctx := context.Background()
	s, path := openStore(t)
	put := func(word string) string {
		b := bytes.Repeat([]byte(word+" line of a large snapshot\n"), 100000)
		if err := s.PutSnapshot(ctx, sum(b), bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		return sum(b)
	}
	old, young, kept := put("old"), put("young"), put("kept")
	if _, err := s.SQL().Exec(`DELETE FROM snapshots WHERE hash IN (?, ?)`, old, young); err != nil {
		t.Fatal(err)
	}
	dayAgo := time.Now().Add(-25 * time.Hour)
	for _, h := range []string{old, kept} {
		if err := os.Chtimes(objectFile(path, h), dayAgo, dayAgo); err != nil {
			t.Fatal(err)
		}
	}
	// kept is referenced by an entry, so that gc keeps its row.
	if err := s.Append(ctx, &store.Entry{ID: retrieve.NewID(), Op: "get", Target: "a", Status: store.StatusOK, Snapshot: kept,
		Request: []byte(`{}`), Result: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteUnreferencedSnapshots(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(objectFile(path, old)); !os.IsNotExist(err) {
		t.Errorf("the day-old file without a row is still there (%v)", err)
	}
	if _, err := os.Stat(objectFile(path, young)); err != nil {
		t.Errorf("a young file without a row was removed: %v", err)
	}
	if got, err := readAll(t, s, kept); err != nil || len(got) == 0 {
		t.Errorf("the indexed snapshot: %d bytes, %v", len(got), err)
	}
}
