// Package webcache is the revalidation cache of the web and api sources:
// it finds the last snapshot of a URL through the ledger, and remembers in
// memory what this process fetched or looked up, so that a batch or a
// server revalidates without a ledger query per page.
//
// Sources never import the store: the wiring hands them a *Ledger as their
// webclient.Cache.
package webcache

import (
	"context"
	"encoding/json"
	"io"
	"sync"

	"github.com/retrieve-dev/retrieve/internal/webclient"
	"github.com/retrieve-dev/retrieve/store"
)

// Ledger implements webclient.Cache and webclient.Rememberer over a store.
type Ledger struct {
	st       store.Store
	mu       sync.Mutex
	memo     map[string]*webclient.Cached
	memoSize int64
}

var (
	_ webclient.Cache      = (*Ledger)(nil)
	_ webclient.Rememberer = (*Ledger)(nil)
)

// New returns a cache over the ledger and snapshots of st.
func New(st store.Store) *Ledger { return &Ledger{st: st} }

// The memo is bounded: at most memoMax entries and memoBytes of bodies
// (past either it starts over), and no body over memoBodyMax is kept.
const (
	memoMax     = 4096
	memoBytes   = 64 << 20
	memoBodyMax = 1 << 20
)

func memoKey(kind, target, mode string) string { return kind + "\x00" + mode + "\x00" + target }

// Remember implements webclient.Rememberer.
func (c *Ledger) Remember(kind, target, mode string, v *webclient.Cached) {
	if len(v.Body) > memoBodyMax {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.memo == nil || len(c.memo) >= memoMax || c.memoSize+int64(len(v.Body)) > memoBytes {
		c.memo, c.memoSize = map[string]*webclient.Cached{}, 0
	}
	c.memo[memoKey(kind, target, mode)] = v
	c.memoSize += int64(len(v.Body))
}

// cachedResult is the part of a recorded result the cache reads.
type cachedResult struct {
	Citation struct {
		SourceHash *string `json:"source_hash"`
	} `json:"citation"`
	Provenance struct {
		SourceType string         `json:"source_type"`
		Metadata   map[string]any `json:"metadata"`
	} `json:"provenance"`
}

// Lookup implements webclient.Cache: the last successful get of target by
// a source of this kind in this mode that kept a snapshot, or nil, nil.
func (c *Ledger) Lookup(ctx context.Context, kind, target, mode string) (*webclient.Cached, error) {
	c.mu.Lock()
	v := c.memo[memoKey(kind, target, mode)]
	c.mu.Unlock()
	if v != nil {
		return v, nil
	}
	entries, err := c.st.Entries(ctx, store.Filter{Op: "get", Target: target, Status: store.StatusOK, Limit: 3})
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Snapshot == "" {
			continue
		}
		var r cachedResult
		if json.Unmarshal(e.Result, &r) != nil || r.Provenance.SourceType != kind {
			continue
		}
		md := r.Provenance.Metadata
		if m, _ := md[webclient.MetaMode].(string); m != mode {
			continue
		}
		rc, err := c.st.OpenSnapshot(ctx, e.Snapshot)
		if err != nil {
			continue
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			continue
		}
		out := &webclient.Cached{Body: body, At: e.Time, Metadata: md}
		out.ETag, _ = md[webclient.MetaETag].(string)
		out.LastModified, _ = md[webclient.MetaLastModified].(string)
		out.Format, _ = md[webclient.MetaBodyFormat].(string)
		if r.Citation.SourceHash != nil {
			out.SourceHash = *r.Citation.SourceHash
		}
		c.Remember(kind, target, mode, out)
		return out, nil
	}
	return nil, nil
}
