package engine_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/postgres"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// bigText returns size bytes of numbered lines.
func bigText(size int, word string) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < size; i++ {
		b.WriteString(word)
		b.WriteString(" line ")
		b.WriteString(strings.Repeat("x", i%50))
		b.WriteByte('\n')
	}
	return b.Bytes()[:size]
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

func snapshotBytes(t *testing.T, st store.Snapshots, hash string) []byte {
	t.Helper()
	rc, err := st.OpenSnapshot(context.Background(), hash)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("snapshot %s: %v", hash, err)
	}
	return b
}

// The first recorded retrieval of a large file keeps its bytes exactly:
// the snapshot (sizes that are not a multiple of any block) reads back as
// the file, verify says verified, and with the file gone --fallback
// snapshot serves the same data. In the SQLite store the snapshot is a
// file written in the hashing pass; in PostgreSQL, chunks in the database.
func TestLargeSnapshotRoundTrip(t *testing.T) {
	for _, size := range []int{1<<20 + 1, 3<<20 + 4096, 5<<20 + 123} {
		ws := testws.New(t)
		st, err := sqlite.OpenStore(context.Background(), filepath.Join(ws.Root, ".retrieve", "retrieve.db"))
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(t, ws, st, size)
		st.Close()
	}
	t.Run("PostgreSQL", func(t *testing.T) {
		st, err := postgres.OpenStore(context.Background(), pgtest.URL(t, "large_snapshot"))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		roundTrip(t, testws.New(t), st, 5<<20+123)
	})
}

func roundTrip(t *testing.T, ws *testws.Workspace, st store.Store, size int) {
	t.Helper()
	ctx := context.Background()
	content := bigText(size, "first")
	ws.Write("big.log", string(content))
	src, err := file.New(file.Options{Root: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{src}, Store: st, SpoolDir: filepath.Join(ws.Root, ".retrieve", "tmp")})
	if err != nil {
		t.Fatal(err)
	}
	req := retrieve.Request{Target: "big.log", Constraints: retrieve.Constraints{Lines: "2-4"}}
	res := mustGet(t, e, req)
	if *res.Citation.SourceHash != sha(content) {
		t.Fatalf("%d bytes: source hash %s, want %s", size, *res.Citation.SourceHash, sha(content))
	}
	entry, err := st.Entry(ctx, res.RetrievalID)
	if err != nil || entry.Snapshot != sha(content) {
		t.Fatalf("%d bytes: entry %+v, %v", size, entry, err)
	}
	if got := snapshotBytes(t, st, entry.Snapshot); !bytes.Equal(got, content) {
		t.Fatalf("%d bytes: the snapshot holds %d bytes that differ from the file", size, len(got))
	}
	v, err := e.VerifyEntry(ctx, res.RetrievalID)
	if err != nil || v.Status != retrieve.Verified {
		t.Fatalf("%d bytes: verify = %+v, %v; want verified", size, v, err)
	}
	if err := os.Remove(filepath.Join(ws.Root, "big.log")); err != nil {
		t.Fatal(err)
	}
	fb := req
	fb.Fallback = retrieve.FallbackSnapshot
	got := mustGet(t, e, fb)
	if got.Provenance.RetrievedFrom != retrieve.FromSnapshot || got.Retrieved.Data != res.Retrieved.Data || *got.Citation.Hash != *res.Citation.Hash {
		t.Errorf("%d bytes: fallback from %s with %q, want %q from the snapshot", size, got.Provenance.RetrievedFrom, got.Retrieved.Data, res.Retrieved.Data)
	}
}

// changingSource is the file source whose documents change on disk while
// the engine reads them: once 2 MiB have been read, the bytes at 3–4 MiB
// of the file are overwritten, and once 4.5 MiB have been read they are
// written back. What the engine read is then neither the file before nor
// the file after.
type changingSource struct {
	*file.Source
	path string
	t    *testing.T
}

func (s changingSource) Fetch(ctx context.Context, req *retrieve.Request) (*retrieve.Document, error) {
	doc, err := s.Source.Fetch(ctx, req)
	if err == nil {
		doc.Body = &changingBody{ReadCloser: doc.Body, path: s.path, t: s.t}
	}
	return doc, err
}

type changingBody struct {
	io.ReadCloser
	path    string
	t       *testing.T
	n       int
	changed bool
	back    bool
	old     []byte
}

func (b *changingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += n
	switch {
	case !b.changed && b.n >= 2<<20:
		b.changed = true
		b.old = b.rewrite(bytes.Repeat([]byte("CHANGED\n"), (1<<20)/8))
	case b.changed && !b.back && b.n >= 9<<19:
		b.back = true
		b.rewrite(b.old)
	}
	return n, err
}

// rewrite writes new at 3 MiB in the file and returns what was there.
func (b *changingBody) rewrite(new []byte) []byte {
	f, err := os.OpenFile(b.path, os.O_RDWR, 0)
	if err != nil {
		b.t.Error(err)
		return nil
	}
	defer f.Close()
	old := make([]byte, len(new))
	if _, err := f.ReadAt(old, 3<<20); err != nil {
		b.t.Error(err)
	}
	if _, err := f.WriteAt(new, 3<<20); err != nil {
		b.t.Error(err)
	}
	return old
}

// A file modified while it is read never leaves a snapshot that differs
// from what was hashed: the snapshot stored under the source hash holds
// exactly the bytes read (here neither the file before nor after).
func TestSnapshotOfFileChangedDuringRead(t *testing.T) {
	ctx := context.Background()
	ws := testws.New(t)
	content := bigText(6<<20+77, "before")
	ws.Write("big.log", string(content))
	path := filepath.Join(ws.Root, "big.log")
	src, err := file.New(file.Options{Root: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	st, err := sqlite.OpenStore(ctx, filepath.Join(ws.Root, ".retrieve", "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{changingSource{Source: src, path: path, t: t}}, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	res := mustGet(t, e, retrieve.Request{Target: "big.log", Constraints: retrieve.Constraints{Lines: "1-3"}})
	read := append(append(append([]byte{}, content[:3<<20]...), bytes.Repeat([]byte("CHANGED\n"), (1<<20)/8)...), content[4<<20:]...)
	now, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(now, content) {
		t.Fatalf("the file was not written back (%v)", err)
	}
	if *res.Citation.SourceHash != sha(read) {
		t.Fatalf("source hash %s: not the hash of the bytes read (%s); before and after: %s", *res.Citation.SourceHash, sha(read), sha(content))
	}
	entry, err := st.Entry(ctx, res.RetrievalID)
	if err != nil || entry.Snapshot != sha(read) {
		t.Fatalf("entry %+v, %v", entry, err)
	}
	if got := snapshotBytes(t, st, entry.Snapshot); !bytes.Equal(got, read) {
		t.Errorf("the snapshot holds %d bytes that are not the %d bytes read", len(got), len(read))
	}
	if has, _ := st.HasSnapshot(ctx, sha(content)); has {
		t.Error("a snapshot of the file as it is on disk was kept: no retrieval read those bytes")
	}
	// Read again, unchanged this time: the hash of the mixed read was not
	// remembered for the file (its identity changed while it was read).
	e2, err := engine.New(engine.Options{Sources: []retrieve.Source{src}, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	again := mustGet(t, e2, retrieve.Request{Target: "big.log", Constraints: retrieve.Constraints{Lines: "1-3"}})
	if *again.Citation.SourceHash != sha(content) {
		t.Errorf("read again: source hash %s, want %s", *again.Citation.SourceHash, sha(content))
	}
	if got := snapshotBytes(t, st, sha(content)); !bytes.Equal(got, content) {
		t.Errorf("read again: the snapshot differs from the file")
	}
}
