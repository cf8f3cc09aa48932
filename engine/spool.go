package engine

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/retrieve-dev/retrieve/store"
)

// spoolMemory is how much of a document a spool keeps in memory before it
// moves to a temporary file.
const spoolMemory = 8 << 20

// spool keeps a copy of the bytes streamed through the engine, so that they
// can be stored as a snapshot once their hash is known. A store that stages
// snapshots (store.SnapshotStager) takes the bytes itself, written once in
// the same pass as the hash; for the others, small documents stay in memory
// and large ones go to a temporary file in the workspace's state directory,
// never anywhere else.
type spool struct {
	stage store.SnapshotStage
	// known is set when the engine did not stream the body because the
	// store already holds its snapshot: nothing was written.
	known bool
	// stored is set once the snapshot was stored ahead of the ledger entry
	// (storeEarly), with the error of that write.
	stored    bool
	storedErr error

	dir  string
	buf  bytes.Buffer
	file *os.File
	err  error
}

// newSpool returns the spool of one recorded retrieval.
func (e *Engine) newSpool(ctx context.Context) *spool {
	if st, ok := e.store.(store.SnapshotStager); ok {
		if stage, err := st.StageSnapshot(ctx); err == nil {
			return &spool{stage: stage}
		}
	}
	return &spool{dir: e.spoolDir}
}

func (s *spool) Write(p []byte) (int, error) {
	if s.stage != nil {
		return s.stage.Write(p)
	}
	if s.err != nil {
		return len(p), nil // a failed spool never fails the retrieval
	}
	if s.file == nil && s.buf.Len()+len(p) <= spoolMemory {
		return s.buf.Write(p)
	}
	if s.file == nil {
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			s.err = fmt.Errorf("spool: %w", err)
			return len(p), nil
		}
		f, err := os.CreateTemp(s.dir, "spool-*")
		if err != nil {
			s.err = fmt.Errorf("spool: %w", err)
			return len(p), nil
		}
		s.file = f
		if _, err := f.Write(s.buf.Bytes()); err != nil {
			s.err = fmt.Errorf("spool: %w", err)
			return len(p), nil
		}
		s.buf = bytes.Buffer{}
	}
	if _, err := s.file.Write(p); err != nil {
		s.err = fmt.Errorf("spool: %w", err)
	}
	return len(p), nil
}

// expect makes room for a body of size bytes, when the size is known.
func (s *spool) expect(size int64) {
	if size <= 0 {
		return
	}
	if sz, ok := s.stage.(store.StageSizer); ok {
		sz.Expect(size)
	} else if s.stage == nil && s.buf.Len() == 0 && size <= spoolMemory {
		s.buf.Grow(int(size))
	}
}

// WriteShared implements store.SharedWriter: a stage that writes without a
// copy takes b; otherwise b is copied and released at once.
func (s *spool) WriteShared(b []byte, release func()) {
	if sw, ok := s.stage.(store.SharedWriter); ok {
		sw.WriteShared(b, release)
		return
	}
	s.Write(b)
	release()
}

// reader returns the spooled bytes from the start.
func (s *spool) reader() (io.Reader, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.file == nil {
		return bytes.NewReader(s.buf.Bytes()), nil
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	return s.file, nil
}

// close removes the temporary file, if any.
func (s *spool) close() {
	if s.stage != nil {
		s.stage.Abort()
		s.stage = nil
	}
	if s.file != nil {
		name := s.file.Name()
		s.file.Close()
		os.Remove(name)
		s.file = nil
	}
	s.buf = bytes.Buffer{}
}
