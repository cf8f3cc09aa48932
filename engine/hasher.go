package engine

import (
	"crypto/sha256"
	"encoding/hex"

	"hash"
	"io"
	"sync"
	"sync/atomic"

	"github.com/retrieve-dev/retrieve/store"
)

// asyncThreshold is the document size above which hashing runs on its own
// goroutine, in parallel with reading and extraction: on a multi-core
// machine the stream then goes at the speed of sha256 alone.
const asyncThreshold = 4 << 20

// streamHasher hashes and counts the bytes written to it, either inline or,
// for large documents, on a separate goroutine fed with copies of the
// written chunks.
type streamHasher struct {
	h hash.Hash
	n int64

	async bool
	ch    chan piece  // chunks to hash, in order
	free  chan []byte // chunks hashed, to reuse: a fixed set, no garbage
	made  int         // chunks allocated so far, at most maxChunks
	done  chan struct{}
}

// asyncChunks is how many chunks can be in flight between the reader and
// the hashing goroutine.
const asyncChunks = 8

// maxChunks bounds the chunks of one hasher: the ones in flight, the one
// being hashed and the one being filled. Memory stays constant at
// maxChunks*chunkSize whatever the document's size.
const maxChunks = asyncChunks + 2

// chunkSize is the capacity of a chunk handed to the hashing goroutine.
// It is also the size of one read of the rest of a file: 2 MiB reads cost
// less CPU per byte than 1 MiB or smaller ones (fewer system calls and
// wake-ups, the kernel's copy no slower), measured on the first recorded
// retrieval of 1 GiB, where the chunks are shared with the snapshot
// file's writer (BenchmarkRetrieveLargeFile/record-first).
const chunkSize = 2 << 20

func newStreamHasher(size int64) *streamHasher {
	s := &streamHasher{h: sha256.New()}
	if size > asyncThreshold {
		s.async = true
		s.ch = make(chan piece, asyncChunks)
		s.free = make(chan []byte, maxChunks)
		s.done = make(chan struct{})
		go func() {
			for p := range s.ch {
				s.h.Write(p.b)
				p.release(s)
			}
			close(s.done)
		}()
	}
	return s
}

// piece is a chunk handed to the hashing goroutine. When it is shared
// with a snapshot writer too, refs counts the holders: the last to let go
// returns it to free.
type piece struct {
	b    []byte
	refs *atomic.Int32
}

func (p piece) release(s *streamHasher) {
	if p.refs == nil || p.refs.Add(-1) == 0 {
		s.free <- p.b[:0] // never blocks: free holds every chunk there is
	}
}

func (s *streamHasher) Write(p []byte) (int, error) {
	s.n += int64(len(p))
	if !s.async {
		return s.h.Write(p)
	}
	s.ch <- piece{b: append(s.chunk(), p...)}
	return len(p), nil
}

// chunk returns an empty chunk: a spare one, a new one while fewer than
// maxChunks exist, or the next one the hashing goroutine is done with.
func (s *streamHasher) chunk() []byte {
	select {
	case b := <-s.free:
		return b
	default:
	}
	if s.made < maxChunks {
		s.made++
		return (*chunkPool.Get().(*[]byte))[:0]
	}
	return <-s.free
}

// readFrom hashes the rest of r. An async hasher reads straight into the
// chunks it hands to its goroutine, so the bytes are copied once, by the
// kernel. also, when not nil, is written every byte too (the spool); when
// it is a store.SharedWriter, it gets the very chunks the hash reads, and
// nothing is copied in user space.
func (s *streamHasher) readFrom(r io.Reader, also io.Writer) error {
	if !s.async {
		w := io.Writer(s)
		if also != nil {
			w = io.MultiWriter(s, also)
		}
		buf := copyPool.Get().(*[]byte)
		defer copyPool.Put(buf)
		_, err := io.CopyBuffer(w, r, *buf)
		return err
	}
	shared, _ := also.(store.SharedWriter)
	for {
		b := s.chunk()
		n, err := io.ReadFull(r, b[:cap(b)])
		if n > 0 {
			p := piece{b: b[:n]}
			switch {
			case shared != nil:
				p.refs = new(atomic.Int32)
				p.refs.Store(2)
				shared.WriteShared(p.b, func() { p.release(s) })
			case also != nil:
				if _, werr := also.Write(b[:n]); werr != nil {
					return werr
				}
			}
			s.n += int64(n)
			s.ch <- p
		}
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return nil
		case err != nil:
			return err
		}
	}
}

// sum finishes the hash and returns sha256:<hex>. It may be called once for
// an async hasher; later calls return the same value.
func (s *streamHasher) sum() string {
	s.close()
	return "sha256:" + hex.EncodeToString(s.h.Sum(nil))
}

// close stops the hashing goroutine when the hash is not needed.
func (s *streamHasher) close() {
	if s.async && s.ch != nil {
		close(s.ch)
		<-s.done
		s.ch = nil
		// The chunks back in free go to the next hasher (one a snapshot
		// writer still holds comes back to free later, and is dropped).
		for {
			select {
			case b := <-s.free:
				chunkPool.Put(&b)
			default:
				return
			}
		}
	}
}

// chunkPool keeps the chunks of finished hashers for the next large
// document, so that large retrievals in a row make no garbage.
var chunkPool = sync.Pool{New: func() any { b := make([]byte, 0, chunkSize); return &b }}

// copyPool keeps the copy buffers of small documents' hashers: io.Copy
// would make a new 32 KiB one per retrieval (most of a small read's
// garbage, though what is left past the peeked head is often only EOF).
var copyPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}
