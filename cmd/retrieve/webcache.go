package main

import (
	"context"
	"encoding/json"
	"io"
	"sync"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/internal/webclient"
	"github.com/retrieve-dev/retrieve/source/api"
	"github.com/retrieve-dev/retrieve/source/web"
	"github.com/retrieve-dev/retrieve/store"
)

// newWebSources builds the web and api sources over one guarded client;
// with a store, the web source revalidates its snapshots.
func newWebSources(cfg *config.Config, st store.Store) ([]retrieve.Source, error) {
	w := cfg.Web
	timeout, connect, err := w.Durations()
	if err != nil {
		return nil, err
	}
	client := webclient.New(webclient.Options{
		Timeout:        timeout,
		ConnectTimeout: connect,
		Rate:           w.Rate,
		Burst:          w.Burst,
		Retries:        w.Retries,
		Allow:          w.AllowHosts,
	})
	wopts := web.Options{Client: client, AuthorityHosts: w.AuthorityHosts, MaxBytes: w.MaxBytes}
	aopts := api.Options{Client: client, Headers: cfg.API.Headers, Hosts: cfg.API.Hosts, AuthorityHosts: w.AuthorityHosts, MaxBytes: w.MaxBytes}
	if st != nil {
		cache := &ledgerCache{st: st}
		wopts.Cache, aopts.Cache = cache, cache
	}
	// api first: its Matcher takes only the configured hosts, web takes
	// every other http(s) URL.
	return []retrieve.Source{api.New(aopts), web.New(wopts)}, nil
}

// ledgerCache finds the last snapshot of a URL through the ledger, and
// remembers in memory what this process fetched or looked up, so that a
// batch or a server revalidates without a ledger query per page.
type ledgerCache struct {
	st       store.Store
	mu       sync.Mutex
	memo     map[string]*webclient.Cached
	memoSize int64
}

// The memo is bounded: at most memoMax entries and memoBytes of bodies
// (past either it starts over), and no body over memoBodyMax is kept.
const (
	memoMax     = 4096
	memoBytes   = 64 << 20
	memoBodyMax = 1 << 20
)

func memoKey(kind, target, mode string) string { return kind + "\x00" + mode + "\x00" + target }

// Remember implements webclient.Rememberer.
func (c *ledgerCache) Remember(kind, target, mode string, v *webclient.Cached) {
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

func (c *ledgerCache) Lookup(ctx context.Context, kind, target, mode string) (*webclient.Cached, error) {
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
		if m, _ := md["web_mode"].(string); m != mode {
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
		out.ETag, _ = md["etag"].(string)
		out.LastModified, _ = md["last_modified_header"].(string)
		out.Format, _ = md["body_format"].(string)
		if r.Citation.SourceHash != nil {
			out.SourceHash = *r.Citation.SourceHash
		}
		c.Remember(kind, target, mode, out)
		return out, nil
	}
	return nil, nil
}
