package main

import (
	"path/filepath"

	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/internal/webcache"
	"github.com/retrieve-dev/retrieve/internal/webclient"
	"github.com/retrieve-dev/retrieve/source/sources"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/wiki"
)

// sourceOptions are the options of every source of the app (sources.New,
// the one list): with a store, the web and api sources revalidate their
// snapshots. shared says the store is read by several users (PostgreSQL):
// "Cache-Control: private" pages are not kept there.
func sourceOptions(a *app, g *globalOptions, st store.Store, shared bool) sources.Options {
	var cache webclient.Cache
	if st != nil {
		cache = webcache.New(st)
	}
	return sources.Options{
		FS:          a.WS,
		Config:      a.Config,
		HashCache:   filepath.Join(a.Root, config.Dir, "cache", "hashes"),
		MemoryDir:   g.MemoryDir,
		Graph:       lazyGraph(a),
		Wiki:        &wiki.Wiki{Dir: wikiDir(a.Root), FS: a.WS},
		WebCache:    cache,
		SharedStore: shared,
	}
}
