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
