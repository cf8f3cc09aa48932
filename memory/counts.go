package memory

import (
	"context"
	"time"
)

// Counts are the notes' counts for an overview (graph_summary): every
// note, by tier, by tag, and how many are stale now.
type Counts struct {
	IndexCounts
	Stale int
}

// Counts counts the notes from the index, brought up to date first
// (Refresh: in a new process, a stat of the tier folders while the last
// full check is recent), without reading a note that did not change. ok
// is false when the service has no index: count a listing (List) then. A
// memory folder that does not exist is PATH_NOT_FOUND, as for List.
func (s *Service) Counts(ctx context.Context) (c *Counts, ok bool, err error) {
	if s.index == nil {
		return nil, false, nil
	}
	if _, err := s.fs.Stat(s.rel); err != nil {
		return nil, true, s.missing(err)
	}
	if _, err := s.Refresh(ctx, nil); err != nil {
		return nil, true, err
	}
	ic, err := s.index.MemoryCounts(ctx, s.rel)
	if err != nil {
		return nil, true, err
	}
	c = &Counts{IndexCounts: *ic}
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
