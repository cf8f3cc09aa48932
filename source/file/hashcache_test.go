package file

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
)

// cacheWorkspace is a workspace with a large file, a file source whose
// hash cache persists in dir, and an engine over it.
type cacheWorkspace struct {
	t      *testing.T
	root   string
	dir    string
	src    *Source
	engine *engine.Engine
}

func newCacheWorkspace(t *testing.T) *cacheWorkspace {
	t.Helper()
	w := &cacheWorkspace{t: t, root: t.TempDir()}
	w.dir = filepath.Join(w.root, ".retrieve", "cache", "hashes")
	w.reopen()
	return w
}

// reopen starts a new source and engine on the same workspace, as the next
// CLI process would.
func (w *cacheWorkspace) reopen() {
	w.t.Helper()
	src, err := New(Options{Root: w.root, NoGit: true, HashCache: w.dir})
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { src.Close() })
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{src}})
	if err != nil {
		w.t.Fatal(err)
	}
	w.src, w.engine = src, e
}

// content is size bytes of lines starting with tag.
func content(tag byte, size int) []byte {
	line := append([]byte{tag}, []byte(" line of a large file\n")...)
	b := bytes.Repeat(line, size/len(line)+1)
	return b[:size]
}

func (w *cacheWorkspace) write(name string, b []byte) {
	w.t.Helper()
	if err := os.WriteFile(filepath.Join(w.root, name), b, 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// get retrieves the first lines of name and checks that source_hash is the
// hash of want, the file's content now.
func (w *cacheWorkspace) get(name string, want []byte) {
	w.t.Helper()
	res, err := w.engine.Retrieve(context.Background(), retrieve.Request{Target: name, Constraints: retrieve.Constraints{Lines: "1-3"}})
	if err != nil {
		w.t.Fatal(err)
	}
	sum := sha256.Sum256(want)
	if got, exp := *res.Citation.SourceHash, "sha256:"+hex.EncodeToString(sum[:]); got != exp {
		w.t.Fatalf("source_hash %s, want %s (the file as it is now)", got, exp)
	}
	if *res.Extraction.OriginalSize != int64(len(want)) {
		w.t.Fatalf("original_size %d, want %d", *res.Extraction.OriginalSize, len(want))
	}
	if res.Retrieved.Data != string(want[:3*len(" line of a large file\n")+3]) {
		w.t.Fatalf("data %q", res.Retrieved.Data)
	}
}

func (w *cacheWorkspace) hits() int64 { return w.src.hashes.hits.Load() }

func TestHashCacheServesUnchangedFile(t *testing.T) {
	w := newCacheWorkspace(t)
	big := content('a', 2<<20)
	w.write("big.txt", big)
	later := func() time.Time { return time.Now().Add(time.Hour) } // past the racy window
	w.src.hashes.now = later
	w.get("big.txt", big)
	if w.hits() != 0 {
		t.Fatalf("%d hits on the first read", w.hits())
	}
	w.get("big.txt", big)
	if w.hits() != 1 {
		t.Fatalf("%d hits on the second read of an unchanged file, want 1", w.hits())
	}
	// The cache outlives the process: a new source finds the entry on disk.
	w.reopen()
	w.get("big.txt", big)
	if w.hits() != 1 {
		t.Fatalf("%d hits after a restart, want 1", w.hits())
	}
	// A small file is never cached: reading it whole is as cheap.
	w.write("small.txt", content('s', 4096))
	w.get("small.txt", content('s', 4096))
	w.get("small.txt", content('s', 4096))
	if w.hits() != 1 {
		t.Fatalf("%d hits, a small file was served from the cache", w.hits())
	}
}

// A file rewritten within the same second with the same size, its mtime
// set back, is never served with the old hash: its ctime changed.
func TestHashCacheSameSizeSameMtime(t *testing.T) {
	w := newCacheWorkspace(t)
	w.src.hashes.now = func() time.Time { return time.Now().Add(time.Hour) }
	a, b := content('a', 2<<20), content('b', 2<<20)
	w.write("big.txt", a)
	fi, err := os.Stat(filepath.Join(w.root, "big.txt"))
	if err != nil {
		t.Fatal(err)
	}
	w.get("big.txt", a)
	w.get("big.txt", a) // cached
	w.write("big.txt", b)
	if err := os.Chtimes(filepath.Join(w.root, "big.txt"), fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	w.get("big.txt", b)
	w.reopen()
	w.src.hashes.now = func() time.Time { return time.Now().Add(time.Hour) }
	w.get("big.txt", b)
}

// A file replaced by a rename (as editors and build tools save) is another
// inode: the old hash is not served, even with the same size and mtime.
func TestHashCacheReplacedByRename(t *testing.T) {
	w := newCacheWorkspace(t)
	w.src.hashes.now = func() time.Time { return time.Now().Add(time.Hour) }
	a, b := content('a', 2<<20), content('b', 2<<20)
	w.write("big.txt", a)
	fi, err := os.Stat(filepath.Join(w.root, "big.txt"))
	if err != nil {
		t.Fatal(err)
	}
	w.get("big.txt", a)
	w.get("big.txt", a)
	w.write("big.txt.new", b)
	if err := os.Chtimes(filepath.Join(w.root, "big.txt.new"), fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(w.root, "big.txt.new"), filepath.Join(w.root, "big.txt")); err != nil {
		t.Fatal(err)
	}
	w.get("big.txt", b)
}

// On a filesystem with coarse timestamps (simulated: every timestamp
// truncated to the second), a rewrite within the same second with the same
// size leaves the identity unchanged; the racy-clean rule keeps the hash
// recorded within that second from being trusted.
func TestHashCacheCoarseTimestamps(t *testing.T) {
	w := newCacheWorkspace(t)
	w.src.hashes.coarse = time.Second
	a, b, c := content('a', 2<<20), content('b', 2<<20), content('c', 2<<20)
	w.write("big.txt", a)
	path := filepath.Join(w.root, "big.txt")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	w.get("big.txt", a)
	for _, next := range [][]byte{b, c} {
		w.write("big.txt", next)
		if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		w.get("big.txt", next)
		w.reopen()
		w.src.hashes.coarse = time.Second
		w.get("big.txt", next)
	}
	if w.hits() != 0 {
		t.Fatalf("%d hits: a hash recorded within the timestamp granularity was trusted", w.hits())
	}
	// Once the hash is recorded well after the file's last change, it is
	// served.
	w.src.hashes.now = func() time.Time { return time.Now().Add(time.Hour) }
	w.get("big.txt", c)
	w.get("big.txt", c)
	if w.hits() != 1 {
		t.Fatalf("%d hits on an old file with coarse timestamps, want 1", w.hits())
	}
}

// A damaged cache entry is ignored, never trusted.
func TestHashCacheDamagedEntry(t *testing.T) {
	w := newCacheWorkspace(t)
	w.src.hashes.now = func() time.Time { return time.Now().Add(time.Hour) }
	a := content('a', 2<<20)
	w.write("big.txt", a)
	w.get("big.txt", a)
	ents, err := os.ReadDir(w.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != ".gitignore" {
			if err := os.WriteFile(filepath.Join(w.dir, e.Name()), []byte("v1 garbage"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	w.reopen()
	w.get("big.txt", a)
	if w.hits() != 0 {
		t.Fatalf("a damaged entry gave a hit")
	}
}
