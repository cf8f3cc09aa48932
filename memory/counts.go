package memory

import (
	"context"
	"math"
	"time"
)

// Counts are the notes' counts for an overview (graph_summary): every
// note, by tier, by tag, and how many are stale now. CheckedAt is set when
// they come from the index as of its last full check (countsNoFullCheck)
// rather than a new one.
type Counts struct {
	IndexCounts
	Stale     int
	CheckedAt time.Time
}

// countsNoFullCheck is the full-check interval of Counts: none, once a
// full check of the note files (every file's size and mtime) was made.
// Counts is the cheap overview: a new process stats the tier folders only
// (notes added, removed or renamed are seen; one edited in place since,
// without a rename, counts with its tags of then) and says when the last
// full check was, which every search makes past the service's
// FullCheckInterval (10 s for a CLI run: 100,000 stats at 100,000 notes,
// ~0.3 s here, six times the overview's budget).
const countsNoFullCheck = time.Duration(math.MaxInt64)

type checkEveryKey struct{}

// checkEvery is the full-check interval of a Refresh: the service's, or
// the longer one the caller put in ctx (Counts).
func checkEvery(ctx context.Context, every time.Duration) time.Duration {
	if d, ok := ctx.Value(checkEveryKey{}).(time.Duration); ok && d > every {
		return d
	}
	return every
}

// Counts counts the notes from the index, brought up to date first
// (Refresh: in a new process, a stat of the tier folders once a full
// check was made), without reading a note that did not change. ok
// is false when the service has no index: count a listing (List) then. A
// memory folder that does not exist is PATH_NOT_FOUND, as for List.
func (s *Service) Counts(ctx context.Context) (c *Counts, ok bool, err error) {
	if s.index == nil {
		return nil, false, nil
	}
	if _, err := s.fs.Stat(s.rel); err != nil {
		return nil, true, s.missing(err)
	}
	if _, err := s.Refresh(context.WithValue(ctx, checkEveryKey{}, countsNoFullCheck), nil); err != nil {
		return nil, true, err
	}
	s.mu.Lock()
	last := s.lastFull
	s.mu.Unlock()
	ic, err := s.index.MemoryCounts(ctx, s.rel)
	if err != nil {
		return nil, true, err
	}
	c = &Counts{IndexCounts: *ic}
	if s.now().Sub(last) >= s.every {
		c.CheckedAt = last
	}
	if _, isMarks := s.index.(MarkIndex); !isMarks {
		return c, true, nil
	}
	st, err := s.noteStates(ctx, nil, time.Time{})
	if err != nil {
		return nil, true, err
	}
	for _, n := range st {
		if n.Status == StatusStale {
			c.Stale++
		}
	}
	return c, true, nil
}
