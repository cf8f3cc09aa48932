//go:build unix

package sqlite

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkSnapshotFile stores a 1 GiB file as a snapshot the way a
// first recorded retrieval does — the file read in 1 MiB chunks, each
// hashed and handed to the stage without a copy — beside two baselines
// measured in the same run: sha256-of-file (read and hash only, what
// `openssl dgst` does) and page-cache-write (read, hash, and write a copy
// through the page cache, as snapshot files were written before). It
// reports the CPU time of the process per operation (cpu-ns/op), which a
// loaded machine disturbs less than the wall time. The target: stage at
// most 1.5× sha256-of-file.
func BenchmarkSnapshotFile(b *testing.B) {
	const size = 1 << 30
	dir := b.TempDir()
	src := filepath.Join(dir, "src")
	f, err := os.Create(src)
	if err != nil {
		b.Fatal(err)
	}
	block := pattern(1 << 20)
	for i := range size >> 20 {
		binary.LittleEndian.PutUint64(block, uint64(i)) // no two blocks alike
		if _, err := f.Write(block); err != nil {
			b.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	// read streams src through fn in 1 MiB chunks, hashing them, and
	// returns the hash; fn gives each chunk back by calling its release.
	read := func(b *testing.B, fn func(p []byte, release func())) string {
		free := make(chan []byte, 10)
		for range cap(free) {
			free <- aligned(make([]byte, 1<<20))
		}
		f, err := os.Open(src)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		h := sha256.New()
		for {
			c := <-free
			n, err := io.ReadFull(f, c[:cap(c)])
			if n > 0 {
				h.Write(c[:n])
				fn(c[:n], func() { free <- c })
			}
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		return "sha256:" + hex.EncodeToString(h.Sum(nil))
	}
	b.Run("sha256-of-file", func(b *testing.B) {
		b.SetBytes(size)
		defer cpuPerOp(b)()
		for b.Loop() {
			read(b, func(_ []byte, release func()) { release() })
		}
	})
	b.Run("page-cache-write", func(b *testing.B) {
		b.SetBytes(size)
		defer cpuPerOp(b)()
		for b.Loop() {
			dst, err := os.Create(filepath.Join(dir, "copy"))
			if err != nil {
				b.Fatal(err)
			}
			read(b, func(p []byte, release func()) {
				if _, err := dst.Write(p); err != nil {
					b.Fatal(err)
				}
				release()
			})
			dst.Close()
			b.StopTimer()
			os.Remove(dst.Name())
			b.StartTimer()
		}
	})
	b.Run("stage", func(b *testing.B) {
		s, err := OpenStore(context.Background(), filepath.Join(dir, "retrieve.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		b.SetBytes(size)
		defer cpuPerOp(b)()
		for b.Loop() {
			st, _ := s.StageSnapshot(context.Background())
			hash := read(b, st.(*stage).WriteShared)
			if err := st.Commit(context.Background(), hash); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if _, err := s.SQL().Exec(`DELETE FROM snapshots`); err != nil {
				b.Fatal(err)
			}
			os.RemoveAll(s.objectsDir())
			b.StartTimer()
		}
	})
}

// cpuPerOp reports the process's CPU time (user and system) per
// operation: defer cpuPerOp(b)() around the loop.
func cpuPerOp(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
