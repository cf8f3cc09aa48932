package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
)

// Ledger appends are group-committed: concurrent Append calls of one
// process are queued, and each of a few flushers takes what is waiting
// (up to maxBatch) and inserts it with its leaves in one statement
// (appendBatchSQL), so that many requests share one round trip, one
// update of the log's position and one commit. A lone Append is flushed at
// once, without waiting for company.
const (
	flushers = 2
	maxBatch = 128
	// flushTimeout bounds a flush whose requests have no deadline.
	flushTimeout = 30 * time.Second
)

type appendReq struct {
	ctx  context.Context
	args []any
	done chan error
}

type appender struct {
	once sync.Once
	ch   chan *appendReq
	quit chan struct{}
	wg   sync.WaitGroup
}

func (s *Store) startAppender() {
	s.app.once.Do(func() {
		s.app.ch = make(chan *appendReq)
		s.app.quit = make(chan struct{})
		for range flushers {
			s.app.wg.Add(1)
			go s.flushLoop()
		}
	})
}

func (s *Store) stopAppender() {
	s.startAppender() // so that quit exists
	close(s.app.quit)
	s.app.wg.Wait()
}

func (s *Store) flushLoop() {
	defer s.app.wg.Done()
	for {
		var first *appendReq
		select {
		case first = <-s.app.ch:
		case <-s.app.quit:
			return
		}
		batch := []*appendReq{first}
	drain:
		for len(batch) < maxBatch {
			select {
			case r := <-s.app.ch:
				batch = append(batch, r)
			default:
				break drain
			}
		}
		s.flush(batch)
	}
}

// enqueue hands the entry to a flusher and waits for its commit.
func (s *Store) enqueue(ctx context.Context, args []any) error {
	s.startAppender()
	r := &appendReq{ctx: ctx, args: args, done: make(chan error, 1)}
	select {
	case s.app.ch <- r:
	case <-ctx.Done():
		return wrap(s.where, "cannot append a ledger entry", ctx.Err())
	case <-s.app.quit:
		return retrieve.Errorf(retrieve.CodeStoreUnavailable, "the store %s is closed", s.where)
	}
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		// The entry may still be committed; the caller was not told so.
		return wrap(s.where, "cannot append a ledger entry", ctx.Err())
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
		batch[0].done <- s.insertOne(ctx, batch[0].args, false)
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
			r.done <- nil
		}
		return
	}
	// One entry may be refused (a duplicate id, a snapshot gone: then
	// none was inserted), or the connection broke: insert them one by one,
	// so that each caller gets its own answer.
	for _, r := range batch {
		r.done <- s.insertOne(ctx, r.args, ambiguous)
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
