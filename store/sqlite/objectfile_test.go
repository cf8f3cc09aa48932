package sqlite

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"unsafe"

	"github.com/retrieve-dev/retrieve"
)

// pattern returns n bytes that differ from block to block, so that a block
// written at the wrong offset shows.
func pattern(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(uint64(n), 7))
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	return b
}

// aligned returns a copy of b at an address aligned for direct I/O, as the
// engine's chunks are.
func aligned(b []byte) []byte {
	buf := make([]byte, len(b)+objectAlign)
	off := (objectAlign - int(uintptr(unsafe.Pointer(&buf[0]))%objectAlign)) % objectAlign
	out := buf[off : off+len(b)]
	copy(out, b)
	return out
}

// A snapshot file holds exactly the bytes written, whatever their sizes:
// copied writes of any length and shared aligned chunks, mixed, ending on
// a block boundary or not; every shared chunk is released once.
func TestObjectWriterBytes(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{1, objectAlign - 1, objectAlign, objectAlign + 1, objectBlock - 1, objectBlock, objectBlock + 1, 5*objectBlock + 12345, 40 * objectBlock} {
		want := pattern(size)
		w, err := newObjectWriter(dir)
		if err != nil {
			t.Fatal(err)
		}
		var released, shared atomic.Int32
		for rest, i := want, 0; len(rest) > 0; i++ {
			// Odd copied pieces, then whole aligned chunks shared, and a
			// misaligned one that must be copied.
			n := min(len(rest), []int{100, objectBlock, 3 * objectAlign, objectBlock, 7777}[i%5])
			p := rest[:n]
			rest = rest[n:]
			switch i % 5 {
			case 1, 2:
				shared.Add(1)
				w.WriteShared(aligned(p), func() { released.Add(1) })
			case 3:
				shared.Add(1)
				w.WriteShared(aligned(append(make([]byte, 1, n+1), p...))[1:], func() { released.Add(1) })
			default:
				w.Write(p)
			}
		}
		if err := w.finish(); err != nil {
			t.Fatalf("%d bytes: %v", size, err)
		}
		if released.Load() != shared.Load() {
			t.Errorf("%d bytes: %d shared chunks, %d released", size, shared.Load(), released.Load())
		}
		got, err := os.ReadFile(w.name)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d bytes (direct I/O %v): the file has %d bytes that differ (%v)", size, w.direct, len(got), err)
		}
		os.Remove(w.name)
	}
}

// A file system that accepts O_DIRECT but refuses a write (here: memory
// that is not aligned) gets the same bytes through the page cache.
func TestObjectWriterDirectRefused(t *testing.T) {
	w, err := newObjectWriter(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(w.name)
	if !w.direct {
		t.Skip("no direct I/O on this file system: nothing to fall back from")
	}
	want := pattern(2*objectBlock + 10)
	off := aligned(append(make([]byte, 1), want...))[1:] // one past an aligned address
	w.stop()                                             // write from this goroutine, no writer running
	if err := w.write([][]byte{off[:objectBlock]}); err != nil {
		t.Fatalf("the refused direct write did not fall back: %v", err)
	}
	if w.direct {
		t.Error("still direct after a refused write")
	}
	if err := w.write([][]byte{want[objectBlock:]}); err != nil {
		t.Fatal(err)
	}
	w.f.Close()
	if got, _ := os.ReadFile(w.name); !bytes.Equal(got, want) {
		t.Errorf("the file has %d bytes that differ from the %d written", len(got), len(want))
	}
}

// A full disk while a large snapshot is written is WRITE_FAILED saying the
// disk is full (never a damaged store), and leaves no snapshot. The disk
// is full for real: /dev/full returns the kernel's ENOSPC.
func TestSecuritySnapshotFileDiskFull(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	ctx := context.Background()
	s, err := OpenStore(ctx, filepath.Join(t.TempDir(), "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := pattern(3*objectBlock + 5)
	sum := sha256.Sum256(b)
	hash := "sha256:" + hex.EncodeToString(sum[:])
	st := &stage{s: s}
	st.Write(b[:100])
	// The stage's file is /dev/full; its name is one that does not exist,
	// so that nothing is removed but the stage's own.
	st.w = (&objectWriter{name: filepath.Join(t.TempDir(), "stage-x")}).start(full)
	st.w.Write(st.buf)
	st.buf = nil
	st.Write(b[100:])
	err = st.Commit(ctx, hash)
	e := retrieve.AsError(err)
	if err == nil || e.Code != retrieve.CodeWriteFailed || !strings.Contains(e.Message, "disk is full") || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("got %v (code %s), want WRITE_FAILED saying the disk is full", err, e.Code)
	}
	if strings.Contains(e.Hint, "move it away") || !strings.Contains(e.Hint, "free space") {
		t.Errorf("hint %q: must ask to free space, never to move the store", e.Hint)
	}
	if has, _ := s.HasSnapshot(ctx, hash); has {
		t.Error("a snapshot that was not written counts as stored")
	}
}
