package graph_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/graph"
	graphsrc "github.com/retrieve-dev/retrieve/source/graph"
	"github.com/retrieve-dev/retrieve/source/sourcetest"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

func TestContract(t *testing.T) {
	sourcetest.Run(t, func(t *testing.T) sourcetest.Fixture {
		ctx := context.Background()
		st, err := sqlite.OpenGraphFile(ctx, filepath.Join(t.TempDir(), "store.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		tl := &graph.Tools{Store: st}
		in := graph.IngestInput{DocID: "d1", Title: "Notes", Content: "Payments use Stripe.\n\nRefunds take five days.\n",
			Source: "http://reader:graph-SECRET-1@127.0.0.1/notes",
			Extraction: graph.Extraction{Entities: []graph.ExtractedEntity{{Name: "Payments", Type: "process"}, {Name: "Stripe", Type: "service"}},
				Relations: []graph.ExtractedRelation{{Source: "payments", Target: "stripe", Type: "uses", Confidence: 1, SupportingText: "Payments use Stripe"}}}}
		if out, err := tl.Ingest(ctx, in); err != nil || out.EdgesAdded != 1 {
			t.Fatalf("ingest: %+v, %v", out, err)
		}
		edge := "graph:edge/" + graph.EdgeID(&graph.Edge{Source: graph.NodeID("payments"), Target: graph.NodeID("stripe"), Type: "uses"})
		return sourcetest.Fixture{
			Source:  graphsrc.New(func(context.Context) (graph.Store, error) { return st, nil }),
			Targets: []string{"doc:d1", "doc:d1#d1_chunk_000", edge, "graph:node/stripe"},
			Missing: "doc:d2", MissingCode: retrieve.CodeNotFound,
			Secret: "graph-SECRET-1", SecretTargets: []string{"doc:d1", "doc:d1#d1_chunk_000", edge},
		}
	})
}
