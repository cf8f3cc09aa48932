package main

import (
	"context"
	"encoding/json"
	"io"

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
	if st != nil {
		wopts.Cache = &ledgerCache{st: st}
	}
	return []retrieve.Source{
		web.New(wopts),
		api.New(api.Options{Client: client, Headers: cfg.API.Headers, AuthorityHosts: w.AuthorityHosts, MaxBytes: w.MaxBytes}),
	}, nil
}

// ledgerCache finds the last snapshot of a URL through the ledger.
type ledgerCache struct{ st store.Store }

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
		return out, nil
	}
	return nil, nil
}
