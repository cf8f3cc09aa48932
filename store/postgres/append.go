package postgres

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
)

// Ledger appends are group-committed only when they overlap. A lone
// Append runs its statement in the caller's goroutine, with no hand-off
// to another goroutine (on a loaded machine each hand-off is a task
// switch, and they cost a recorded read more than its statement). While
// an append is under way, a new one waits in a queue; when the flush
// ends, it hands what is waiting (up to maxBatch) to a goroutine, which
// inserts the batch with its leaves in one statement (appendBatchSQL), so
// that many requests share one round trip, one update of the log's
// position and one commit, and goes on with the queue until it is empty.
// One flush at a time: the row lock of ledger_log serializes commits
// anyway, and a second flush slot took entries alone that would have
// joined a batch (docs/ledger.md, fourth round). No Append waits for
// company.
const (
	maxBatch = 128
	// flushTimeout bounds a flush whose requests have no deadline.
	flushTimeout = 30 * time.Second
)

type appendReq struct {
	ctx  context.Context
	args []any
	err  error
	done chan error // nil for the caller that flushes its own request
}

// finish gives r its answer.
func (r *appendReq) finish(err error) {
	r.err = err
	if r.done != nil {
		r.done <- err
	}
}

type appender struct {
	mu     sync.Mutex
	active int          // flushes under way (0 or 1), in a caller or in drain
	queue  []*appendReq // appends waiting for a flush to end
	closed bool
	wg     sync.WaitGroup // one per active flush
}

// stopAppender refuses new appends and waits for the flushes under way
// (they empty the queue first).
func (s *Store) stopAppender() {
	s.app.mu.Lock()
	s.app.closed = true
	s.app.mu.Unlock()
	s.app.wg.Wait()
}

// enqueue appends the entry and waits for its commit: in the caller's
// goroutine when no append is under way, else in the next batch.
func (s *Store) enqueue(ctx context.Context, args []any) error {
	r := &appendReq{ctx: ctx, args: args}
	a := &s.app
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return retrieve.Errorf(retrieve.CodeStoreUnavailable, "the store %s is closed", s.where)
	}
	if a.active == 0 {
		a.active++
		a.wg.Add(1)
		a.mu.Unlock()
		s.flush([]*appendReq{r})
		if next := s.next(); next != nil {
			go s.drain(next)
		}
		return r.err
	}
	r.done = make(chan error, 1)
	a.queue = append(a.queue, r)
	a.mu.Unlock()
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		a.mu.Lock()
		i := slices.Index(a.queue, r)
		if i >= 0 {
			a.queue = slices.Delete(a.queue, i, i+1)
		}
		a.mu.Unlock()
		if i >= 0 {
			return wrap(s.where, "cannot append a ledger entry (not appended)", ctx.Err())
		}
		// The entry may still be committed; the caller was not told so.
		return wrap(s.where, "cannot append a ledger entry", ctx.Err())
	}
}

// next ends a flush: it returns the waiting appends (up to maxBatch) for
// the same flush slot to insert, or nil when none waits, after giving the
// slot up.
func (s *Store) next() []*appendReq {
	a := &s.app
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.queue) == 0 {
		a.active--
		a.wg.Done()
		return nil
	}
	n := min(len(a.queue), maxBatch)
	batch := slices.Clone(a.queue[:n])
	a.queue = slices.Delete(a.queue, 0, n)
	return batch
}

// drain inserts batch, then what waits meanwhile, until nothing does.
func (s *Store) drain(batch []*appendReq) {
	for batch != nil {
		s.flush(batch)
		batch = s.next()
	}
}

// flushCtx lives as long as the latest deadline of the batch (never
// canceled by one request giving up, which would fail the others).
func flushCtx(batch []*appendReq) (context.Context, context.CancelFunc) {
	var latest time.Time
	for _, r := range batch {
		d, ok := r.ctx.Deadline()
		if !ok {
			latest = time.Now().Add(flushTimeout)
			break
		}
		if d.After(latest) {
			latest = d
		}
	}
	return context.WithDeadline(context.Background(), latest)
}

func (s *Store) flush(batch []*appendReq) {
	ctx, cancel := flushCtx(batch)
	defer cancel()
	if len(batch) == 1 {
		batch[0].finish(s.insertOne(ctx, batch[0].args, false))
		return
	}
	rows := make([][]any, len(batch))
	for i, r := range batch {
		rows[i] = r.args
	}
	args := batchArgs(rows)
	var n int
	ambiguous, err := s.retry(ctx, func() error {
		return s.pool.QueryRow(ctx, s.appendBatchStmt(), args...).Scan(&n) // one statement, one transaction
	})
	if err == nil && n == len(batch) {
		for _, r := range batch {
			r.finish(nil)
		}
		return
	}
	// One entry may be refused (a duplicate id, a snapshot gone: then
	// none was inserted), or the connection broke: insert them one by one,
	// so that each caller gets its own answer.
	for _, r := range batch {
		r.finish(s.insertOne(ctx, r.args, ambiguous))
	}
}

// insertOne inserts one entry. maybeDone says an earlier attempt may have
// committed it, so that finding its id already there is success.
func (s *Store) insertOne(ctx context.Context, args []any, maybeDone bool) error {
	var n int
	ambiguous, err := s.retry(ctx, func() error {
		return s.pool.QueryRow(ctx, s.appendStmt(), args...).Scan(&n)
	})
	if err != nil && (ambiguous || maybeDone) && isUniqueViolation(err) {
		return nil // an earlier attempt was applied before its connection broke
	}
	if err != nil {
		return wrap(s.where, "cannot append a ledger entry", err)
	}
	if n == 0 {
		// Only a cited snapshot that is gone inserts nothing (appendSQL):
		// a gc, here or in another replica, dropped it after this store
		// saw it. Forget every snapshot seen: that gc may have dropped
		// others.
		hash := args[9].(string)
		s.seen.clear()
		return retrieve.Errorf(retrieve.CodeNotFound, "snapshot %s was dropped by a gc before the entry citing it was committed", hash).
			WithHint("the retrieval can be recorded without its snapshot; a new read stores the bytes again").
			WithErr(store.ErrSnapshotGone)
	}
	return nil
}
