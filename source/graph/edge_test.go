package graph_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/graph"
	graphsrc "github.com/retrieve-dev/retrieve/source/graph"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// TestEdge resolves graph:edge/<id>: the relation with its evidence as
// JSON data cited by graph:edge/<id>, verified while the edge holds,
// changed when its evidence changes, NOT_FOUND when it is gone.
func TestEdge(t *testing.T) {
	ctx := context.Background()
	open := func() *sqlite.Graph {
		st, err := sqlite.OpenGraphFile(ctx, filepath.Join(t.TempDir(), "store.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	ingest := func(st graph.Store, doc, text, evidence string, conf float64) {
		t.Helper()
		tl := &graph.Tools{Store: st}
		_, err := tl.Ingest(ctx, graph.IngestInput{DocID: doc, Title: "Notes", Content: text, Extraction: graph.Extraction{
			Entities:  []graph.ExtractedEntity{{Name: "Payments", Type: "process"}, {Name: "Stripe", Type: "service"}},
			Relations: []graph.ExtractedRelation{{Source: "payments", Target: "stripe", Type: "uses", Confidence: conf, SupportingText: evidence}}}})
		if err != nil {
			t.Fatalf("ingest %s: %v", doc, err)
		}
	}
	first := open()
	ingest(first, "d1", "Payments use Stripe.\n", "Payments use Stripe", 0.7)
	var cur atomic.Pointer[sqlite.Graph]
	cur.Store(first)
	src := graphsrc.New(func(context.Context) (graph.Store, error) { return cur.Load(), nil })
	eng, err := engine.New(engine.Options{Sources: []retrieve.Source{src}})
	if err != nil {
		t.Fatal(err)
	}
	id := graph.EdgeID(&graph.Edge{Source: graph.NodeID("payments"), Target: graph.NodeID("stripe"), Type: "uses"})
	ref := "graph:edge/" + id

	res, err := eng.Retrieve(ctx, retrieve.Request{Target: ref, NoRecord: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("OK", func(t *testing.T) {
		if res.Citation.Reference != ref || res.Citation.Hash == nil || res.Citation.Authority != retrieve.AuthorityLow {
			t.Errorf("citation = %+v (a 0.7 edge is low authority)", res.Citation)
		}
		b, _ := json.Marshal(res.Retrieved.Data)
		var v graph.EdgeView
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		if v.ID != id || v.From.Name != "payments" || v.To.Name != "stripe" || v.Type != "uses" || v.Confidence != 0.7 || !v.Verified ||
			v.Evidence.SupportingText == nil || *v.Evidence.SupportingText != "Payments use Stripe" || v.Evidence.Citation.Reference != "doc:d1#d1_chunk_000" {
			t.Errorf("edge view = %s", b)
		}
		if *res.Citation.Hash != retrieve.HashBytes(mustCanonical(t, res.Retrieved.Data)) {
			t.Errorf("hash %s is not over the returned data", *res.Citation.Hash)
		}
		if vr := eng.VerifyResult(ctx, res); vr.Status != "verified" {
			t.Errorf("verify = %+v", vr)
		}
	})
	t.Run("ErrChanged", func(t *testing.T) {
		// A second document states the relation more strongly: the edge
		// keeps its id, its evidence changes.
		ingest(first, "d2", "Payments run on Stripe, always.\n", "Payments run on Stripe", 1)
		vr := eng.VerifyResult(ctx, res)
		if vr.Status != "changed" || !strings.Contains(vr.Diff, "d2") {
			t.Errorf("verify after a change = %+v", vr)
		}
		// The view lists both documents' evidence, the stronger first.
		now, err := eng.Retrieve(ctx, retrieve.Request{Target: ref, NoRecord: true})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(now.Retrieved.Data)
		var v graph.EdgeView
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		if len(v.Support) != 2 || v.Support[0].DocID != "d2" || v.Support[1].DocID != "d1" || v.Support[1].SupportingText != "Payments use Stripe" {
			t.Errorf("support = %+v", v.Support)
		}
	})
	t.Run("ErrGone", func(t *testing.T) {
		other := open()
		ingest(other, "d1", "Payments use Stripe.\n", "", 0) // below the confidence floor: entities only
		cur.Store(other)
		vr := eng.VerifyResult(ctx, res)
		if vr.Status != "unavailable" || vr.Error == nil || vr.Error.Code != retrieve.CodeNotFound {
			t.Errorf("verify of a removed edge = %+v", vr)
		}
		cur.Store(first)
	})
	for name, target := range map[string]string{
		"ErrUnknownID":  "graph:edge/" + graph.NodeID("payments") + ".000000000000",
		"ErrNoNode":     "graph:edge/ffffffffffff.000000000000",
		"ErrMalformed":  "graph:edge/not-an-id",
		"ErrEmpty":      "graph:edge/",
		"ErrShortHash":  "graph:edge/" + graph.NodeID("payments") + ".abc",
		"ErrNodeAsEdge": "graph:edge/" + graph.NodeID("payments"),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := eng.Retrieve(ctx, retrieve.Request{Target: target, NoRecord: true})
			if e := retrieve.AsError(err); err == nil || e.Code != retrieve.CodeNotFound || e.Hint == "" {
				t.Errorf("%s: %v", target, err)
			}
		})
	}
}

func mustCanonical(t *testing.T, v any) []byte {
	t.Helper()
	b, err := retrieve.CanonicalJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
