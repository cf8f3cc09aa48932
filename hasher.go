package retrieve

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"sync"
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
	ch    chan []byte
	done  chan struct{}
	pool  sync.Pool
}

func newStreamHasher(size int64) *streamHasher {
	s := &streamHasher{h: sha256.New()}
	if size > asyncThreshold {
		s.async = true
		s.ch = make(chan []byte, 8)
		s.done = make(chan struct{})
		go func() {
			for b := range s.ch {
				s.h.Write(b)
				s.pool.Put(b[:0]) //nolint:staticcheck // slices are pooled by value on purpose
			}
			close(s.done)
		}()
	}
	return s
}

func (s *streamHasher) Write(p []byte) (int, error) {
	s.n += int64(len(p))
	if !s.async {
		return s.h.Write(p)
	}
	var b []byte
	if v := s.pool.Get(); v != nil {
		b = v.([]byte)
	}
	s.ch <- append(b, p...)
	return len(p), nil
}

// sum finishes the hash and returns sha256:<hex>. It may be called once for
// an async hasher; later calls return the same value.
func (s *streamHasher) sum() string {
	if s.async && s.ch != nil {
		close(s.ch)
		<-s.done
		s.ch = nil
	}
	return "sha256:" + hex.EncodeToString(s.h.Sum(nil))
}

// close stops the hashing goroutine when the hash is not needed.
func (s *streamHasher) close() {
	if s.async && s.ch != nil {
		close(s.ch)
		<-s.done
		s.ch = nil
	}
}
