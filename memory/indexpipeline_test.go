package memory_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// pipelineIndex is a real SQLite index whose writes can be held or made to
// fail, to watch the indexing pipeline.
type pipelineIndex struct {
	*sqlite.MemoryIndex
	mu      sync.Mutex
	batches []int
	// hold, when set, is waited for by the first write (or until a minute
	// passed, which the test reports).
	hold      chan struct{}
	heldUntil string
	failAt    int // the write (1-based) that fails; 0: none
}

var errWriteRefused = errors.New("the store refused the write")

func (p *pipelineIndex) MemoryUpsert(ctx context.Context, dir string, notes []memory.IndexNote) error {
	p.mu.Lock()
	p.batches = append(p.batches, len(notes))
	n := len(p.batches)
	p.mu.Unlock()
	if n == 1 && p.hold != nil {
		select {
		case <-p.hold:
			p.heldUntil = "released"
		case <-time.After(time.Minute):
			p.heldUntil = "timed out"
		}
	}
	if n == p.failAt {
		return errWriteRefused
	}
	return p.MemoryIndex.MemoryUpsert(ctx, dir, notes)
}

func pipelineService(t *testing.T, n int) (*memory.Service, *pipelineIndex) {
	t.Helper()
	root := t.TempDir()
	for _, tier := range memory.Tiers {
		if err := os.MkdirAll(filepath.Join(root, "memory", tier), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		body := fmt.Sprintf("note number %d about the walrus", i)
		if i == n-1 {
			body += " and the narwhal"
		}
		p := filepath.Join(root, "memory", "semantic", fmt.Sprintf("n%05d.md", i))
		if err := os.WriteFile(p, []byte(note(fmt.Sprintf("sem-20260416-%03d", i+1), fmt.Sprintf("Note %d", i), body)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base, err := sqlite.OpenMemoryIndex(context.Background(), filepath.Join(root, ".retrieve", "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { base.Close() })
	idx := &pipelineIndex{MemoryIndex: base}
	s, err := memory.New(memory.Options{Root: root, Dir: "memory", Index: idx})
	if err != nil {
		t.Fatal(err)
	}
	return s, idx
}

// TestReindexOverlapsReadingAndWriting: while the first batch is being
// written, the readers go on: the notes of the next batches are read and
// parsed before that write returns (before the pipeline, the one loop that
// wrote also gathered, and progress stopped during each write). Every
// note is indexed, in batches of 1,000.
func TestReindexOverlapsReadingAndWriting(t *testing.T) {
	s, idx := pipelineService(t, 2500)
	idx.hold = make(chan struct{})
	var once sync.Once
	progress := func(done, total int) {
		if done >= 2000 {
			once.Do(func() { close(idx.hold) })
		}
	}
	out, err := s.Reindex(context.Background(), memory.ReindexInput{Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	if idx.heldUntil != "released" {
		t.Fatalf("the first write was %s: no note was read while it ran", idx.heldUntil)
	}
	if out.Notes != 2500 || fmt.Sprint(idx.batches) != "[1000 1000 500]" {
		t.Fatalf("indexed %d notes in batches %v", out.Notes, idx.batches)
	}
	hits, err := memory.SearchIndex(context.Background(), idx, memory.IndexQuery{Dir: "memory", Limit: 5}, "narwhal")
	if err != nil || len(hits) != 1 || hits[0].Path != "semantic/n02499.md" {
		t.Fatalf("the last note is not found: %v %v", hits, err)
	}
}

// TestReindexWriteFailure: a write that fails ends the reindex with its
// error; the batches after it are not written, and nothing hangs.
func TestReindexWriteFailure(t *testing.T) {
	s, idx := pipelineService(t, 3500)
	idx.failAt = 2
	_, err := s.Reindex(context.Background(), memory.ReindexInput{})
	if !errors.Is(err, errWriteRefused) {
		t.Fatalf("want the store's error, got %v", err)
	}
	if len(idx.batches) != 2 {
		t.Fatalf("batches written after the failure: %v", idx.batches)
	}
}
