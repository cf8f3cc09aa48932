package postgres_test

import (
	"context"
	"testing"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/graph/graphtest"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/store/postgres"
)

func openGraph(t *testing.T) graph.Store {
	g, err := postgres.OpenGraph(context.Background(), pgtest.URL(t, "pggraph"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

func TestGraphConformance(t *testing.T) { graphtest.Run(t, openGraph) }

func TestGraphAnalyze(t *testing.T) {
	g, err := postgres.OpenGraph(context.Background(), pgtest.URL(t, "pggraph_analyze"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.Analyze(context.Background()); err != nil {
		t.Fatal(err)
	}
}
