// Package opstest builds a real table of operations for server tests: a
// temp workspace with files, the file source, a real SQLite store and an
// engine that records.
package opstest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/check"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/session"
	"github.com/retrieve-dev/retrieve/source/file"
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
	store    *sqlite.Store
}

// Files are the files of every test workspace.
var Files = map[string]string{
	"README.md":    "# Demo\n\nretrieve fetches a known thing from a known place.\n\n## Install\n\nRun make.\n",
	"notes.txt":    "alpha\nbeta\ngamma\ndelta\n",
	"package.json": `{"name": "demo", "scripts": {"test": "go test"}}` + "\n",
}

// New returns an Env with the core operations.
func New(t testing.TB) *Env {
	t.Helper()
	ws := testws.New(t)
	for p, c := range Files {
		ws.Write(p, c)
	}
	src, err := file.New(file.Options{Root: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = src.Close() })
	st, err := sqlite.OpenStore(context.Background(), filepath.Join(t.TempDir(), "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	eng, err := retrieve.New(retrieve.Options{Sources: []retrieve.Source{src}, Store: st, SpoolDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	sessions := &session.Service{Journal: &session.Journal{Dir: filepath.Join(ws.Root, ".retrieve", session.Dir)}, Engine: eng, Checker: &check.Checker{Engine: eng}}
	d := ops.Deps{Engine: eng, Store: st, Join: sessions.Join}
	return &Env{WS: ws, FS: src.FS(), Table: ops.Core(d), Deps: d, Sessions: sessions, store: st}
}

// NewFull returns an Env with the core operations and those of memory, the
// graph and the wiki, as `retrieve serve` registers them.
func NewFull(t testing.TB) *Env {
	t.Helper()
	env := New(t)
	env.WS.Write("memory/semantic/deploys-need-the-staging-token.md", "---\nmemory_entry_id: sem-20250120-001\ntitle: \"Deploys need the staging token\"\nmemory_type: semantic\ntags: [\"deploy\"]\ncreated: \"2025-01-20T10:00:00Z\"\nupdated: \"2025-01-20T10:00:00Z\"\n---\n\n# Deploys need the staging token\n\nSeen in the deploy guide.\n")
	svc, err := memory.New(memory.Options{FS: env.FS})
	if err != nil {
		t.Fatal(err)
	}
	gs, err := sqlite.OpenGraph(context.Background(), env.store.DB)
	if err != nil {
		t.Fatal(err)
	}
	env.Wiki = &wiki.Wiki{Dir: filepath.Join(env.WS.Root, "wiki"), Index: gs, FS: env.FS}
	env.Table.AddAll(ops.MemoryOps(svc))
	env.Table.AddAll(ops.GraphOps(&graph.Tools{Store: gs, Wiki: env.Wiki, Engine: env.Deps.Engine}))
	env.Table.AddAll(ops.WikiOps(env.Wiki))
	env.Table.AddAll(ops.SessionOps(env.Sessions))
	return env
}
