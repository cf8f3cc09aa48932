package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/check"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/extract/codeparser"
	"github.com/retrieve-dev/retrieve/format/formats"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/session"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/source/sources"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/stores"
	"github.com/retrieve-dev/retrieve/wiki"
	"github.com/retrieve-dev/retrieve/workspace"
)

// app is the one place that opens the program's parts for the CLI, serve,
// ui and the hooks: the workspace and its configuration first, then on
// demand the store, the sources and the engine (openEngine), the graph
// store (graph), the memory service (memory), the server's services
// (services) and the session service (sessions). Every part it opens is
// closed by Close, in reverse order, and a step that fails closes what the
// steps before it opened: a caller gets an open app or an error, never a
// half-open one.
type app struct {
	g       *globalOptions
	Root    string
	WS      *workspace.FS // the workspace, the one way to its files
	Config  *config.Config
	Engine  *engine.Engine
	Store   store.Store // nil when recording is off or the store is unavailable
	closers []func() error

	// StoreTarget is the store chosen by --store, RETRIEVE_STORE or the
	// configuration (print it only through its String method, which redacts).
	StoreTarget stores.Target
	// targetErr is why the store spec did not parse: the engine and the
	// graph fail with it, the memory keeper (files only) does not.
	targetErr error

	graphMu sync.Mutex
	graphDB stores.Graph // opened by graph on first use

	memIndex stores.MemoryIndex // opened by memory when asked for the index
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

// shortLived says the process exits once its command is done, so that a
// command's store leaves its WAL to the next opener instead of
// checkpointing it (stores.Options.ShortLived: no fsync for a recorded
// get). The in-process tests, which open and close apps again and again,
// clear it.
var shortLived = true

// storePath is the embedded store of a workspace root.
func storePath(root string) string { return stores.DefaultPath(root) }

// wikiDir is the wiki folder of a workspace root.
func wikiDir(root string) string { return filepath.Join(root, "wiki") }

// openFault, when set (by tests only), is asked before each opening step
// and makes the step fail with the error it returns: the tests inject a
// failure at every step and check that nothing stays open.
var openFault func(step string) error

// step runs one opening step after asking openFault.
func step(name string, fn func() error) error {
	if openFault != nil {
		if err := openFault(name); err != nil {
			return err
		}
	}
	return fn()
}

// onClose registers c to be closed with the app (in reverse order).
func (a *app) onClose(c func() error) { a.closers = append(a.closers, c) }

// Close releases what the app holds, the last opened first.
func (a *app) Close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		_ = a.closers[i]()
	}
	a.closers = nil
}

// closeOnError closes a when *err is set: the deferred guard of every
// opener, so a failing step never leaves what earlier steps opened.
func (a *app) closeOnError(err *error) {
	if *err != nil {
		a.Close()
	}
}

// openApp opens the workspace and wires the engine on it (openEngine).
func openApp(ctx context.Context, g *globalOptions, need storeNeed) (_ *app, err error) {
	a, err := openWorkspaceApp(g)
	if err != nil {
		return nil, err
	}
	defer a.closeOnError(&err)
	if err := a.openEngine(ctx, need); err != nil {
		return nil, err
	}
	return a, nil
}

// openWorkspaceApp opens the workspace named by --root once, with the deny
// list of its configuration, and resolves the store it names, without
// opening the store: what commands that need only files (memory's keeper)
// open.
func openWorkspaceApp(g *globalOptions) (_ *app, err error) {
	a := &app{g: g}
	defer a.closeOnError(&err)
	root, err := filepath.Abs(g.Root)
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "bad --root %q", g.Root).WithErr(err)
	}
	a.Root = root
	if err := step("config", func() (err error) { a.Config, err = config.Load(root); return err }); err != nil {
		return nil, err
	}
	err = step("workspace", func() error {
		ws, err := file.OpenWorkspace(root, a.Config.Deny)
		if err != nil {
			return err
		}
		a.WS = ws
		a.onClose(ws.Close)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// retrieve writes its store, spool and caches under .retrieve by name: a
	// repository that ships it as a link out of the workspace would have
	// them written elsewhere.
	if _, err := a.WS.Stat(config.Dir); workspace.Refused(err) {
		return nil, retrieve.Errorf(retrieve.CodeOutsideRoot, "the state folder %s leads out of the workspace", config.Dir).
			WithHint("remove the link %s: retrieve keeps its store, spool and caches there", config.Dir).WithErr(err)
	}
	a.targetErr = step("target", func() (err error) {
		a.StoreTarget, err = stores.Parse(stores.Choose(g.Store, a.Config), root)
		return err
	})
	return a, nil
}

// openEngine opens the store and the sources (source/sources, the one
// list) and wires the engine. The caller closes a on error.
func (a *app) openEngine(ctx context.Context, need storeNeed) error {
	if a.targetErr != nil {
		return a.targetErr
	}
	root, cfg := a.Root, a.Config
	var storeErr error
	if need == storeRequired || cfg.Recording() {
		_ = config.EnsureDir(root)
		err := step("store", func() error {
			st, err := stores.Open(ctx, a.StoreTarget, stores.Options{Journal: need == storeServer, ShortLived: shortLived && need != storeServer})
			if err == nil {
				a.Store = st
				a.onClose(st.Close)
			}
			return err
		})
		switch {
		case err == nil:
		case need == storeRequired:
			return err
		default:
			storeErr = err
		}
	}
	opts := engine.Options{
		SpoolDir:    filepath.Join(root, config.Dir, "tmp"),
		StoreError:  storeErr,
		Code:        codeparser.New(),
		Formats:     formats.Default(),
		SelectLimit: cfg.SelectMaxInput,
	}
	if a.Store != nil && cfg.Recording() {
		opts.Store = a.Store
	}
	// Every source, from the one list (source/sources).
	err := step("sources", func() error {
		srcs, closeSources, err := sources.New(sourceOptions(a, opts.Store))
		if err != nil {
			return err
		}
		a.onClose(closeSources)
		opts.Sources = srcs
		return nil
	})
	if err != nil {
		return err
	}
	return step("engine", func() (err error) { a.Engine, err = engine.New(opts); return err })
}

// graph returns the graph tables of the workspace store, opened on first
// use and shared by the graph source, the graph tools and the servers, so
// commands that never touch the graph never pay for it. Without create, a
// workspace with no store file yet gets NOT_FOUND instead of a new store
// (reading doc: and graph: references creates nothing).
func (a *app) graph(ctx context.Context, create bool) (stores.Graph, error) {
	a.graphMu.Lock()
	defer a.graphMu.Unlock()
	if a.graphDB != nil {
		return a.graphDB, nil
	}
	if a.targetErr != nil {
		return nil, a.targetErr
	}
	if !create && a.Store == nil && a.StoreTarget.Path != "" {
		if _, serr := os.Stat(a.StoreTarget.Path); serr != nil {
			return nil, retrieve.Errorf(retrieve.CodeNotFound, "this workspace has no graph store").
				WithHint("ingest documents with `retrieve graph ingest` first")
		}
	}
	err := step("graph", func() error {
		gs, err := stores.OpenGraph(ctx, a.StoreTarget, a.Store)
		if err != nil {
			return err
		}
		a.graphDB = gs
		a.onClose(func() error {
			a.graphMu.Lock()
			defer a.graphMu.Unlock()
			gs, a.graphDB = a.graphDB, nil
			if gs == nil {
				return nil
			}
			return gs.Close()
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return a.graphDB, nil
}

// graphTools returns the graph tools on the workspace store, with the
// wiki indexed in it.
func (a *app) graphTools(ctx context.Context) (*graph.Tools, error) {
	gs, err := a.graph(ctx, true)
	if err != nil {
		return nil, err
	}
	t := &graph.Tools{Store: gs, Wiki: &wiki.Wiki{Dir: wikiDir(a.Root), Index: gs, FS: a.WS}, Retriever: a.Engine}
	if a.Store != nil {
		t.Ledger = a.Store
	}
	return t, nil
}

// openGraphTools opens the app with its store and the graph tools on it.
func openGraphTools(ctx context.Context, g *globalOptions) (_ *app, _ *graph.Tools, err error) {
	a, err := openApp(ctx, g, storeRequired)
	if err != nil {
		return nil, nil, err
	}
	defer a.closeOnError(&err)
	t, err := a.graphTools(ctx)
	if err != nil {
		return nil, nil, err
	}
	return a, t, nil
}

// cliFullCheckInterval is the staleness bound of a note edited in place
// (without a rename) for CLI runs: each run goes on from the last full
// check a run recorded, and stats every note only when that is older.
// Notes added, removed or renamed are seen at once (the folders' mtimes).
const cliFullCheckInterval = 10 * time.Second

// memory opens the memory service in the app's workspace. With needIndex
// its full-text index lives in the workspace store; when that cannot open
// the service still works, by scanning files (a warning goes to errOut).
// every is how often every note file is checked for in-place edits (0: the
// service's default, for a long-lived server).
func (a *app) memory(ctx context.Context, io *Streams, needIndex bool, every time.Duration) (*memory.Service, error) {
	opts := memory.Options{FS: a.WS, Dir: a.g.MemoryDir, FullCheckInterval: every}
	if needIndex {
		_ = config.EnsureDir(a.Root)
		err := step("memory index", func() error {
			if a.targetErr != nil {
				return a.targetErr
			}
			// A CLI run shares the store's connections (no second pool to
			// connect); a server (every 0) keeps the index on a pool of
			// its own, so searches never wait for the ledger's.
			var st store.Store
			if every != 0 {
				st = a.Store
			}
			idx, err := stores.OpenMemoryIndex(ctx, a.StoreTarget, st)
			if err == nil {
				a.memIndex = idx
				a.onClose(idx.Close)
			}
			return err
		})
		if err != nil {
			fmt.Fprintf(io.ErrOut, "retrieve: warning: the memory index is unavailable (%s); scanning the files instead\n", retrieve.AsError(err).Message)
		} else {
			opts.Index = a.memIndex
			// Each run goes on from the last full check of the note files
			// made against the same store (docs/memory.md, "Freshness").
			key := strings.TrimPrefix(retrieve.HashBytes([]byte(a.StoreTarget.String())), "sha256:")[:16]
			opts.CheckFile = filepath.Join(a.Root, config.Dir, "cache", "memory-check-"+key+".json")
		}
	}
	if a.Engine != nil {
		opts.Evidence = &ops.NoteEvidence{Engine: a.Engine, Sessions: a.sessions()}
	}
	var svc *memory.Service
	err := step("memory", func() (err error) { svc, err = memory.New(opts); return err })
	if err == nil && a.Engine != nil {
		svc.SetEdgeVerifier(a.verifyGraphEdges)
	}
	return svc, err
}

// verifyGraphEdges is the graph part of memory verify (and verify --all):
// graph.Verify on the workspace's graph, nil when it has no store yet.
func (a *app) verifyGraphEdges(ctx context.Context) (any, error) {
	gs, err := a.graph(ctx, false)
	if retrieve.ErrorCode(err) == retrieve.CodeNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return graph.Verify(ctx, gs, a.Engine)
}

// openMemoryEngine opens the workspace, the engine with its store, and the
// memory service with its index: what resolves and re-checks evidence.
func openMemoryEngine(ctx context.Context, io *Streams, g *globalOptions, _ bool) (_ *app, _ *memory.Service, err error) {
	a, err := openApp(ctx, g, storeRequired)
	if err != nil {
		return nil, nil, err
	}
	defer a.closeOnError(&err)
	svc, err := a.memory(ctx, io, true, cliFullCheckInterval)
	if err != nil {
		return nil, nil, err
	}
	if a.memIndex == nil {
		return nil, nil, retrieve.Errorf(retrieve.CodeStoreUnavailable, "the memory index did not open: evidence, stale and forgotten marks live in it").
			WithHint("check the store with retrieve store status")
	}
	return a, svc, nil
}

// openMemory opens the workspace and its memory service for a CLI run.
func openMemory(ctx context.Context, io *Streams, g *globalOptions, needIndex bool) (_ *app, _ *memory.Service, err error) {
	a, err := openWorkspaceApp(g)
	if err != nil {
		return nil, nil, err
	}
	defer a.closeOnError(&err)
	svc, err := a.memory(ctx, io, needIndex, cliFullCheckInterval)
	if err != nil {
		return nil, nil, err
	}
	return a, svc, nil
}

// services are the optional services a server exposes besides the core
// operations; nil when unavailable (the reason is logged).
type services struct {
	Memory *memory.Service
	Graph  *graph.Tools
	Wiki   *wiki.Wiki
}

// services opens memory, the graph and the wiki of the workspace on the
// app's store for a server. What cannot open is left out with a warning:
// the core operations still serve.
func (a *app) services(ctx context.Context, stdio *Streams, logger *slog.Logger) *services {
	s := &services{Wiki: &wiki.Wiki{Dir: wikiDir(a.Root), FS: a.WS}}
	if m, err := a.memory(ctx, stdio, true, 0); err != nil {
		logger.Warn("memory tools unavailable", "reason", retrieve.AsError(err).Message)
	} else {
		s.Memory = m
		if fi, err := m.FS().Lstat(m.Dir()); err == nil && fi.IsDir() && a.memIndex != nil {
			a.watchMemory(ctx, m, logger)
		}
	}
	t, err := a.graphTools(ctx)
	if err != nil {
		logger.Warn("graph tools unavailable", "reason", retrieve.AsError(err).Message)
		return s
	}
	s.Wiki = t.Wiki
	s.Graph = t
	return s
}

// watchMemory makes in-place edits visible to the next query and spares
// the periodic full checks (docs/memory.md, "The index stays true"). The
// first full check runs now, not in the first query; closing the app waits
// for it.
func (a *app) watchMemory(ctx context.Context, m *memory.Service, logger *slog.Logger) {
	if stop, err := m.Watch(); err != nil {
		logger.Warn("memory watcher unavailable: every note is checked every 2 s instead", "reason", retrieve.AsError(err).Message)
	} else {
		a.onClose(func() error { stop(); return nil })
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := m.Refresh(ctx, nil); err != nil && ctx.Err() == nil {
			logger.Warn("memory index refresh failed", "reason", retrieve.AsError(err).Message)
		}
	}()
	a.onClose(func() error { <-done; return nil })
}

// openRecorder opens the hooks' fast path: a session recorder over the
// file source alone (the root and deny list, no git, no store) and an
// engine that only hashes. release closes the file source.
func openRecorder(root string) (_ *session.Recorder, release func() error, err error) {
	cfg, err := config.Load(root)
	if err != nil {
		return nil, nil, err
	}
	if err := config.EnsureDir(root); err != nil {
		return nil, nil, err
	}
	files, err := file.New(file.Options{Root: root, Deny: cfg.Deny, NoGit: true})
	if err != nil {
		return nil, nil, err
	}
	eng, err := engine.New(engine.Options{Sources: []retrieve.Source{files}})
	if err != nil {
		files.Close()
		return nil, nil, err
	}
	return &session.Recorder{Journal: sessionJournal(root), Root: root, Files: files, Engine: eng}, files.Close, nil
}

// sessionJournal is the journal directory of a workspace.
func sessionJournal(root string) *session.Journal {
	return &session.Journal{Dir: filepath.Join(root, config.Dir, session.Dir)}
}

// sessions is the session service of the app.
func (a *app) sessions() *session.Service {
	return &session.Service{
		Journal: sessionJournal(a.Root),
		Engine:  a.Engine,
		Checker: &check.Checker{Engine: a.Engine},
	}
}

// resolveStore returns the store the global options and the workspace
// configuration name (or spec, when given), without opening it or the
// workspace: the store commands work on a store, not on files.
func resolveStore(g *globalOptions, spec string) (stores.Target, error) {
	root, err := filepath.Abs(g.Root)
	if err != nil {
		return stores.Target{}, retrieve.Errorf(retrieve.CodeInputValidation, "bad --root %q", g.Root).WithErr(err)
	}
	if spec != "" {
		return stores.Parse(spec, root)
	}
	cfg, err := config.Load(root)
	if err != nil {
		return stores.Target{}, err
	}
	return stores.Parse(stores.Choose(g.Store, cfg), root)
}

// openStoreAsIs opens the store the global options name without migrating
// it, for the commands that report on or migrate the schema themselves.
func openStoreAsIs(ctx context.Context, g *globalOptions) (stores.Target, store.Store, error) {
	t, err := resolveStore(g, "")
	if err != nil {
		return t, nil, err
	}
	s, err := stores.Open(ctx, t, stores.Options{NoMigrate: true})
	return t, s, err
}
