package graphtest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/internal/testproc"
	"github.com/retrieve-dev/retrieve/store"
)

// Ledger is an in-memory store.Ledger that keeps what is appended.
type Ledger struct {
	mu   sync.Mutex
	Kept []*store.Entry
}

// Append implements store.Ledger.
func (l *Ledger) Append(_ context.Context, e *store.Entry) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Kept = append(l.Kept, e)
	return nil
}

// Entry implements store.Ledger.
func (l *Ledger) Entry(_ context.Context, id string) (*store.Entry, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.Kept {
		if e.ID == id {
			return e, nil
		}
	}
	return nil, retrieve.Errorf(retrieve.CodeNotFound, "no entry %s", id)
}

// Entries implements store.Ledger (every entry, newest first).
func (l *Ledger) Entries(context.Context, store.Filter) ([]*store.Entry, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]*store.Entry, len(l.Kept))
	for i, e := range l.Kept {
		out[len(out)-1-i] = e
	}
	return out, nil
}

// DeleteEntriesBefore implements store.Ledger.
func (l *Ledger) DeleteEntriesBefore(context.Context, time.Time) (int, error) { return 0, nil }

// OtherInput is a document that shares the queue with StaleInput.
func OtherInput() graph.IngestInput {
	return graph.IngestInput{DocID: "other", Title: "Other", Content: "The queue feeds the archive.", Reference: "notes/other.md", Hash: "sha256:o",
		Extraction: graph.Extraction{
			Entities:  []graph.ExtractedEntity{{Name: "queue", Type: "component"}, {Name: "archive", Type: "storage"}},
			Relations: []graph.ExtractedRelation{{Source: "queue", Target: "archive", Type: "feeds", Confidence: 0.9, SupportingText: "The queue feeds the archive."}},
		}}
}

// testForget: a dry run lists and changes nothing; forget by source
// tombstones the edges, the entities only they supported and the chunks,
// records who and when, never comes back as of the past, resumes after an
// interruption, and a new ingest brings the document back.
func testForget(t *testing.T, open Opener) {
	ctx := context.Background()
	tl := Tools(t, open)
	led := &Ledger{}
	tl.Ledger = led
	clock := NewClock(Day(1))
	tl.Now = clock.Now
	for _, in := range []graph.IngestInput{StaleInput(), OtherInput()} {
		if _, err := tl.Ingest(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	clock.Set(Day(5))
	forgetDryRun(t, tl, led)
	// An interrupted forget: one batch of one edge went.
	if n, err := tl.Store.ForgetEdges(ctx, "sched", graph.Micros(Day(4)), 1); err != nil || n != 1 {
		t.Fatalf("partial forget: %d, %v", n, err)
	}
	var progress []int
	out, err := tl.Forget(ctx, graph.ForgetInput{Source: "notes/sched.md", By: "alice", Batch: 1, Progress: func(done, total int) { progress = append(progress, done) }})
	if err != nil {
		t.Fatal(err)
	}
	if out.Total.Edges != 1 || out.Total.Nodes != 2 || out.Total.Chunks != 1 || out.By != "alice" || out.LedgerID == "" || len(progress) != 1 {
		t.Errorf("forget = %+v, progress %v", out, progress)
	}
	if len(led.Kept) != 1 || led.Kept[0].Op != "forget" || led.Kept[0].Target != "notes/sched.md" || !strings.Contains(string(led.Kept[0].Request), `"by":"alice"`) {
		t.Errorf("ledger = %+v", led.Kept)
	}
	forgottenStays(t, tl)
	// Ingested again, it is back as a new version.
	clock.Set(Day(6))
	again, err := tl.Ingest(ctx, StaleInput())
	if err != nil || again.Version != 2 || again.EdgesAdded != 2 {
		t.Fatalf("ingest after forget: %+v, %v", again, err)
	}
	if sub, err := tl.Query(ctx, graph.QueryInput{Query: "scheduler"}); err != nil || !strings.Contains(edgeSet(sub), "scheduler -uses-> queue") {
		t.Errorf("after a new ingest: %v, %v", sub, err)
	}
	CheckSummary(t, tl)
}

// forgetDryRun: a dry run counts and lists what would go and changes
// nothing, not even the ledger.
func forgetDryRun(t *testing.T, tl *graph.Tools, led *Ledger) {
	ctx := context.Background()
	dry, err := tl.Forget(ctx, graph.ForgetInput{Source: "notes/sched.md", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(dry.Documents) != 1 || dry.Total.Edges != 2 || dry.Total.Nodes != 2 || dry.Total.Chunks != 1 || len(dry.Documents[0].Edges) != 2 ||
		!strings.Contains(dry.Documents[0].Edges[0].Chain+dry.Documents[0].Edges[1].Chain, "scheduler --[uses]--> queue") || len(led.Kept) != 0 {
		t.Fatalf("dry run = %+v", dry)
	}
	if sub, err := tl.Query(ctx, graph.QueryInput{Query: "scheduler"}); err != nil || len(sub.Edges) == 0 {
		t.Fatalf("a dry run changed the graph: %v, %v", sub, err)
	}
}

// forgottenStays: after a forget nothing of the source answers, not even
// as of the past; the shared entity stays; the tombstone keeps no text; a
// second forget and a bad input are refused.
func forgottenStays(t *testing.T, tl *graph.Tools) {
	ctx := context.Background()
	for _, q := range []graph.QueryInput{{Query: "scheduler"}, {Query: "scheduler", AsOf: "2026-03-02"}, {Query: "journal"}} {
		sub, err := tl.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(sub.Edges) != 0 || len(sub.Nodes) != 0 {
			t.Errorf("%+v after forget: %s (forgotten knowledge came back)", q, edgeSet(sub))
		}
	}
	if sub, err := tl.Query(ctx, graph.QueryInput{Query: "queue"}); err != nil || edgeSet(sub) != "queue -feeds-> archive" {
		t.Errorf("the shared entity: %v, %v", sub, err)
	}
	CheckSummary(t, tl)
	doc, err := tl.Store.GraphDocument(ctx, "sched")
	if err != nil || doc.Content != "" || len(doc.Chunks) != 0 {
		t.Errorf("the tombstone keeps text: %+v, %v", doc, err)
	}
	if ids, err := tl.Store.GraphDocumentIDs(ctx); err != nil || strings.Join(ids, ",") != "other" {
		t.Errorf("documents after forget: %v, %v", ids, err)
	}
	if _, err := tl.Forget(ctx, graph.ForgetInput{Source: "notes/sched.md"}); retrieve.ErrorCode(err) != retrieve.CodeNotFound {
		t.Errorf("forget again: %v, want NOT_FOUND", err)
	}
	for _, in := range []graph.ForgetInput{{}, {Source: "a", DocID: "b"}} {
		if _, err := tl.Forget(ctx, in); retrieve.ErrorCode(err) != retrieve.CodeInputValidation {
			t.Errorf("forget %+v: %v, want INPUT_VALIDATION_FAILED", in, err)
		}
	}
}

// RunConcurrentForget checks two handles of one store (two processes'
// files, two pools): one ingests documents that share an entity while the
// other forgets some of them; no live edge is left with a forgotten
// document or a retired entity. RunConcurrentForgetProcesses does the same
// from two processes.
func RunConcurrentForget(t *testing.T, a, b graph.Store) {
	ctx := context.Background()
	seedConcurrentForget(t, a)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	wg.Add(2)
	go func() {
		defer wg.Done()
		errs <- concurrentRole(ctx, roleIngest, a)
	}()
	go func() {
		defer wg.Done()
		errs <- concurrentRole(ctx, roleForget, b)
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	checkConcurrentForget(t, a)
}

// The roles of a concurrent forget: one writer ingests the second half of
// the documents, one forgetter forgets two sources, each from its own
// store handle.
const (
	roleIngest  = "ingest"
	roleForget  = "forget"
	concurrentN = 24
)

func concurrentDoc(i int) graph.IngestInput {
	x := fmt.Sprintf("leaf%02d", i)
	return graph.IngestInput{DocID: fmt.Sprintf("c%02d", i), Content: "The hub serves " + x + ". " + x + " calls the hub.", Reference: fmt.Sprintf("src/%02d.md", i%4),
		Extraction: graph.Extraction{
			Entities: []graph.ExtractedEntity{{Name: "hub", Type: "component"}, {Name: x, Type: "component"}},
			Relations: []graph.ExtractedRelation{{Source: "hub", Target: x, Type: "serves", Confidence: 0.9, SupportingText: "The hub serves " + x},
				{Source: x, Target: "hub", Type: "calls", Confidence: 0.9, SupportingText: x + " calls the hub"}},
		}}
}

// seedConcurrentForget ingests the first half of the documents.
func seedConcurrentForget(t *testing.T, st graph.Store) {
	tl := &graph.Tools{Store: st}
	for i := 0; i < concurrentN/2; i++ {
		if _, err := tl.Ingest(context.Background(), concurrentDoc(i)); err != nil {
			t.Fatal(err)
		}
	}
}

// concurrentRole plays one role of a concurrent forget on st.
func concurrentRole(ctx context.Context, role string, st graph.Store) error {
	tl := &graph.Tools{Store: st}
	switch role {
	case roleIngest:
		for i := concurrentN / 2; i < concurrentN; i++ {
			if _, err := tl.Ingest(ctx, concurrentDoc(i)); err != nil {
				return err
			}
		}
	case roleForget:
		for _, src := range []string{"src/00.md", "src/01.md"} {
			_, err := tl.Forget(ctx, graph.ForgetInput{Source: src, Batch: 1})
			if err != nil && retrieve.ErrorCode(err) != retrieve.CodeNotFound {
				return err
			}
		}
	default:
		return fmt.Errorf("no role %q", role)
	}
	return nil
}

// checkConcurrentForget: every document was ingested, some forgotten; no
// live edge has a forgotten document or a retired end; the summary adds
// up.
func checkConcurrentForget(t *testing.T, a graph.Store) {
	ctx := context.Background()
	wa := &graph.Tools{Store: a}
	forgotten := map[string]bool{}
	ids, err := a.GraphDocumentIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	live := map[string]bool{}
	for _, id := range ids {
		live[id] = true
	}
	for i := 0; i < concurrentN; i++ {
		if id := fmt.Sprintf("c%02d", i); !live[id] {
			forgotten[id] = true
		}
	}
	if len(forgotten) == 0 {
		t.Error("nothing was forgotten")
	}
	if docs, err := a.GraphDocumentInfo(ctx, []string{fmt.Sprintf("c%02d", concurrentN-1)}); err != nil || len(docs) != 1 {
		t.Errorf("the writer's last document: %v, %v", docs, err)
	}
	var ends []string
	var edges []*graph.Edge
	if err := a.EachEdge(ctx, func(e *graph.Edge) error {
		edges = append(edges, e)
		ends = append(ends, e.Source, e.Target)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	nodes, err := a.GraphNodes(ctx, ends)
	if err != nil {
		t.Fatal(err)
	}
	CheckSummary(t, wa)
	for _, e := range edges {
		if forgotten[string(e.SourceDocument)] {
			t.Errorf("live edge %s of forgotten document %s", e.Key(), e.SourceDocument)
		}
		if nodes[e.Source] == nil || nodes[e.Target] == nil {
			t.Errorf("orphaned edge %s: an end is retired", e.Key())
		}
	}
}

// RunConcurrentForgetProcesses is RunConcurrentForget from two processes:
// the test binary runs itself twice (testproc.Run), one child ingesting
// and one forgetting, each with its own store handle from open (where
// names the store: a file, a URL), while the parent waits; then the parent
// checks the store. The calling test must start with
// ConcurrentForgetChild(t, open).
func RunConcurrentForgetProcesses(t *testing.T, where string, open func(t *testing.T, where string) graph.Store) {
	st := open(t, where)
	seedConcurrentForget(t, st)
	testproc.Run(t, where, roleIngest, roleForget)
	checkConcurrentForget(t, st)
}

// ConcurrentForgetChild plays the role of a child of
// RunConcurrentForgetProcesses and reports true (the test then returns);
// false in the parent.
func ConcurrentForgetChild(t *testing.T, open func(t *testing.T, where string) graph.Store) bool {
	role, where := testproc.Role()
	if role == "" {
		return false
	}
	if err := concurrentRole(context.Background(), role, open(t, where)); err != nil {
		t.Fatalf("%s: %v", role, err)
	}
	testproc.Done(t)
	return true
}

// CheckSummary compares the graph's summary with what walking its nodes
// and edges gives: the stores keep the summary's counts as the graph
// changes (SQLite by triggers), and must never drift.
func CheckSummary(t *testing.T, tl *graph.Tools) {
	t.Helper()
	ctx := context.Background()
	s, err := tl.Summary(ctx, "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	degree, rtypes, etypes := map[string]int{}, map[string]int{}, map[string]int{}
	edges, stale, nodes := 0, 0, 0
	if err := tl.Store.EachEdge(ctx, func(e *graph.Edge) error {
		edges++
		degree[e.Source]++
		degree[e.Target]++
		rtypes[e.Type]++
		if e.StaleAt > 0 {
			stale++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := tl.Store.EachNode(ctx, func(n *graph.Node) error {
		nodes++
		etypes[n.Type]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	st, err := tl.Store.GraphStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Edges != edges || s.StaleEdges != stale || s.Entities != nodes || s.Documents != st.Documents || s.Chunks != st.Chunks ||
		len(s.RecentlyStale) != stale || s.RelationTypeTotal != len(rtypes) || s.EntityTypeTotal != len(etypes) {
		t.Errorf("summary %+v; walked %d edges (%d stale), %d entities, %d relation and %d entity types; stats %+v", s.SummaryCounts, edges, stale, nodes, len(rtypes), len(etypes), st)
	}
	for _, tc := range s.RelationTypes {
		if rtypes[tc.Type] != tc.Count {
			t.Errorf("relation type %s: %d in the summary, %d edges", tc.Type, tc.Count, rtypes[tc.Type])
		}
	}
	for _, tc := range s.EntityTypes {
		if etypes[tc.Type] != tc.Count {
			t.Errorf("entity type %s: %d in the summary, %d entities", tc.Type, tc.Count, etypes[tc.Type])
		}
	}
	hubs := 0
	for _, d := range degree {
		if d > 0 {
			hubs++
		}
	}
	if len(s.MostConnected) != hubs {
		t.Errorf("%d connected entities in the summary, %d walked", len(s.MostConnected), hubs)
	}
	for i, h := range s.MostConnected {
		if degree[h.ID] != h.Degree || h.Name == "" || i > 0 && s.MostConnected[i-1].Degree < h.Degree {
			t.Errorf("hub %+v: degree %d walked (or out of order, or unnamed)", h, degree[h.ID])
		}
	}
	checkStaleChains(t, s.RecentlyStale)
	checkSummaryReader(t, tl)
}

// checkStaleChains: every stale edge names both ends, newest first.
func checkStaleChains(t *testing.T, items []graph.StaleItem) {
	t.Helper()
	for i, st := range items {
		if strings.HasPrefix(st.Chain, " ") || strings.HasSuffix(st.Chain, "> ") || i > 0 && items[i-1].StaleSince < st.StaleSince {
			t.Errorf("stale edge %+v: an end without its name, or out of order", st)
		}
	}
}

// checkSummaryReader: a store that reads the parts at once (PostgreSQL's
// batch) reads what the Store's reads one after the other read.
func checkSummaryReader(t *testing.T, tl *graph.Tools) {
	t.Helper()
	ctx := context.Background()
	if r, ok := tl.Store.(graph.SummaryReader); ok {
		for _, list := range []string{"", graph.SummaryMostConnected, graph.SummaryRecentlyStale, graph.SummaryEntityTypes} {
			want := func(name string) bool { return list == "" || list == name }
			for _, limit := range []int{1, 3, 1000} {
				got, err := r.GraphSummaryParts(ctx, want, limit)
				if err != nil {
					t.Fatal(err)
				}
				exp, err := graph.ReadSummaryParts(ctx, tl.Store, want, limit)
				if err != nil {
					t.Fatal(err)
				}
				if g, e := summaryPartsJSON(t, got), summaryPartsJSON(t, exp); g != e {
					t.Errorf("list %q, limit %d: the batch read\n%s\nthe reads one by one\n%s", list, limit, g, e)
				}
			}
		}
	}
}

// summaryPartsJSON is p as JSON, its nodes by name and type only.
func summaryPartsJSON(t *testing.T, p *graph.SummaryParts) string {
	t.Helper()
	nodes := map[string]string{}
	for id, n := range p.Nodes {
		nodes[id] = n.Name + "/" + n.Type
	}
	q := *p
	q.Nodes = nil
	for _, l := range []*[]graph.TypeCount{&q.EntityTypes, &q.RelationTypes, &q.Hubs} {
		if len(*l) == 0 {
			*l = nil
		}
	}
	if len(q.Stale) == 0 {
		q.Stale = nil
	}
	b, err := json.Marshal(struct {
		P     graph.SummaryParts
		Nodes map[string]string
	}{q, nodes})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
