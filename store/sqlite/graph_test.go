package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/graph/graphtest"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

func openGraph(t *testing.T) graph.Store {
	g, err := sqlite.OpenGraphFile(context.Background(), filepath.Join(t.TempDir(), ".retrieve", "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

func TestGraphConformance(t *testing.T) { graphtest.Run(t, openGraph) }

// Two handles on one file (two connection pools, as two processes have):
// ingest and forget at once leave no orphaned edge.
func TestGraphConcurrentForget(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".retrieve", "retrieve.db")
	var handles [2]graph.Store
	for i := range handles {
		g, err := sqlite.OpenGraphFile(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.Close() })
		handles[i] = g
	}
	graphtest.RunConcurrentForget(t, handles[0], handles[1])
}

// Two processes on one file: one ingests while the other forgets; no
// orphaned edge, no lost document.
func TestGraphConcurrentForgetProcesses(t *testing.T) {
	open := func(t *testing.T, path string) graph.Store {
		g, err := sqlite.OpenGraphFile(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.Close() })
		return g
	}
	if graphtest.ConcurrentForgetChild(t, open) {
		return
	}
	graphtest.RunConcurrentForgetProcesses(t, filepath.Join(t.TempDir(), ".retrieve", "retrieve.db"), open)
}
