// Package opstest builds a real table of operations for server tests: a
// temp workspace with files, the file source, a real SQLite store and an
// engine that records.
package opstest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// Env is a workspace with a table over it.
type Env struct {
	WS    *testws.Workspace
	Table *ops.Table
	Deps  ops.Deps
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
	d := ops.Deps{Engine: eng, Store: st}
	return &Env{WS: ws, Table: ops.Core(d), Deps: d}
}
