package graphtest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/graph"
)

// Clock is a settable clock for graph.Tools.Now.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock starts a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// Day is 2026-03-<d> at noon UTC.
func Day(d int) time.Time { return time.Date(2026, 3, d, 12, 0, 0, 0, time.UTC) }

// VersionInput is the acceptance document in a second version: the leak
// now causes a slowdown, not a crash, and the cache is named.
func VersionInput() graph.IngestInput {
	in := AcceptanceInput()
	in.Content = "Incident report, revised: a memory leak in the cache service causes a slowdown; the cache service uses the heap."
	in.Extraction = graph.Extraction{
		Entities: []graph.ExtractedEntity{
			{Name: "memory leak", Type: "bug", SupportingText: "a memory leak"},
			{Name: "slowdown", Type: "event", SupportingText: "a slowdown"},
			{Name: "cache service", Type: "service", SupportingText: "the cache service"},
			{Name: "heap", Type: "memory", SupportingText: "the heap"},
		},
		Relations: []graph.ExtractedRelation{
			{Source: "memory leak", Target: "slowdown", Type: "causes", Confidence: 0.9, SupportingText: "a memory leak in the cache service causes a slowdown"},
			{Source: "cache service", Target: "heap", Type: "uses", Confidence: 1, SupportingText: "the cache service uses the heap", ValidFrom: "2026-02-01"},
		},
	}
	return in
}

func edgeSet(sub *graph.Subgraph) string {
	var out []string
	for _, e := range sub.Edges {
		out = append(out, sub.Nodes[e.Source].Name+" -"+e.Type+"-> "+sub.Nodes[e.Target].Name)
	}
	return strings.Join(out, "; ")
}

// testNewVersion: a changed text under the same doc id is a new version
// that retires the edges the old one supported; the same text again
// changes nothing.
func testNewVersion(t *testing.T, open Opener) {
	ctx := context.Background()
	tl := Tools(t, open)
	clock := NewClock(Day(1))
	tl.Now = clock.Now
	first, err := tl.Ingest(ctx, AcceptanceInput())
	if err != nil {
		t.Fatal(err)
	}
	if first.Version != 1 || first.EdgesAdded != 1 || first.EdgesRetired != 0 {
		t.Fatalf("first ingest = %+v, want version 1, 1 edge", first)
	}
	clock.Set(Day(10))
	again, err := tl.Ingest(ctx, AcceptanceInput())
	if err != nil {
		t.Fatal(err)
	}
	if again.Version != 1 || again.NodesAdded != 0 || again.EdgesAdded != 0 || again.EdgesRetired != 0 {
		t.Errorf("same text again = %+v, want a no-op at version 1", again)
	}
	second, err := tl.Ingest(ctx, VersionInput())
	if err != nil {
		t.Fatal(err)
	}
	if second.Version != 2 || second.EdgesAdded != 2 || second.EdgesRetired != 1 {
		t.Errorf("new version = %+v, want version 2, 2 edges added, 1 retired", second)
	}
	doc, err := tl.Store.GraphDocument(ctx, "doc_001")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Content != VersionInput().Content || len(doc.Chunks) != 1 || !strings.Contains(doc.Chunks[0].Text, "slowdown") {
		t.Errorf("stored document = %q with chunks %+v, want the new text", doc.Content, doc.Chunks)
	}
	// Today's graph: no crash edge; the slowdown and the heap.
	now, err := tl.Query(ctx, graph.QueryInput{Query: "memory leak, system crash, cache service"})
	if err != nil {
		t.Fatal(err)
	}
	if got := edgeSet(now); got != "cache service -uses-> heap; memory leak -causes-> slowdown" {
		t.Errorf("edges now = %q", got)
	}
	for _, e := range now.Edges {
		if e.RecordedAt != graph.Micros(Day(10)) {
			t.Errorf("edge %s recorded at %d, want day 10", e.Key(), e.RecordedAt)
		}
		if e.Type == "uses" && e.ValidFrom != "2026-02-01" {
			t.Errorf("valid_from = %q, want the extraction's", e.ValidFrom)
		}
	}
	st, err := tl.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Edges != 2 {
		t.Errorf("live edges = %d, want 2 (the retired one is not duplicated)", st.Edges)
	}
	// The same new version again is a no-op too.
	third, err := tl.Ingest(ctx, VersionInput())
	if err != nil {
		t.Fatal(err)
	}
	if third.Version != 2 || third.EdgesAdded != 0 || third.EdgesRetired != 0 {
		t.Errorf("new version again = %+v, want a no-op", third)
	}
	CheckSummary(t, tl)
}

// testAsOf: as-of answers as the store knew then, before any data it finds
// nothing, in the future it answers as now; each says so.
func testAsOf(t *testing.T, open Opener) {
	ctx := context.Background()
	tl := Tools(t, open)
	clock := NewClock(Day(1))
	tl.Now = clock.Now
	if _, err := tl.Ingest(ctx, AcceptanceInput()); err != nil {
		t.Fatal(err)
	}
	clock.Set(Day(10))
	if _, err := tl.Ingest(ctx, VersionInput()); err != nil {
		t.Fatal(err)
	}
	clock.Set(Day(20))
	q := "memory leak, system crash, cache service"
	cases := []struct {
		asOf, want, assumption string
	}{
		{"2026-03-05", "memory leak -causes-> system crash", "as the store knew at 2026-03-05T23:59:59.999999Z"},
		{"2026-03-01T11:00:00Z", "", "held nothing that matches"},
		{"2026-02-01", "", "held nothing that matches"},
		{"2026-03-10T12:00:00Z", "cache service -uses-> heap; memory leak -causes-> slowdown", "as the store knew"},
		{"2027-01-01", "cache service -uses-> heap; memory leak -causes-> slowdown", "in the future"},
	}
	for _, c := range cases {
		a, err := tl.QueryAnswer(ctx, graph.QueryInput{Query: q, AsOf: c.asOf})
		if err != nil {
			t.Fatalf("as of %s: %v", c.asOf, err)
		}
		sub := a.Subgraph(a.Items)
		if got := edgeSet(sub); got != c.want {
			t.Errorf("as of %s: edges %q, want %q", c.asOf, got, c.want)
		}
		if !strings.Contains(strings.Join(a.Assumptions, " | "), c.assumption) {
			t.Errorf("as of %s: assumptions %q, want %q", c.asOf, a.Assumptions, c.assumption)
		}
	}
	// The old version's evidence is the old text, with its citation.
	ev, err := tl.Evidence(ctx, graph.QueryInput{Query: q, AsOf: "2026-03-05"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Paths) == 0 || ev.Paths[0].Hops[0].SupportingText == nil || !strings.Contains(*ev.Paths[0].Hops[0].SupportingText, "system crash") {
		t.Errorf("as-of evidence paths = %+v, want the old supporting text", ev.Paths)
	}
	if len(ev.SupportingDocuments) != 1 || len(ev.SupportingDocuments[0].SupportingChunks) == 0 || ev.SupportingDocuments[0].SupportingChunks[0].Text != AcceptanceText {
		t.Errorf("as-of supporting chunks = %+v, want the old version's text", ev.SupportingDocuments)
	}
	if _, err := tl.Query(ctx, graph.QueryInput{Query: q, AsOf: "March 5"}); retrieve.ErrorCode(err) != retrieve.CodeInputValidation {
		t.Errorf("bad as_of: err = %v, want INPUT_VALIDATION_FAILED", err)
	}
	if _, err := tl.Ingest(ctx, graph.IngestInput{DocID: "d", Content: "x", ValidFrom: "soon"}); retrieve.ErrorCode(err) != retrieve.CodeInputValidation {
		t.Errorf("bad valid_from: err = %v, want INPUT_VALIDATION_FAILED", err)
	}
	if _, _, err := tl.AskAnswer(ctx, graph.AskInput{QueryInput: graph.QueryInput{Query: q, AsOf: "2026-03-05"}, FileBack: true}); retrieve.ErrorCode(err) != retrieve.CodeInputValidation {
		t.Errorf("ask as of with file_back: err = %v, want INPUT_VALIDATION_FAILED", err)
	}
}

// testConcurrentVersions: writers racing new versions of one document
// leave exactly one live version's edges: none of another version is
// orphaned beside them.
func testConcurrentVersions(t *testing.T, open Opener) {
	ctx := context.Background()
	tl := Tools(t, open)
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := fmt.Sprintf("w%d", i)
			_, err := tl.Ingest(ctx, graph.IngestInput{DocID: "shared", Content: "alpha " + w + " uses beta " + w + ".",
				Extraction: graph.Extraction{
					Entities: []graph.ExtractedEntity{{Name: "alpha " + w, Type: "component"}, {Name: "beta " + w, Type: "component"}},
					Relations: []graph.ExtractedRelation{{Source: "alpha " + w, Target: "beta " + w, Type: "uses", Confidence: 1,
						SupportingText: "alpha " + w + " uses beta " + w}},
				}})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	doc, err := tl.Store.GraphDocument(ctx, "shared")
	if err != nil {
		t.Fatal(err)
	}
	var live []string
	if err := tl.Store.EachEdge(ctx, func(e *graph.Edge) error {
		live = append(live, e.Source+"->"+e.Target)
		if e.SourceDocument != "shared" {
			t.Errorf("edge %s from %q", e.Key(), e.SourceDocument)
		}
		if !strings.Contains(doc.Content, string(e.SupportingText)) {
			t.Errorf("live edge %q is not in the live version %q", e.SupportingText, doc.Content)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(live) != 1 {
		t.Errorf("live edges = %v, want the one of the last version", live)
	}
}

// CheckMigrated checks a store migrated from graph schema 1 that held the
// acceptance document (doc_001, ingested 2026-03-02T09:00:00Z) and a
// document "up" with an unparsable date and an edge to "system crash":
// edges are dated by their document (0 when it does not parse) and keep
// their evidence as their only one, queries
// now and as of before and after that date answer, the summary adds up,
// and a new version of the migrated document retires its edge. tol is the
// dating's tolerance in microseconds (SQLite's julianday rounds).
func CheckMigrated(t *testing.T, st graph.Store, tol int64) {
	t.Helper()
	ctx := context.Background()
	want := map[string]int64{"doc_001": graph.IngestionTime("2026-03-02T09:00:00.000000+00:00"), "up": 0}
	if err := st.EachEdge(ctx, func(e *graph.Edge) error {
		if w := want[string(e.SourceDocument)]; e.RecordedAt < w-tol || e.RecordedAt > w+tol {
			t.Errorf("edge of %s recorded at %d, want %d (its document's ingestion date)", e.SourceDocument, e.RecordedAt, w)
		}
		// Its evidence (graph_edge_evidence) is the one it held.
		ev, err := st.EdgeEvidence(ctx, e.Source, e.Target, e.Type)
		if err != nil {
			return err
		}
		if len(ev) != 1 || ev[0].SourceDocument != e.SourceDocument || ev[0].SupportingText != e.SupportingText || ev[0].RecordedAt != e.RecordedAt {
			t.Errorf("evidence of the migrated edge %s = %+v, want its own", e.Key(), ev)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	tl := &graph.Tools{Store: st}
	for _, c := range []struct {
		asOf  string
		edges int
	}{{"", 2}, {"2026-03-01", 1}, {"2026-03-02T10:00:00Z", 2}} {
		sub, err := tl.Query(ctx, graph.QueryInput{Query: "system crash", AsOf: c.asOf})
		if err != nil {
			t.Fatal(err)
		}
		if len(sub.Edges) != c.edges {
			t.Errorf("as of %q: %d edges, want %d", c.asOf, len(sub.Edges), c.edges)
		}
	}
	CheckSummary(t, tl)
	out, err := tl.Ingest(ctx, VersionInput())
	if err != nil {
		t.Fatal(err)
	}
	if out.Version != 2 || out.EdgesRetired != 1 {
		t.Errorf("new version of a migrated document = %+v, want version 2 retiring 1 edge", out)
	}
	CheckSummary(t, tl)
}
