// Package opstest builds a real table of operations for server tests: a
// temp workspace with files, every source (source/sources), a real SQLite
// store and an engine that records.
package opstest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/retrieve-dev/retrieve/check"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/extract/code"
	"github.com/retrieve-dev/retrieve/extract/codeparser"
	"github.com/retrieve-dev/retrieve/format/formats"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/session"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/source/sources"
	"github.com/retrieve-dev/retrieve/store/sqlite"
	"github.com/retrieve-dev/retrieve/wiki"
	"github.com/retrieve-dev/retrieve/workspace"
)

// Env is a workspace with a table over it.
type Env struct {
	WS *testws.Workspace
	// FS is the workspace every reader and writer goes through.
	FS    *workspace.FS
	Table *ops.Table
	Deps  ops.Deps
	// Wiki is set by NewFull.
	Wiki *wiki.Wiki
	// Sessions is the session service of the workspace (its journal in
	// .retrieve/sessions); NewFull serves its operations.
	Sessions *session.Service
	// Graph is the graph tools NewFull serves (for what no operation does:
	// graph.Verify).
	Graph *graph.Tools
	// Memory is the memory service NewFull serves (its index on the store,
	// its evidence resolved with the engine).
	Memory *memory.Service
	store  *sqlite.Store
}

// Files are the files of every test workspace.
var Files = map[string]string{
	"README.md":    "# Demo\n\nretrieve fetches a known thing from a known place.\n\n## Install\n\nRun make.\n",
	"notes.txt":    "alpha\nbeta\ngamma\ndelta\n",
	"package.json": `{"name": "demo", "scripts": {"test": "go test"}}` + "\n",
}

// New returns an Env with the core operations and outline.
func New(t testing.TB) *Env {
	t.Helper()
	ws := testws.New(t)
	for p, c := range Files {
		ws.Write(p, c)
	}
	return build(t, ws, false)
}

// NewFull returns an Env with the core operations and those of memory, the
// graph and the wiki, as `retrieve serve` registers them, and the graph and
// wiki sources (doc:, graph:node/, graph:edge/, wiki:).
func NewFull(t testing.TB) *Env {
	t.Helper()
	ws := testws.New(t)
	for p, c := range Files {
		ws.Write(p, c)
	}
	ws.Write("memory/semantic/deploys-need-the-staging-token.md", "---\nmemory_entry_id: sem-20250120-001\ntitle: \"Deploys need the staging token\"\nmemory_type: semantic\ntags: [\"deploy\"]\ncreated: \"2025-01-20T10:00:00Z\"\nupdated: \"2025-01-20T10:00:00Z\"\n---\n\n# Deploys need the staging token\n\nSeen in the deploy guide.\n")
	return build(t, ws, true)
}

// NewHostile returns a full Env over a hostile workspace
// (testws.NewHostile).
func NewHostile(t testing.TB) (*Env, *testws.Hostile) {
	t.Helper()
	h := testws.NewHostile(t)
	return build(t, h.Workspace, true), h
}

func build(t testing.TB, ws *testws.Workspace, full bool) *Env {
	t.Helper()
	fs, err := file.OpenWorkspace(ws.Root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fs.Close() })
	st, err := sqlite.OpenStore(context.Background(), filepath.Join(t.TempDir(), "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	st.StartJournal() // as `retrieve serve` opens its store
	t.Cleanup(func() { _ = st.Close() })
	env := &Env{WS: ws, FS: fs, store: st}
	sopts := sources.Options{FS: fs}
	var svc *memory.Service
	var gs *sqlite.Graph
	if full {
		if gs, err = sqlite.OpenGraph(context.Background(), st.DB); err != nil {
			t.Fatal(err)
		}
		env.Wiki = &wiki.Wiki{Dir: filepath.Join(ws.Root, "wiki"), Index: gs, FS: env.FS}
		// doc:, graph:node/, graph:edge/ and wiki: citations, as `retrieve
		// serve` resolves them.
		sopts.Graph = func(context.Context) (graph.Store, error) { return gs, nil }
		sopts.Wiki = env.Wiki
	}
	// Every source `retrieve serve` registers (sources.New, the one list),
	// so the tables' schemas list every kind.
	srcs, closeSources, err := sources.New(sopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = closeSources() })
	eng, err := engine.New(engine.Options{Sources: srcs, Store: st, SpoolDir: t.TempDir(), Code: codeparser.New(), Formats: formats.Default()})
	if err != nil {
		t.Fatal(err)
	}
	env.Sessions = &session.Service{Journal: &session.Journal{Dir: filepath.Join(ws.Root, ".retrieve", session.Dir)}, Engine: eng, Checker: &check.Checker{Engine: eng}}
	if full {
		// The memory index on the store, and the evidence resolved with the
		// engine and the sessions, as `retrieve serve` opens them.
		idx, err := sqlite.NewMemoryIndex(context.Background(), st.DB)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = idx.Close() })
		if svc, err = memory.New(memory.Options{FS: env.FS, Index: idx, Evidence: &ops.NoteEvidence{Engine: eng, Sessions: env.Sessions}}); err != nil {
			t.Fatal(err)
		}
		env.Memory = svc
	}
	env.Deps = ops.Deps{Engine: eng, Store: st, Join: env.Sessions.Join, Verified: env.Sessions.Verified}
	env.Table = ops.Core(env.Deps)
	env.Table.Add(ops.OutlineOp(&ops.Outliner{Engine: eng, Kinds: code.Kinds,
		Files: func(ctx context.Context, target string) ([]string, bool, error) {
			return file.DirFiles(ctx, env.FS, target)
		}}))
	if full {
		env.Table.AddAll(ops.MemoryOps(svc))
		gt := &graph.Tools{Store: gs, Wiki: env.Wiki, Retriever: eng, Ledger: st}
		env.Graph = gt
		env.Table.AddAll(ops.GraphOps(gt))
		env.Table.Add(ops.SummaryOp(gt, svc))
		env.Table.AddAll(ops.WikiOps(env.Wiki))
		env.Table.AddAll(ops.SessionOps(env.Sessions))
	}
	return env
}
