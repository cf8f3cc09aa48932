package sqlite

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"unsafe"
)

// A large snapshot file is written by an objectWriter: the reading
// goroutine copies what it reads into aligned blocks, and a second
// goroutine writes the full blocks, so that on a machine with two cores
// the hash runs on one and the write on the other, and the reader never
// waits for the disk unless the disk is slower than the hash (then the
// retrieval goes at the speed of the disk: no more than writerBlocks
// blocks wait in memory).
//
// Where the file system supports it (Linux: O_DIRECT), the blocks go
// straight from memory to the disk, past the page cache. A buffered write
// of 1 GiB costs the writing process about as much CPU as hashing it (the
// copy into freshly allocated cache pages, ext4's delayed allocation, and
// the kernel throttling a writer that dirties pages faster than they are
// written back), and it fills the page cache with a copy of bytes that are
// read again only by verify or a fallback. A direct write costs almost no
// CPU: the device reads the block itself.
const (
	// objectBlock is the size of one write. Direct writes need their
	// memory, offset and length aligned to the device's logical block.
	objectBlock = 1 << 20
	// objectAlign is the alignment of the blocks: the page size, a
	// multiple of every logical block size in use.
	objectAlign = 4096
	// writerBlocks bounds the blocks of one writer: the one being filled,
	// the one being written, and those waiting.
	writerBlocks = 8
	// writerBatch is the most blocks written by one system call.
	writerBatch = 16
)

// blockPool keeps aligned blocks for the next writer.
var blockPool = sync.Pool{New: func() any {
	b := make([]byte, objectBlock+objectAlign)
	off := (objectAlign - int(uintptr(unsafe.Pointer(&b[0]))%objectAlign)) % objectAlign
	b = b[off : off+objectBlock : off+objectBlock]
	return &b
}}

// objectWriter writes one file on its own goroutine. Write never fails:
// the first error is kept and returned by finish, and the rest of the
// bytes are then dropped.
type objectWriter struct {
	f      *os.File
	name   string
	direct bool

	cur  []byte      // the block being filled
	n    int64       // bytes accepted
	full chan item   // blocks to write, in order
	free chan []byte // blocks written, to reuse
	made int         // blocks taken from the pool
	done chan struct{}

	// Owned by the writing goroutine until done is closed.
	off    int64 // bytes written
	padded bool  // the last block was padded to objectAlign: truncate
	err    error
}

// item is a block to write: one of the writer's, or a caller's shared
// buffer, handed back by calling release.
type item struct {
	b       []byte
	release func()
}

// newObjectWriter creates a new file in dir and starts its writer.
func newObjectWriter(dir string) (*objectWriter, error) {
	var rnd [12]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	name := filepath.Join(dir, "stage-"+hex.EncodeToString(rnd[:]))
	w := &objectWriter{name: name}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|directFlag, 0o644)
	if err != nil && directFlag != 0 && errors.Is(err, syscall.EINVAL) {
		// The file system refuses direct I/O (tmpfs before Linux 6.6):
		// buffered writes, as on other systems.
		f, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	} else if err == nil {
		w.direct = directFlag != 0
	}
	if err != nil {
		return nil, err
	}
	return w.start(f), nil
}

// start starts the writer of f.
func (w *objectWriter) start(f *os.File) *objectWriter {
	w.f = f
	w.full = make(chan item, writerBatch)
	w.free = make(chan []byte, writerBlocks)
	w.done = make(chan struct{})
	go w.run()
	return w
}

func (w *objectWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if w.cur == nil {
			w.cur = w.block()
		}
		c := copy(w.cur[len(w.cur):cap(w.cur)], p)
		w.cur = w.cur[:len(w.cur)+c]
		p = p[c:]
		if len(w.cur) == cap(w.cur) {
			w.full <- item{b: w.cur}
			w.cur = nil
		}
	}
	w.n += int64(n)
	return n, nil
}

// WriteShared writes b without copying it when it can be written as it
// is: its address and length aligned, and the file so far too (what is
// being filled is then queued as it is first). Otherwise b is copied.
func (w *objectWriter) WriteShared(b []byte, release func()) {
	if len(b) == 0 || len(b)%objectAlign != 0 || len(w.cur)%objectAlign != 0 ||
		uintptr(unsafe.Pointer(&b[0]))%objectAlign != 0 {
		w.Write(b)
		release()
		return
	}
	if len(w.cur) > 0 {
		w.full <- item{b: w.cur}
		w.cur = nil
	}
	w.n += int64(len(b))
	w.full <- item{b: b, release: release}
}

// block returns an empty block: a written one, a new one while fewer than
// writerBlocks exist, or the next one the writer is done with.
func (w *objectWriter) block() []byte {
	select {
	case b := <-w.free:
		return b
	default:
	}
	if w.made < writerBlocks {
		w.made++
		return (*blockPool.Get().(*[]byte))[:0]
	}
	return <-w.free
}

func (w *objectWriter) run() {
	defer close(w.done)
	batch := make([]item, 0, writerBatch)
	bufs := make([][]byte, 0, writerBatch)
	for it := range w.full {
		// Every block queued by now goes in the same write: fewer and
		// larger writes, so a loaded machine, which is slow to wake the
		// writer after each one, costs less.
		batch = append(batch[:0], it)
	more:
		for len(batch) < writerBatch {
			select {
			case it, ok := <-w.full:
				if !ok {
					break more
				}
				batch = append(batch, it)
			default:
				break more
			}
		}
		if w.err == nil {
			bufs = bufs[:0]
			for _, it := range batch {
				bufs = append(bufs, it.b)
			}
			w.err = w.write(bufs)
		}
		for _, it := range batch {
			if it.release != nil {
				it.release()
			} else {
				w.free <- it.b[:0] // never blocks: free has room for every block
			}
		}
	}
}

// write writes bufs at the end of the file. A short last buffer (the end
// of the file) is padded with zeros to the alignment a direct write
// needs, and the file is cut to its length by finish.
func (w *objectWriter) write(bufs [][]byte) error {
	total := 0
	for _, b := range bufs {
		total += len(b)
	}
	last := len(bufs) - 1
	n := len(bufs[last])
	if w.direct && n%objectAlign != 0 {
		b := bufs[last][:n+objectAlign-n%objectAlign] // within the block: its capacity is a multiple
		clear(b[n:])
		bufs[last] = b
		w.padded = true
	}
	err := writeAt(w.f, bufs, w.off)
	if err != nil && w.direct && errors.Is(err, syscall.EINVAL) {
		// Direct I/O refused (a file system that accepts the flag but not
		// the alignment): write through the page cache from here on, the
		// whole batch again.
		if err = w.buffered(); err == nil {
			bufs[last] = bufs[last][:n]
			w.padded = false
			err = writeAt(w.f, bufs, w.off)
		}
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", w.name, err)
	}
	w.off += int64(total)
	return nil
}

// buffered reopens the file without O_DIRECT.
func (w *objectWriter) buffered() error {
	f, err := os.OpenFile(w.name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	w.f.Close()
	w.f, w.direct = f, false
	return nil
}

// finish writes what is left, waits for the writer and closes the file:
// it is then whole, or finish returns why not.
func (w *objectWriter) finish() error {
	if len(w.cur) > 0 {
		w.full <- item{b: w.cur}
		w.cur = nil
	}
	w.stop()
	err := w.err
	if err == nil && w.padded {
		err = w.f.Truncate(w.off)
	}
	if err == nil && w.off != w.n {
		err = fmt.Errorf("write %s: %d of %d bytes written", w.name, w.off, w.n)
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// stop ends the writing goroutine (once) and returns its blocks.
func (w *objectWriter) stop() {
	if w.full == nil {
		return
	}
	close(w.full)
	<-w.done
	w.full = nil
	if b := w.cur; b != nil {
		blockPool.Put(&b)
		w.cur = nil
	}
	for {
		select {
		case b := <-w.free:
			blockPool.Put(&b)
		default:
			return
		}
	}
}

// abort drops the file.
func (w *objectWriter) abort() {
	w.stop()
	w.f.Close()
	os.Remove(w.name)
}
