package main

import (
	"context"
	"path/filepath"

	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/internal/webcache"
	"github.com/retrieve-dev/retrieve/internal/webclient"
	"github.com/retrieve-dev/retrieve/source/sources"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/wiki"
)

// sourceOptions are the options of every source of the app (sources.New,
// the one list): with a store, the web and api sources revalidate their
// snapshots. When the store is read by several users (store.IsShared:
// PostgreSQL), "Cache-Control: private" pages are not kept there. The
// graph source opens the app's graph store on first use (app.graph).
func sourceOptions(a *app, st store.Store) sources.Options {
	var cache webclient.Cache
	if st != nil {
		cache = webcache.New(st)
	}
	return sources.Options{
		FS:          a.WS,
		Config:      a.Config,
		HashCache:   filepath.Join(a.Root, config.Dir, "cache", "hashes"),
		MemoryDir:   a.g.MemoryDir,
		Graph:       func(ctx context.Context) (graph.Store, error) { return a.graph(ctx, false) },
		Wiki:        &wiki.Wiki{Dir: wikiDir(a.Root), FS: a.WS},
		WebCache:    cache,
		SharedStore: store.IsShared(st),
	}
}
