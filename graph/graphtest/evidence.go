package graphtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/graph"
)

// Two documents that state the same fact (cache -uses-> heap), each with
// its own evidence.
const (
	evidenceA = "The cache uses the heap.\nThe heap is small.\n"
	evidenceB = "Design notes: the cache uses the heap for its pages.\n"
)

func evidenceInput(doc, ref, content, text string, conf float64) graph.IngestInput {
	return graph.IngestInput{DocID: doc, Title: doc, Content: content, Reference: ref, Hash: "sha256:" + doc,
		Extraction: graph.Extraction{
			Entities:  []graph.ExtractedEntity{{Name: "cache", Type: "component"}, {Name: "heap", Type: "memory"}},
			Relations: []graph.ExtractedRelation{{Source: "cache", Target: "heap", Type: "uses", Confidence: conf, SupportingText: text}}}}
}

// evidenceEdge reads the edge cache -uses-> heap and its evidence.
type evidenceEdge struct {
	t           *testing.T
	tl          *graph.Tools
	cache, heap string
}

// support checks the documents of the edge's evidence, in order, and
// returns it.
func (h evidenceEdge) support(want ...string) []*graph.Edge {
	h.t.Helper()
	ev, err := h.tl.Store.EdgeEvidence(context.Background(), h.cache, h.heap, "uses")
	if err != nil {
		h.t.Fatal(err)
	}
	var got []string
	for _, e := range ev {
		got = append(got, string(e.SourceDocument))
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		h.t.Fatalf("evidence of the edge from %v, want %v", got, want)
	}
	return ev
}

// edge is the live edge (nil when there is none).
func (h evidenceEdge) edge() *graph.Edge {
	h.t.Helper()
	es, err := h.tl.Store.EdgesAmong(context.Background(), []string{h.cache, h.heap}, 0)
	if err != nil || len(es) > 1 {
		h.t.Fatalf("edges %v, %v", es, err)
	}
	if len(es) == 0 {
		return nil
	}
	return es[0]
}

// testEvidence: an edge that several documents support keeps each one's
// evidence; a changed source makes only its part stale (the edge stays
// fresh while another evidence is), a new version of one document that
// no longer states it leaves it live on the other's evidence, and it is
// retired only when no evidence is left — by a new version or a forget.
func testEvidence(t *testing.T, open Opener) {
	ctx := context.Background()
	tl := Tools(t, open)
	clock := NewClock(Day(1))
	tl.Now = clock.Now
	inA := evidenceInput("a", "notes/a.md", evidenceA, "The cache uses the heap.", 0.9)
	inB := evidenceInput("b", "notes/b.md", evidenceB, "the cache uses the heap for its pages", 0.8)
	for _, in := range []graph.IngestInput{inA, inB} {
		if _, err := tl.Ingest(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	h := evidenceEdge{t: t, tl: tl, cache: graph.NodeID("cache"), heap: graph.NodeID("heap")}
	ev := h.support("a", "b")
	if string(ev[1].SupportingText) != "the cache uses the heap for its pages" || ev[1].Confidence != 0.8 {
		t.Errorf("b's evidence = %+v", ev[1])
	}
	if e := h.edge(); e == nil || e.SourceDocument != "a" || e.Confidence != 0.9 {
		t.Fatalf("primary evidence = %+v, want a's (the higher confidence)", e)
	}
	src := evidenceStalePart(h)
	clock.Set(Day(5))
	evidenceNewVersion(h)
	evidenceAllStale(h, src)
	evidenceForget(t, tl, inA)
}

// evidenceStalePart: a's source changes; its evidence is stale, the edge
// is not (b's evidence holds).
func evidenceStalePart(h evidenceEdge) *Sources {
	t, ctx := h.t, context.Background()
	src := &Sources{}
	src.Set("notes/a.md", "The cache is gone.\nThe heap is small.\n", "sha256:a2")
	src.Set("notes/b.md", evidenceB, "sha256:b")
	rep, err := graph.VerifyWith(ctx, h.tl.Store, src, graph.VerifyOptions{Now: func() time.Time { return Day(3) }})
	if err != nil || rep.Stale != 1 || rep.Fresh != 1 || len(rep.StaleEdges) != 1 || rep.StaleEdges[0].DocID != "a" {
		t.Fatalf("verify after a changed: %+v, %v", rep, err)
	}
	if ev := h.support("a", "b"); ev[0].StaleAt == 0 || ev[1].StaleAt != 0 {
		t.Errorf("evidence marks: a %d, b %d; want a stale, b fresh", ev[0].StaleAt, ev[1].StaleAt)
	}
	if e := h.edge(); e == nil || e.StaleAt != 0 {
		t.Errorf("edge = %+v, want fresh while b supports it", e)
	}
	if c, err := h.tl.Store.GraphSummaryCounts(ctx); err != nil || c.StaleEdges != 0 || c.Edges != 1 {
		t.Errorf("summary counts %+v, %v", c, err)
	}
	return src
}

// evidenceNewVersion: a new version of a that no longer states the edge;
// it stays, on b's evidence, and a's version is kept as of before.
func evidenceNewVersion(h evidenceEdge) {
	t, ctx := h.t, context.Background()
	inA2 := evidenceInput("a", "notes/a.md", "The cache is gone.\nThe heap is small.\n", "", 0)
	inA2.Extraction.Relations = nil
	res, err := h.tl.Ingest(ctx, inA2)
	if err != nil || res.Version != 2 || res.EdgesRetired != 0 {
		t.Fatalf("new version of a: %+v, %v", res, err)
	}
	h.support("b")
	if e := h.edge(); e == nil || e.SourceDocument != "b" || string(e.SupportingText) != "the cache uses the heap for its pages" ||
		e.Confidence != 0.8 || e.StaleAt != 0 || e.RecordedAt != graph.Micros(Day(5)) {
		t.Fatalf("edge after a's new version = %+v, want b's evidence recorded on day 5", e)
	}
	was, err := h.tl.Store.EdgesAmongAt(ctx, []string{h.cache, h.heap}, 0, graph.Micros(Day(4)))
	if err != nil || len(was) != 1 || was[0].SourceDocument != "a" {
		t.Errorf("as of day 4: %+v, %v; want a's version", was, err)
	}
	if st, err := h.tl.Stats(ctx); err != nil || st.Edges != 1 {
		t.Errorf("stats %+v, %v", st, err)
	}
}

// evidenceAllStale: b's source changes too; now every evidence is stale,
// so is the edge.
func evidenceAllStale(h evidenceEdge, src *Sources) {
	t := h.t
	src.Set("notes/b.md", "Design notes: pages live on disk.\n", "sha256:b2")
	rep, err := graph.VerifyWith(context.Background(), h.tl.Store, src, graph.VerifyOptions{Now: func() time.Time { return Day(6) }})
	if err != nil || rep.Stale != 1 {
		t.Fatalf("verify after b changed: %+v, %v", rep, err)
	}
	if e := h.edge(); e == nil || e.StaleAt != graph.Micros(Day(6)) || e.StaleDiff == "" {
		t.Errorf("edge = %+v, want stale since day 6 with b's diff", e)
	}
	CheckSummary(t, h.tl)
}

// evidenceForget: forgetting one of two supporting documents leaves the
// edge on the other's evidence (the dry run says it is kept); forgetting
// the last retires it.
func evidenceForget(t *testing.T, tl *graph.Tools, inA graph.IngestInput) {
	ctx := context.Background()
	tl.Now = NewClock(Day(8)).Now
	inA.DocID, inA.Reference = "a3", "notes/a3.md"
	if _, err := tl.Ingest(ctx, inA); err != nil {
		t.Fatal(err)
	}
	dry, err := tl.Forget(ctx, graph.ForgetInput{DocID: "b", DryRun: true})
	if err != nil || dry.Total.Edges != 1 || dry.Total.EdgesKept != 1 {
		t.Fatalf("dry run = %+v, %v", dry, err)
	}
	if _, err := tl.Forget(ctx, graph.ForgetInput{DocID: "b", By: "t"}); err != nil {
		t.Fatal(err)
	}
	es, err := tl.Store.EdgesAmong(ctx, []string{graph.NodeID("cache"), graph.NodeID("heap")}, 0)
	if err != nil || len(es) != 1 || es[0].SourceDocument != "a3" || es[0].StaleAt != 0 {
		t.Fatalf("edge after b is forgotten = %+v, %v; want a3's evidence", es, err)
	}
	if _, err := tl.Forget(ctx, graph.ForgetInput{DocID: "a3", By: "t"}); err != nil {
		t.Fatal(err)
	}
	if st, err := tl.Stats(ctx); err != nil || st.Edges != 0 {
		t.Errorf("after the last evidence is forgotten: %+v, %v", st, err)
	}
	CheckSummary(t, tl)
}
