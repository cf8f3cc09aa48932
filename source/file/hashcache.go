package file

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// HashCacheMin is the smallest file whose hash is cached: a smaller file
// is read whole anyway (one read buffer), so its hash costs nothing extra.
const HashCacheMin = 1 << 20

// hashCache remembers the sha256 of large files by their identity — device,
// inode, size, mtime and ctime in nanoseconds — so that a ranged read of an
// unchanged file costs the range instead of the whole file. It follows
// git's racy-clean rule: an entry recorded less than a timestamp
// granularity after the file last changed is not trusted, since the file
// could have changed again within the same timestamp tick without its
// identity changing. Entries are kept in memory and, when dir is set, one
// small file per inode in dir, so that they outlive the process.
type hashCache struct {
	dir string // "" keeps entries in memory only

	mu  sync.Mutex
	mem map[fileKey]hashEntry

	// now and coarse are for tests: the clock, and a granularity to which
	// file timestamps are truncated, as on a filesystem with coarse
	// timestamps (FAT, some network filesystems).
	now    func() time.Time
	coarse time.Duration

	hits, misses atomic.Int64
}

// fileKey names a file: its device and inode.
type fileKey struct{ dev, ino uint64 }

// fileID is what identifies a file's content version.
type fileID struct {
	key          fileKey
	size         int64
	mtime, ctime int64 // nanoseconds since the epoch
}

type hashEntry struct {
	id       fileID
	recorded int64 // when the hash was recorded, nanoseconds since the epoch
	hash     string
}

func newHashCache(dir string) *hashCache {
	return &hashCache{dir: dir, mem: map[fileKey]hashEntry{}, now: time.Now}
}

// identify returns the identity of an opened file from its Stat (which
// works through os.Root), or false when the platform does not give one.
func (c *hashCache) identify(fi os.FileInfo) (fileID, bool) {
	id, ok := statID(fi)
	if ok && c.coarse > 0 {
		id.mtime -= id.mtime % int64(c.coarse)
		id.ctime -= id.ctime % int64(c.coarse)
	}
	return id, ok
}

// racyWindow is how long after a file's last change a hash recorded for it
// is not trusted: at least the filesystem's timestamp granularity. A
// timestamp with no sub-second part may come from a coarse filesystem (one
// second, two on FAT); otherwise the kernel's coarse clock ticks in a few
// milliseconds.
func racyWindow(id fileID) int64 {
	if id.mtime%int64(time.Second) == 0 || id.ctime%int64(time.Second) == 0 {
		return int64(2 * time.Second)
	}
	return int64(100 * time.Millisecond)
}

// lookup returns the cached hash of the file with identity id, or "".
func (c *hashCache) lookup(id fileID) string {
	if id.size < HashCacheMin {
		return ""
	}
	c.mu.Lock()
	e, ok := c.mem[id.key]
	c.mu.Unlock()
	if !ok || e.id != id {
		if d, found := c.load(id.key); found {
			e, ok = d, true
		}
	}
	if !ok || e.id != id {
		c.misses.Add(1)
		return ""
	}
	// Racy-clean: the file may have changed again within the timestamp tick
	// it last changed in, after the hash was taken, without any of its
	// identity changing. Only a hash recorded clearly after that tick holds.
	w := racyWindow(id)
	if e.recorded <= id.mtime+w || e.recorded <= id.ctime+w {
		c.misses.Add(1)
		return ""
	}
	c.hits.Add(1)
	return e.hash
}

// remember records hash for the file f opened with identity id, unless the
// file's identity changed while it was read.
func (c *hashCache) remember(f *os.File, id fileID, hash string) {
	if id.size < HashCacheMin {
		return
	}
	fi, err := f.Stat()
	if err != nil {
		return
	}
	if now, ok := c.identify(fi); !ok || now != id {
		return
	}
	e := hashEntry{id: id, recorded: c.now().UnixNano(), hash: hash}
	c.mu.Lock()
	c.mem[id.key] = e
	c.mu.Unlock()
	c.store(e)
}

func (c *hashCache) path(k fileKey) string {
	return filepath.Join(c.dir, fmt.Sprintf("%x-%x", k.dev, k.ino))
}

// load reads the entry of k from dir.
func (c *hashCache) load(k fileKey) (hashEntry, bool) {
	if c.dir == "" {
		return hashEntry{}, false
	}
	b, err := os.ReadFile(c.path(k))
	if err != nil {
		return hashEntry{}, false
	}
	f := strings.Fields(string(b))
	if len(f) != 6 || f[0] != "v1" || !strings.HasPrefix(f[5], "sha256:") {
		return hashEntry{}, false
	}
	var n [4]int64
	for i := range n {
		if n[i], err = strconv.ParseInt(f[i+1], 10, 64); err != nil {
			return hashEntry{}, false
		}
	}
	e := hashEntry{id: fileID{key: k, size: n[0], mtime: n[1], ctime: n[2]}, recorded: n[3], hash: f[5]}
	c.mu.Lock()
	c.mem[k] = e
	c.mu.Unlock()
	return e, true
}

// store writes e to dir, atomically (a reader sees the old entry or the
// new one). A failure only costs a rehash later.
func (c *hashCache) store(e hashEntry) {
	if c.dir == "" {
		return
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return
	}
	gi := filepath.Join(c.dir, ".gitignore")
	if _, err := os.Stat(gi); err != nil {
		_ = os.WriteFile(gi, []byte("*\n"), 0o644)
	}
	tmp, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return
	}
	_, err = fmt.Fprintf(tmp, "v1 %d %d %d %d %s\n", e.id.size, e.id.mtime, e.id.ctime, e.recorded, e.hash)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), c.path(e.id.key))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}
