package graphtest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/graph"
)

// Sources stands for the engine in Verify: it serves texts by reference,
// each with a hash, and NOT_FOUND for a reference it does not hold.
type Sources struct {
	mu    sync.Mutex
	texts map[string]string
	hash  map[string]string
}

// Set serves text under ref with hash.
func (s *Sources) Set(ref, text, hash string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.texts == nil {
		s.texts, s.hash = map[string]string{}, map[string]string{}
	}
	s.texts[ref], s.hash[ref] = text, hash
}

// Remove stops serving ref.
func (s *Sources) Remove(ref string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.texts, ref)
}

// Retrieve implements retrieve.Retriever.
func (s *Sources) Retrieve(_ context.Context, req retrieve.Request) (*retrieve.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	text, ok := s.texts[req.Target]
	if !ok {
		return nil, retrieve.Errorf(retrieve.CodePathNotFound, "no %s", req.Target)
	}
	h := s.hash[req.Target]
	return &retrieve.Result{Retrieved: retrieve.Retrieved{Data: text}, Citation: retrieve.Citation{Reference: req.Target, Hash: &h}}, nil
}

// StaleText is a document of two facts on two lines; StaleChanged changes
// the first.
const (
	StaleText    = "The scheduler uses the queue.\nThe queue writes to the journal.\n"
	StaleChanged = "The scheduler polls the database.\nThe queue writes to the journal.\n"
)

// StaleInput ingests StaleText from notes/sched.md.
func StaleInput() graph.IngestInput {
	return graph.IngestInput{DocID: "sched", Title: "Scheduler", Content: StaleText, Reference: "notes/sched.md", Hash: "sha256:1",
		Extraction: graph.Extraction{
			Entities: []graph.ExtractedEntity{{Name: "scheduler", Type: "component"}, {Name: "queue", Type: "component"}, {Name: "journal", Type: "storage"}},
			Relations: []graph.ExtractedRelation{
				{Source: "scheduler", Target: "queue", Type: "uses", Confidence: 0.9, SupportingText: "The scheduler uses the queue."},
				{Source: "queue", Target: "journal", Type: "writes to", Confidence: 0.9, SupportingText: "The queue writes to the journal."},
			}}}
}

// testVerify: graph.Verify marks stale exactly the edges whose evidence
// left their source, with the diff; queries rank them down and say so, or
// leave them out, or include them; a restored source makes them fresh.
func testVerify(t *testing.T, open Opener) {
	ctx := context.Background()
	tl := Tools(t, open)
	clock := NewClock(Day(1))
	tl.Now = clock.Now
	if _, err := tl.Ingest(ctx, StaleInput()); err != nil {
		t.Fatal(err)
	}
	if _, err := tl.Ingest(ctx, graph.IngestInput{DocID: "typed", Content: "The journal feeds the archive.", Extraction: graph.Extraction{
		Entities: []graph.ExtractedEntity{{Name: "journal", Type: "storage"}, {Name: "archive", Type: "storage"}}}}); err != nil {
		t.Fatal(err)
	}
	src := &Sources{}
	src.Set("notes/sched.md", StaleText, "sha256:1")
	opts := graph.VerifyOptions{Now: func() time.Time { return Day(5) }}
	rep, err := graph.VerifyWith(ctx, tl.Store, src, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Documents != 2 || rep.Unchanged != 1 || rep.Unverifiable != 1 || rep.Stale != 0 || rep.Fresh != 2 || rep.Marked != 0 {
		t.Errorf("unchanged source: %+v", rep)
	}
	src.Set("notes/sched.md", StaleChanged, "sha256:2")
	rep, err = graph.VerifyWith(ctx, tl.Store, src, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Changed != 1 || rep.Stale != 1 || rep.Fresh != 1 || rep.Marked != 1 || len(rep.StaleEdges) != 1 {
		t.Fatalf("changed source: %+v", rep)
	}
	se := rep.StaleEdges[0]
	if se.From != "scheduler" || se.To != "queue" || !strings.Contains(se.Diff, "-The scheduler uses the queue.") ||
		!strings.Contains(se.Diff, "+The scheduler polls the database.") || se.StaleSince != "2026-03-05T12:00:00Z" {
		t.Errorf("stale edge = %+v", se)
	}
	// Verify again: nothing changes, the edge stays stale since day 5.
	opts.Now = func() time.Time { return Day(6) }
	rep, err = graph.VerifyWith(ctx, tl.Store, src, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Marked != 0 || len(rep.StaleEdges) != 1 || rep.StaleEdges[0].StaleSince != "2026-03-05T12:00:00Z" {
		t.Errorf("verify again: %+v", rep)
	}
	CheckSummary(t, tl)
	clock.Set(Day(6))
	staleQueries(t, tl)
	verifyAgain(t, tl, src, opts, clock)
}

// staleQueries: the stale edge ranks last by default and is said;
// exclude leaves it out, include keeps it; as of before verify it was
// fresh; its evidence hop is marked.
func staleQueries(t *testing.T, tl *graph.Tools) {
	ctx := context.Background()
	q := graph.QueryInput{Query: "scheduler, queue, journal"}
	a, err := tl.QueryAnswer(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if got := edgeSet(a.Subgraph(a.Items)); got != "queue -writes to-> journal; scheduler -uses-> queue" {
		t.Errorf("default: edges %q, want the stale one last", got)
	}
	if !strings.Contains(strings.Join(a.Assumptions, " "), "1 edge(s) are stale") {
		t.Errorf("default: assumptions %q, want the stale edge said", a.Assumptions)
	}
	q.Stale = graph.StaleExclude
	if sub, err := tl.Query(ctx, q); err != nil || edgeSet(sub) != "queue -writes to-> journal" {
		t.Errorf("exclude: %v, %v", sub, err)
	}
	q.Stale = graph.StaleInclude
	if sub, err := tl.Query(ctx, q); err != nil || edgeSet(sub) != "scheduler -uses-> queue; queue -writes to-> journal" && edgeSet(sub) != "queue -writes to-> journal; scheduler -uses-> queue" || len(sub.Edges) != 2 {
		t.Errorf("include: %v, %v", sub, err)
	}
	q.Stale = "maybe"
	if _, err := tl.Query(ctx, q); retrieve.ErrorCode(err) != retrieve.CodeInputValidation {
		t.Errorf("stale maybe: %v, want INPUT_VALIDATION_FAILED", err)
	}
	// As of before verify found it, the edge was fresh.
	if a, err := tl.QueryAnswer(ctx, graph.QueryInput{Query: "scheduler", AsOf: "2026-03-02"}); err != nil || strings.Contains(strings.Join(a.Assumptions, " "), "stale") {
		t.Errorf("as of before verify: %v, %v", a.Assumptions, err)
	}
	ev, err := tl.Evidence(ctx, graph.QueryInput{Query: "scheduler"})
	if err != nil || len(ev.Paths) == 0 || !ev.Paths[0].Hops[0].Stale {
		t.Errorf("evidence hop not marked stale: %+v, %v", ev.Paths, err)
	}
}

// verifyAgain: a restored source makes the edge fresh, a gone one makes
// every edge stale, a new version starts fresh.
func verifyAgain(t *testing.T, tl *graph.Tools, src *Sources, opts graph.VerifyOptions, clock *Clock) {
	ctx := context.Background()
	var rep *graph.VerifyReport
	var err error
	// The source comes back: fresh again.
	src.Set("notes/sched.md", StaleText, "sha256:1")
	if rep, err = graph.VerifyWith(ctx, tl.Store, src, opts); err != nil || rep.Stale != 0 || rep.Marked != 1 {
		t.Errorf("restored source: %+v, %v", rep, err)
	}
	// The source is gone: every edge of it is stale.
	src.Remove("notes/sched.md")
	if rep, err = graph.VerifyWith(ctx, tl.Store, src, opts); err != nil || rep.Gone != 1 || rep.Stale != 2 || !strings.Contains(rep.StaleEdges[0].Diff, "is gone") {
		t.Errorf("gone source: %+v, %v", rep, err)
	}
	// A new version rewrites the edges it states: fresh.
	clock.Set(Day(7))
	in := StaleInput()
	in.Content = StaleChanged
	in.Extraction.Relations = in.Extraction.Relations[1:]
	if _, err := tl.Ingest(ctx, in); err != nil {
		t.Fatal(err)
	}
	edges, err := tl.Store.DocumentEdges(ctx, "sched")
	if err != nil || len(edges) != 1 || edges[0].StaleAt != 0 && edges[0].Type != "writes to" {
		t.Errorf("after a new version: %+v, %v", edges, err)
	}
	CheckSummary(t, tl)
}
