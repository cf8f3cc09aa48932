package main

import (
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/internal/webcache"
	"github.com/retrieve-dev/retrieve/internal/webclient"
	"github.com/retrieve-dev/retrieve/source/api"
	"github.com/retrieve-dev/retrieve/source/web"
	"github.com/retrieve-dev/retrieve/store"
)

// newWebSources builds the web and api sources over one guarded client;
// with a store, the web source revalidates its snapshots. When the store
// is read by several users (store.IsShared: PostgreSQL), "Cache-Control:
// private" pages are not kept there.
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
	wopts := web.Options{Client: client, AuthorityHosts: w.AuthorityHosts, MaxBytes: w.MaxBytes, SharedStore: store.IsShared(st)}
	aopts := api.Options{Client: client, Headers: cfg.API.Headers, Hosts: cfg.API.Hosts, AuthorityHosts: w.AuthorityHosts, MaxBytes: w.MaxBytes}
	if st != nil {
		cache := webcache.New(st)
		wopts.Cache, aopts.Cache = cache, cache
	}
	// api first: its Matcher takes only the configured hosts, web takes
	// every other http(s) URL.
	return []retrieve.Source{api.New(aopts), web.New(wopts)}, nil
}
