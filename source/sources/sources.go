// Package sources is the one list of the sources a retrieve program
// registers (restic's backend/all): the CLI, `serve` and the test tables
// build their engines from New, so the kinds and schemes every surface
// lists (the request schema's source enum, check's citation forms, the
// UI's filters) come from one registry. Adding a source is its package
// under source/ plus one line of New.
package sources

import (
	"context"
	"errors"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/internal/webclient"
	"github.com/retrieve-dev/retrieve/source/api"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/source/git"
	graphsrc "github.com/retrieve-dev/retrieve/source/graph"
	memsrc "github.com/retrieve-dev/retrieve/source/memory"
	sqlsrc "github.com/retrieve-dev/retrieve/source/sql"
	"github.com/retrieve-dev/retrieve/source/web"
	wikisrc "github.com/retrieve-dev/retrieve/source/wiki"
	"github.com/retrieve-dev/retrieve/wiki"
	"github.com/retrieve-dev/retrieve/workspace"
)

// Options are what the sources are built from.
type Options struct {
	// FS is the workspace, shared by the file, memory and wiki sources.
	// Required.
	FS *workspace.FS
	// Config is the workspace configuration (connections, web and api
	// options); nil is the default configuration.
	Config *config.Config
	// HashCache is the file source's persistent hash cache directory;
	// empty keeps the cache in memory.
	HashCache string
	// MemoryDir is the memory folder (--memory-dir); empty detects it.
	MemoryDir string
	// Graph opens the graph store on first use; nil leaves the graph
	// source (doc:, graph:) out.
	Graph func(context.Context) (graph.Store, error)
	// Wiki is the workspace wiki; nil leaves the wiki source (wiki:) out.
	Wiki *wiki.Wiki
	// WebCache, when set, is the snapshot lookup the web and api sources
	// revalidate through (internal/webcache over the ledger).
	WebCache webclient.Cache
	// SharedStore says the store is read by several users (PostgreSQL):
	// "Cache-Control: private" pages are not kept there.
	SharedStore bool
}

// New builds every source in resolution order, and closeAll releases what
// they hold (git's batch processes, SQL pools). On error, what was built
// is closed.
func New(opts Options) (srcs []retrieve.Source, closeAll func() error, err error) {
	if opts.FS == nil {
		return nil, nil, retrieve.Errorf(retrieve.CodeInternal, "sources: no workspace")
	}
	cfg := opts.Config
	if cfg == nil {
		cfg = &config.Config{}
	}
	var closers []func() error
	closeAll = func() error {
		var errs []error
		for i := len(closers) - 1; i >= 0; i-- {
			errs = append(errs, closers[i]())
		}
		return errors.Join(errs...)
	}
	defer func() {
		if err != nil {
			_ = closeAll()
			srcs, closeAll = nil, nil
		}
	}()
	root := opts.FS.Dir()
	fileSrc, err := file.New(file.Options{FS: opts.FS, HashCache: opts.HashCache})
	if err != nil {
		return nil, nil, err
	}
	closers = append(closers, fileSrc.Close)
	gitSrc, err := git.New(git.Options{Root: root, Deny: fileSrc.Deny()})
	if err != nil {
		return nil, nil, err
	}
	closers = append(closers, gitSrc.Close)
	sqlSrc := sqlsrc.New(sqlsrc.Options{Root: root, Connections: cfg.Connections})
	closers = append(closers, sqlSrc.Close)
	memSrc, err := memsrc.New(memsrc.Options{FS: opts.FS, Dir: opts.MemoryDir})
	if err != nil {
		return nil, nil, err
	}
	apiSrc, webSrc, err := webSources(cfg, opts.WebCache, opts.SharedStore)
	if err != nil {
		return nil, nil, err
	}
	srcs = []retrieve.Source{fileSrc, gitSrc, sqlSrc, memSrc}
	if opts.Graph != nil {
		srcs = append(srcs, graphsrc.New(opts.Graph))
	}
	if opts.Wiki != nil {
		srcs = append(srcs, wikisrc.New(opts.Wiki))
	}
	// api before web: its Matcher takes only the configured hosts, web
	// takes every other http(s) URL.
	srcs = append(srcs, apiSrc, webSrc)
	return srcs, closeAll, nil
}

// webSources builds the web and api sources over one guarded client.
func webSources(cfg *config.Config, cache webclient.Cache, shared bool) (*api.Source, *web.Source, error) {
	w := cfg.Web
	timeout, connect, err := w.Durations()
	if err != nil {
		return nil, nil, err
	}
	client := webclient.New(webclient.Options{
		Timeout:        timeout,
		ConnectTimeout: connect,
		Rate:           w.Rate,
		Burst:          w.Burst,
		Retries:        w.Retries,
		Allow:          w.AllowHosts,
	})
	wopts := web.Options{Client: client, AuthorityHosts: w.AuthorityHosts, TransferCap: w.Cap(), SharedStore: shared}
	aopts := api.Options{Client: client, Headers: cfg.API.Headers, Hosts: cfg.API.Hosts, AuthorityHosts: w.AuthorityHosts, TransferCap: w.Cap()}
	if cache != nil {
		wopts.Cache, aopts.Cache = cache, cache
	}
	return api.New(aopts), web.New(wopts), nil
}
