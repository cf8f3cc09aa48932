package main

import (
	"context"
	"path/filepath"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/extract/codeparser"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/source/sources"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/stores"
	"github.com/retrieve-dev/retrieve/workspace"
)

// app is the wired program: the configuration, the store, the engine and
// everything they own.
type app struct {
	Root    string
	WS      *workspace.FS // the workspace, the one way to its files
	Config  *config.Config
	Engine  *engine.Engine
	Store   store.Store // nil when recording is off or the store is unavailable
	closers []func() error

	// StoreTarget is the store chosen by --store, RETRIEVE_STORE or the
	// configuration (print it only through its String method, which redacts).
	StoreTarget stores.Target
}

// storeNeed says how much a command needs the store.
type storeNeed int

const (
	storeOptional storeNeed = iota // use it when it opens; retrieve anyway
	storeRequired                  // fail when it does not open
	// storeServer is storeOptional for a long-running server: its ledger
	// appends are acknowledged from the journal (docs/ledger.md).
	storeServer
)

// storePath is the embedded store of a workspace root.
func storePath(root string) string { return stores.DefaultPath(root) }

// openApp wires the engine for the workspace named by the global options,
// with every source of sources.New.
func openApp(ctx context.Context, g *globalOptions, need storeNeed) (*app, error) {
	ws, cfg, err := openWorkspace(g)
	if err != nil {
		return nil, err
	}
	root := ws.Dir()
	a := &app{Root: root, WS: ws, Config: cfg}
	a.closers = append(a.closers, ws.Close)
	target, err := stores.Parse(stores.Choose(g.Store, cfg), root)
	if err != nil {
		a.Close()
		return nil, err
	}
	a.StoreTarget = target
	var storeErr error
	if need == storeRequired || cfg.Recording() {
		_ = config.EnsureDir(root)
		st, err := stores.Open(ctx, target, stores.Options{Journal: need == storeServer})
		switch {
		case err == nil:
			a.Store = st
			a.closers = append(a.closers, st.Close)
		case need == storeRequired:
			a.Close()
			return nil, err
		default:
			storeErr = err
		}
	}
	opts := engine.Options{
		SpoolDir:   filepath.Join(root, config.Dir, "tmp"),
		StoreError: storeErr,
		Code:       codeparser.New(),
	}
	if a.Store != nil && cfg.Recording() {
		opts.Store = a.Store
	}
	srcs, closeSources, err := sources.New(sourceOptions(a, g, opts.Store, target.Kind == stores.KindPostgres))
	if err != nil {
		a.Close()
		return nil, err
	}
	a.closers = append(a.closers, closeSources)
	opts.Sources = srcs
	eng, err := engine.New(opts)
	if err != nil {
		a.Close()
		return nil, err
	}
	a.Engine = eng
	return a, nil
}

// openWorkspace opens the workspace named by --root once, with the deny
// list of its configuration, and returns the configuration too.
func openWorkspace(g *globalOptions) (*workspace.FS, *config.Config, error) {
	root, err := filepath.Abs(g.Root)
	if err != nil {
		return nil, nil, retrieve.Errorf(retrieve.CodeInputValidation, "bad --root %q", g.Root).WithErr(err)
	}
	cfg, err := config.Load(root)
	if err != nil {
		return nil, nil, err
	}
	ws, err := file.OpenWorkspace(root, cfg.Deny)
	if err != nil {
		return nil, nil, err
	}
	// retrieve writes its store, spool and caches under .retrieve by name: a
	// repository that ships it as a link out of the workspace would have
	// them written elsewhere.
	if _, err := ws.Stat(config.Dir); workspace.Refused(err) {
		ws.Close()
		return nil, nil, retrieve.Errorf(retrieve.CodeOutsideRoot, "the state folder %s leads out of the workspace", config.Dir).
			WithHint("remove the link %s: retrieve keeps its store, spool and caches there", config.Dir).WithErr(err)
	}
	return ws, cfg, nil
}

// Close releases what the app holds.
func (a *app) Close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		_ = a.closers[i]()
	}
}
