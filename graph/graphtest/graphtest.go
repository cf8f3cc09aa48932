// Package graphtest is the conformance suite of graph.Store (and
// wiki.Index): every implementation (store/sqlite now, PostgreSQL later)
// runs Run against a fresh, empty store and passes it. It drives the store
// through graph.Tools, so it checks the behaviour users see: the upstream
// acceptance case, evidence checks, pruning order, determinism, concurrent
// ingests and the import/export round trip.
package graphtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/wiki"
)

// Opener returns a fresh, empty store for one test. The store must also
// implement wiki.Index to run the wiki tests; otherwise they run on files.
type Opener func(t *testing.T) graph.Store

// Tools returns tools on a fresh store with a wiki in a temp dir.
func Tools(t *testing.T, open Opener) *graph.Tools {
	st := open(t)
	w := &wiki.Wiki{Dir: filepath.Join(t.TempDir(), "wiki")}
	if idx, ok := st.(wiki.Index); ok {
		w.Index = idx
	}
	return &graph.Tools{Store: st, Wiki: w}
}

// AcceptanceText is the document of the upstream Quick Start.
const AcceptanceText = "Incident report: a memory leak in the cache service causes a system crash after a few hours under load."

// AcceptanceInput is the upstream Quick Start ingest.
func AcceptanceInput() graph.IngestInput {
	return graph.IngestInput{DocID: "doc_001", Title: "Incident report", Source: "notes/incident.md", Content: AcceptanceText,
		Extraction: graph.Extraction{
			Entities: []graph.ExtractedEntity{
				{Name: "memory leak", Type: "bug", SupportingText: "a memory leak"},
				{Name: "system crash", Type: "event", SupportingText: "a system crash"},
			},
			Relations: []graph.ExtractedRelation{
				{Source: "memory leak", Target: "system crash", Type: "causes", Confidence: 0.9, SupportingText: "a memory leak in the cache service causes a system crash"},
				{Source: "memory leak", Target: "system crash", Type: "leads to", Confidence: 0.5, SupportingText: "memory leak"},
			},
		}}
}

// Run runs the suite: one function per case.
func Run(t *testing.T, open Opener) {
	t.Run("Acceptance", func(t *testing.T) { testAcceptance(t, open) })
	t.Run("Empty", func(t *testing.T) { testEmpty(t, open) })
	t.Run("FabricatedEvidence", func(t *testing.T) { testFabricatedEvidence(t, open) })
	t.Run("NewVersion", func(t *testing.T) { testNewVersion(t, open) })
	t.Run("AsOf", func(t *testing.T) { testAsOf(t, open) })
	t.Run("ConcurrentVersions", func(t *testing.T) { testConcurrentVersions(t, open) })
	t.Run("Verify", func(t *testing.T) { testVerify(t, open) })
	t.Run("Forget", func(t *testing.T) { testForget(t, open) })
	t.Run("Pruning", func(t *testing.T) { testPruning(t, open) })
	t.Run("Determinism", func(t *testing.T) { testDeterminism(t, open) })
	t.Run("ConcurrentIngest", func(t *testing.T) { testConcurrentIngest(t, open) })
	t.Run("RoundTrip", func(t *testing.T) { testRoundTrip(t, open) })
	t.Run("Wiki", func(t *testing.T) { testWiki(t, open) })
	t.Run("Intl", func(t *testing.T) { testIntl(t, open) })
	t.Run("IntlRoundTrip", func(t *testing.T) { testIntlRoundTrip(t, open) })
	t.Run("Paging", func(t *testing.T) { testPaging(t, open) })
	t.Run("EdgeByID", func(t *testing.T) { testEdgeByID(t, open) })
	t.Run("Evidence", func(t *testing.T) { testEvidence(t, open) })
}

// testPaging cuts answers into pages of every size: the pages joined are
// the whole answer, each edge, path and supporting chunk exactly once.
func testPaging(t *testing.T, open Opener) {
	ctx := context.Background()
	tl := Tools(t, open)
	ingestStar(t, tl, "hub", 6, 3)
	// A lone seed: an entity without relations.
	if _, err := tl.Ingest(ctx, graph.IngestInput{DocID: "lone", Title: "lone", Content: "The hub monitor watches nothing.",
		Extraction: graph.Extraction{Entities: []graph.ExtractedEntity{{Name: "hub monitor", Type: "component"}}}}); err != nil {
		t.Fatal(err)
	}
	in := graph.QueryInput{Query: "hub and hub monitor", MaxNodes: 20}
	whole, err := tl.Evidence(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	a, err := tl.EvidenceAnswer(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if a.TotalEdges != len(whole.Subgraph.Edges) || a.TotalNodes != len(whole.Subgraph.Nodes) || len(a.Items) != a.TotalEdges+1 {
		t.Fatalf("answer: %d items, %d edges, %d nodes; whole: %d edges, %d nodes (want one lone node)", len(a.Items), a.TotalEdges, a.TotalNodes, len(whole.Subgraph.Edges), len(whole.Subgraph.Nodes))
	}
	wb, _ := json.Marshal(whole)
	if ab, _ := json.Marshal(a.Evidence(a.Items)); !bytes.Equal(ab, wb) {
		t.Errorf("all items as one page differ from the whole answer:\n%s\n%s", ab, wb)
	}
	q, err := tl.QueryAnswer(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	sub, _ := tl.Query(ctx, in)
	sb, _ := json.Marshal(sub)
	if qb, _ := json.Marshal(q.Subgraph(q.Items)); !bytes.Equal(qb, sb) {
		t.Errorf("all query items as one page differ from the whole subgraph")
	}
	for size := 1; size <= len(a.Items); size++ {
		var edges []string
		nodes := map[string]bool{}
		var paths []string
		chunks := map[string]int{}
		for i := 0; i < len(a.Items); i += size {
			page := a.Evidence(a.Items[i:min(i+size, len(a.Items))])
			for _, e := range page.Subgraph.Edges {
				edges = append(edges, e.Key())
				if page.Subgraph.Nodes[e.Source] == nil || page.Subgraph.Nodes[e.Target] == nil {
					t.Fatalf("size %d: a page lacks the nodes of its edge %s", size, e.Key())
				}
			}
			for id := range page.Subgraph.Nodes {
				nodes[id] = true
			}
			for _, p := range page.Paths {
				paths = append(paths, p.Chain)
			}
			for _, d := range page.SupportingDocuments {
				for _, c := range d.SupportingChunks {
					chunks[d.DocID+"#"+c.ChunkID]++
				}
			}
		}
		var wantEdges, wantPaths []string
		for _, e := range whole.Subgraph.Edges {
			wantEdges = append(wantEdges, e.Key())
		}
		for _, p := range whole.Paths {
			wantPaths = append(wantPaths, p.Chain)
		}
		sort.Strings(paths)
		sort.Strings(wantPaths)
		if !reflect.DeepEqual(edges, wantEdges) || len(nodes) != len(whole.Subgraph.Nodes) || !reflect.DeepEqual(paths, wantPaths) {
			t.Errorf("size %d: pages joined give %d edges, %d nodes, %d paths; want %d, %d, %d", size, len(edges), len(nodes), len(paths), len(wantEdges), len(whole.Subgraph.Nodes), len(wantPaths))
		}
		n := 0
		for _, d := range whole.SupportingDocuments {
			for _, c := range d.SupportingChunks {
				n++
				if chunks[d.DocID+"#"+c.ChunkID] != 1 {
					t.Errorf("size %d: chunk %s#%s on %d pages, want 1", size, d.DocID, c.ChunkID, chunks[d.DocID+"#"+c.ChunkID])
				}
			}
		}
		if len(chunks) != n {
			t.Errorf("size %d: %d chunks on pages, %d in the whole answer", size, len(chunks), n)
		}
	}
}

// testEdgeByID finds every edge an answer shows by its id, with its
// evidence, imported and unverified ones too; an unknown id is NOT_FOUND.
func testEdgeByID(t *testing.T, open Opener) {
	ctx := context.Background()
	up := t.TempDir()
	UpstreamFixture(t, up)
	tl := Tools(t, open)
	if _, err := tl.Import(ctx, graph.ImportInput{Dir: up}); err != nil {
		t.Fatal(err)
	}
	ev, err := tl.Evidence(ctx, graph.QueryInput{Query: "Why does the system crash?", IncludeUnverified: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Subgraph.Edges) != 2 {
		t.Fatalf("%d edges, want the verified and the unverified one", len(ev.Subgraph.Edges))
	}
	for _, e := range ev.Subgraph.Edges {
		id := graph.EdgeID(e)
		got, err := graph.FindEdge(ctx, tl.Store, id)
		if err != nil {
			t.Fatalf("FindEdge(%s): %v", id, err)
		}
		if !reflect.DeepEqual(got, e) {
			t.Errorf("FindEdge(%s) = %+v, want %+v", id, got, e)
		}
		v, err := graph.ViewEdge(ctx, tl.Store, id)
		if err != nil {
			t.Fatal(err)
		}
		if v.ID != id || v.From.ID != e.Source || v.To.ID != e.Target || v.Verified == e.Unverified || v.From.Name == "" {
			t.Errorf("ViewEdge(%s) = %+v", id, v)
		}
		if e.Type == "causes" && (v.Evidence.SupportingText == nil || v.Evidence.Citation.Reference != "doc:doc_001#doc_001_chunk_000") {
			t.Errorf("evidence of %s = %+v", id, v.Evidence)
		}
	}
	for _, p := range ev.Paths {
		for _, h := range p.Hops {
			if _, err := graph.FindEdge(ctx, tl.Store, strings.TrimPrefix(h.Edge, "graph:edge/")); err != nil || !strings.HasPrefix(h.Edge, "graph:edge/") {
				t.Errorf("hop edge %q: %v", h.Edge, err)
			}
		}
	}
	for _, id := range []string{"a1b2c3d4.000000000000", "nope", "", "a1b2c3d4", "zzzz.123456789abc"} {
		if _, err := graph.FindEdge(ctx, tl.Store, id); retrieve.AsError(err).Code != retrieve.CodeNotFound {
			t.Errorf("FindEdge(%q) = %v, want NOT_FOUND", id, err)
		}
	}
}

func testAcceptance(t *testing.T, open Opener) {
	ctx := context.Background()
	tl := Tools(t, open)
	out, err := tl.Ingest(ctx, AcceptanceInput())
	if err != nil {
		t.Fatal(err)
	}
	up := struct {
		DocID      string `json:"doc_id"`
		ChunkCount int    `json:"chunk_count"`
		NodesAdded int    `json:"nodes_added"`
		EdgesAdded int    `json:"edges_added"`
	}{out.DocID, out.ChunkCount, out.NodesAdded, out.EdgesAdded}
	b, _ := json.Marshal(up)
	if want := `{"doc_id":"doc_001","chunk_count":1,"nodes_added":2,"edges_added":1}`; string(b) != want {
		t.Errorf("ingest = %s, want %s", b, want)
	}
	if len(out.Skipped) != 1 || out.Skipped[0].Type != "leads to" || out.Skipped[0].Reason != graph.ReasonLowConfidence {
		t.Errorf("skipped = %+v, want the 0.5 leads-to relation", out.Skipped)
	}
	e := acceptanceEvidence(t, tl)
	// Stemmed full-text seeds when no name or keyword matches, then chunk text.
	sub, err := tl.Query(ctx, graph.QueryInput{Query: "crashes", MaxNodes: 1})
	if err != nil || len(sub.Nodes) != 1 || sub.Nodes[e.Target] == nil {
		t.Errorf("stemmed query = %+v, %v", sub, err)
	}
	sub, err = tl.Query(ctx, graph.QueryInput{Query: "cache"})
	if err != nil || len(sub.Nodes) != 2 {
		t.Errorf("chunk-text query = %+v, %v", sub, err)
	}
	// Idempotent re-ingest.
	again, err := tl.Ingest(ctx, AcceptanceInput())
	if err != nil {
		t.Fatal(err)
	}
	if again.NodesAdded != 0 || again.EdgesAdded != 0 || again.ChunkCount != 1 {
		t.Errorf("re-ingest = %+v, want nothing added", again)
	}
	st, _ := tl.Store.GraphStats(ctx)
	if *st != (graph.Stats{Documents: 1, Chunks: 1, Nodes: 2, Edges: 1}) {
		t.Errorf("stats after re-ingest = %+v", st)
	}
	onto, _ := tl.Store.GraphOntology(ctx)
	if onto.EntityTypes["issue"] != 1 || onto.EntityTypes["event"] != 1 || onto.RelationTypes["causes"] != 1 {
		t.Errorf("ontology = %+v", onto)
	}
}

// acceptanceEvidence checks the evidence of the acceptance question and
// returns its one edge.
func acceptanceEvidence(t *testing.T, tl *graph.Tools) *graph.Edge {
	ctx := context.Background()
	ev, err := tl.Evidence(ctx, graph.QueryInput{Query: "Why does the system crash?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Subgraph.Nodes) != 2 || len(ev.Subgraph.Edges) != 1 || ev.Subgraph.Edges[0].Type != "causes" {
		t.Fatalf("subgraph = %+v", ev.Subgraph)
	}
	if ev.EvidenceChain != "memory leak --[causes]--> system crash" {
		t.Errorf("evidence_chain = %q", ev.EvidenceChain)
	}
	if len(ev.SupportingDocuments) != 1 || ev.SupportingDocuments[0].SupportingChunks[0].ChunkID != "doc_001_chunk_000" ||
		ev.SupportingDocuments[0].SupportingChunks[0].Text != AcceptanceText || ev.SupportingDocuments[0].DocTitle != "Incident report" {
		t.Errorf("supporting_documents = %+v", ev.SupportingDocuments)
	}
	e := ev.Subgraph.Edges[0]
	if e.Confidence != 0.9 || e.ChunkID != "doc_001_chunk_000" || e.SourceDocument != "doc_001" {
		t.Errorf("edge = %+v", e)
	}
	if len(ev.Paths) != 1 || len(ev.Paths[0].Hops) != 1 || ev.Paths[0].Hops[0].Citation.Reference != "doc:doc_001#doc_001_chunk_000" || ev.Confidence != 0.9 {
		t.Errorf("paths = %+v confidence %v", ev.Paths, ev.Confidence)
	}
	// The upstream field set of the subgraph, byte for byte.
	sb, _ := json.Marshal(ev.Subgraph.Edges[0])
	want := `{"source":"` + e.Source + `","target":"` + e.Target + `","type":"causes","confidence":0.9,"source_document":"doc_001","supporting_text":"a memory leak in the cache service causes a system crash","chunk_id":"doc_001_chunk_000"}`
	if string(sb) != want {
		t.Errorf("edge JSON = %s\nwant %s", sb, want)
	}
	return e
}

func testEmpty(t *testing.T, open Opener) {
	ctx := context.Background()
	tl := Tools(t, open)
	ev, err := tl.Evidence(ctx, graph.QueryInput{Query: "anything at all?"})
	if err != nil {
		t.Fatal(err)
	}
	if ev.EvidenceChain != graph.NoMatchingNodes || len(ev.Subgraph.Nodes) != 0 || ev.Subgraph.Edges == nil {
		t.Errorf("empty evidence = %+v", ev)
	}
	in := AcceptanceInput()
	in.Extraction.Relations = nil
	if _, err := tl.Ingest(ctx, in); err != nil {
		t.Fatal(err)
	}
	ev, err = tl.Evidence(ctx, graph.QueryInput{Query: "memory leak"})
	if err != nil {
		t.Fatal(err)
	}
	if ev.EvidenceChain != graph.NoEdges || len(ev.Subgraph.Nodes) != 1 {
		t.Errorf("no-edge evidence = %q %d nodes", ev.EvidenceChain, len(ev.Subgraph.Nodes))
	}
}

func testFabricatedEvidence(t *testing.T, open Opener) {
	ctx := context.Background()
	tl := Tools(t, open)
	in := AcceptanceInput()
	in.Extraction.Relations[0].SupportingText = "the memory leak was fixed and never crashed anything"
	_, err := tl.Ingest(ctx, in)
	if retrieve.ErrorCode(err) != retrieve.CodeEvidenceNotFound {
		t.Fatalf("err = %v, want EVIDENCE_NOT_FOUND", err)
	}
	if st, _ := tl.Store.GraphStats(ctx); st.Nodes != 0 || st.Edges != 0 || st.Documents != 0 {
		t.Errorf("a rejected ingest wrote %+v", st)
	}
	in.AllowUnverified = true
	out, err := tl.Ingest(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if out.EdgesAdded != 1 {
		t.Fatalf("allow-unverified = %+v", out)
	}
	var e *graph.Edge
	_ = tl.Store.EachEdge(ctx, func(x *graph.Edge) error { e = x; return nil })
	if !e.Unverified || e.Confidence != graph.UnverifiedCap {
		t.Errorf("unverified edge = %+v", e)
	}
	// Not traversed at the default threshold.
	sub, _ := tl.Query(ctx, graph.QueryInput{Query: "system crash"})
	if len(sub.Edges) != 0 || len(sub.Nodes) != 1 {
		t.Errorf("unverified edge traversed: %+v", sub)
	}
	// Whitespace and case are normalised.
	tl2 := Tools(t, open)
	in2 := AcceptanceInput()
	in2.Extraction.Relations[0].SupportingText = "A  MEMORY leak in the\ncache service"
	if _, err := tl2.Ingest(ctx, in2); err != nil {
		t.Errorf("normalised evidence rejected: %v", err)
	}
	// Unknown endpoint is reported, not dropped.
	in3 := AcceptanceInput()
	in3.DocID = "doc_003"
	in3.Extraction.Relations = append(in3.Extraction.Relations, graph.ExtractedRelation{Source: "cache", Target: "system crash", Type: "causes", Confidence: 1, SupportingText: "cache service"})
	out3, err := tl2.Ingest(ctx, in3)
	if err != nil {
		t.Fatal(err)
	}
	if len(out3.Skipped) != 2 || out3.Skipped[1].Reason != graph.ReasonUnknownEndpoint {
		t.Errorf("skipped = %+v", out3.Skipped)
	}
}

func testDeterminism(t *testing.T, open Opener) {
	ctx := context.Background()
	tl := Tools(t, open)
	ingestStar(t, tl, "hub", 30, 20)
	var first []byte
	for i := 0; i < 2; i++ {
		ev, err := tl.Evidence(ctx, graph.QueryInput{Query: "what about hub?"})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(ev)
		if i == 0 {
			first = b
		} else if !bytes.Equal(first, b) {
			t.Errorf("two runs differ")
		}
	}
}

func testConcurrentIngest(t *testing.T, open Opener) {
	ctx := context.Background()
	tl := Tools(t, open)
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			text := fmt.Sprintf("Service s%d calls shared database. Service s%d uses cache c%d.", i, i, i)
			_, err := tl.Ingest(ctx, graph.IngestInput{DocID: fmt.Sprintf("doc_%03d", i), Title: "t", Content: text,
				Extraction: graph.Extraction{
					Entities: []graph.ExtractedEntity{{Name: fmt.Sprintf("s%d", i), Type: "service"}, {Name: "shared database", Type: "database"}, {Name: fmt.Sprintf("c%d", i), Type: "component"}},
					Relations: []graph.ExtractedRelation{
						{Source: fmt.Sprintf("s%d", i), Target: "shared database", Type: "calls", Confidence: 0.9, SupportingText: fmt.Sprintf("s%d calls shared database", i)},
						{Source: fmt.Sprintf("s%d", i), Target: fmt.Sprintf("c%d", i), Type: "uses", Confidence: 0.8, SupportingText: fmt.Sprintf("uses cache c%d", i)},
					}}})
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	st, err := tl.Store.GraphStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if *st != (graph.Stats{Documents: 50, Chunks: 50, Nodes: 101, Edges: 100}) {
		t.Errorf("stats = %+v, want 50 docs, 101 nodes, 100 edges", st)
	}
	onto, _ := tl.Store.GraphOntology(ctx)
	if onto.EntityTypes["software"] != 50 || onto.EntityTypes["storage"] != 1 || onto.RelationTypes["uses"] != 100 {
		t.Errorf("ontology = %+v", onto)
	}
}

// ingestStar ingests a hub entity linked to n spokes, each with m leaves.
func ingestStar(t *testing.T, tl *graph.Tools, hub string, n, m int) {
	t.Helper()
	var text strings.Builder
	x := graph.Extraction{Entities: []graph.ExtractedEntity{{Name: hub, Type: "system"}}}
	for i := 0; i < n; i++ {
		spoke := fmt.Sprintf("spoke%02d", i)
		conf := 0.6 + float64(i%5)*0.1
		fmt.Fprintf(&text, "%s links %s. ", hub, spoke)
		x.Entities = append(x.Entities, graph.ExtractedEntity{Name: spoke, Type: "component"})
		x.Relations = append(x.Relations, graph.ExtractedRelation{Source: hub, Target: spoke, Type: "links to", Confidence: conf, SupportingText: hub + " links " + spoke})
		for j := 0; j < m; j++ {
			leaf := fmt.Sprintf("leaf%02d_%02d", i, j)
			fmt.Fprintf(&text, "%s has %s. ", spoke, leaf)
			x.Entities = append(x.Entities, graph.ExtractedEntity{Name: leaf, Type: "component"})
			x.Relations = append(x.Relations, graph.ExtractedRelation{Source: spoke, Target: leaf, Type: "contains", Confidence: 0.7, SupportingText: spoke + " has " + leaf})
		}
	}
	if _, err := tl.Ingest(context.Background(), graph.IngestInput{DocID: "star_" + hub, Title: hub, Content: text.String(), Extraction: x}); err != nil {
		t.Fatal(err)
	}
}

func testPruning(t *testing.T, open Opener) {
	ctx := context.Background()
	tl := Tools(t, open)
	ingestStar(t, tl, "hub", 30, 20) // 1 + 30 + 600 reachable
	sub, err := tl.Query(ctx, graph.QueryInput{Query: "hub"})
	if err != nil {
		t.Fatal(err)
	}
	if len(sub.Nodes) != graph.MaxNodes {
		t.Fatalf("%d nodes, want %d", len(sub.Nodes), graph.MaxNodes)
	}
	names := map[string]bool{}
	for _, n := range sub.Nodes {
		names[n.Name] = true
	}
	if !names["hub"] {
		t.Error("seed dropped")
	}
	for i := 0; i < 30; i++ {
		if !names[fmt.Sprintf("spoke%02d", i)] {
			t.Errorf("depth-1 node spoke%02d dropped while depth-2 nodes kept", i)
		}
	}
	// Depth-2 nodes fill the rest, reached first through the
	// highest-confidence spokes (confidence 1.0: i%5 == 4).
	leaves := 0
	for n := range names {
		if strings.HasPrefix(n, "leaf") {
			leaves++
			var i int
			fmt.Sscanf(n, "leaf%02d", &i)
			if i%5 != 4 {
				t.Errorf("leaf %s came through a spoke of confidence %.1f while 1.0 spokes had room", n, 0.6+float64(i%5)*0.1)
			}
		}
	}
	if leaves != graph.MaxNodes-31 {
		t.Errorf("%d leaves, want %d", leaves, graph.MaxNodes-31)
	}
	// A smaller cap keeps the higher-confidence depth-1 nodes first.
	sub, _ = tl.Query(ctx, graph.QueryInput{Query: "hub", MaxNodes: 7})
	for _, n := range sub.Nodes {
		var i int
		if _, err := fmt.Sscanf(n.Name, "spoke%02d", &i); err == nil && i%5 != 4 {
			t.Errorf("kept %s (confidence %.1f) over 1.0 spokes", n.Name, 0.6+float64(i%5)*0.1)
		}
	}
	if len(sub.Nodes) != 7 {
		t.Errorf("%d nodes, want 7", len(sub.Nodes))
	}
	// Depth is capped at 2, and unverified edges are not followed.
	tl2 := Tools(t, open)
	text := "alpha feeds bravo. bravo feeds charlie. charlie feeds delta."
	x := graph.Extraction{}
	chain := []string{"alpha", "bravo", "charlie", "delta"}
	for i, n := range chain {
		x.Entities = append(x.Entities, graph.ExtractedEntity{Name: n, Type: "component"})
		if i > 0 {
			x.Relations = append(x.Relations, graph.ExtractedRelation{Source: chain[i-1], Target: n, Type: "feeds", Confidence: 1, SupportingText: chain[i-1] + " feeds " + n})
		}
	}
	if _, err := tl2.Ingest(ctx, graph.IngestInput{DocID: "chain", Content: text, Extraction: x}); err != nil {
		t.Fatal(err)
	}
	sub, _ = tl2.Query(ctx, graph.QueryInput{Query: "alpha", Depth: 5})
	got := map[string]bool{}
	for _, n := range sub.Nodes {
		got[n.Name] = true
	}
	if !reflect.DeepEqual(got, map[string]bool{"alpha": true, "bravo": true, "charlie": true}) {
		t.Errorf("depth-capped query = %v", got)
	}
}

func readAll(t *testing.T, dir string) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, f := range []string{"graph.json", "documents.json", "ontology.json"} {
		b, err := os.ReadFile(filepath.Join(dir, "data", f))
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		if f == "graph.json" {
			g := v.(map[string]any)
			edges := g["edges"].([]any)
			sort.Slice(edges, func(i, j int) bool { return fmt.Sprint(edges[i]) < fmt.Sprint(edges[j]) })
			for _, n := range g["nodes"].(map[string]any) {
				cs := n.(map[string]any)["source_chunks"].([]any)
				sort.Slice(cs, func(i, j int) bool { return fmt.Sprint(cs[i]) < fmt.Sprint(cs[j]) })
			}
		}
		out[f] = v
	}
	return out
}

// UpstreamFixture writes a mini-context-graph folder as upstream writes it.
func UpstreamFixture(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"data/graph.json": `{
  "nodes": {
    "a1b2c3d4": {"name": "memory leak", "type": "issue", "source_document": "doc_001", "source_chunks": ["doc_001_chunk_000"]},
    "e5f6a7b8": {"name": "system crash", "type": "event", "source_document": "doc_001", "source_chunks": ["doc_001_chunk_000"]},
    "c9d0e1f2": {"name": "cache service", "type": "software", "source_document": null, "source_chunks": []}
  },
  "edges": [
    {"source": "a1b2c3d4", "target": "e5f6a7b8", "type": "causes", "confidence": 0.9, "source_document": "doc_001", "supporting_text": "a memory leak in the cache service causes a system crash", "chunk_id": "doc_001_chunk_000"},
    {"source": "c9d0e1f2", "target": "a1b2c3d4", "type": "contains", "confidence": 0.8, "source_document": null, "supporting_text": null, "chunk_id": null}
  ]
}`,
		"data/documents.json":          `{"documents": {"doc_001": {"id": "doc_001", "title": "Incident report", "source": "notes/incident.md", "content": "` + AcceptanceText + `", "chunks": [{"chunk_id": "doc_001_chunk_000", "index": 0, "text": "` + AcceptanceText + `"}], "ingestion_date": "2026-05-05T04:04:37.000000+00:00"}}}`,
		"data/index.json":              `{"entity_index": {"memory leak": ["a1b2c3d4"], "system crash": ["e5f6a7b8"], "cache service": ["c9d0e1f2"]}, "keyword_index": {"memory": ["a1b2c3d4"], "leak": ["a1b2c3d4"]}}`,
		"data/ontology.json":           `{"entity_types": {"issue": 2, "event": 1, "software": 1}, "relation_types": {"causes": 3, "contains": 1}}`,
		"wiki/index.md":                "# Wiki Index\n\n| Page | Category | Summary | Date |\n|------|----------|---------|------|\n| [[memory-leak]] | entity | Leaks memory | 2026-05-05 |\n",
		"wiki/log.md":                  "\n## [2026-05-05] write | memory leak\n",
		"wiki/entities/memory-leak.md": "---\ntitle: memory leak\ntype: issue\nsource_document: doc_001\ntags: [bug]\n---\n\n# Memory leak\n\nLeaks memory until a [[system-crash]].\n",
	}
	writeFiles(t, dir, files)
}

func testRoundTrip(t *testing.T, open Opener) {
	ctx := context.Background()
	up := t.TempDir()
	UpstreamFixture(t, up)
	tl := Tools(t, open)
	imp, err := tl.Import(ctx, graph.ImportInput{Dir: up})
	if err != nil {
		t.Fatal(err)
	}
	if imp.DocumentsAdded != 1 || imp.NodesAdded != 3 || imp.EdgesAdded != 2 || imp.EdgesUnverified != 1 || imp.WikiPages != 1 {
		t.Errorf("import = %+v", imp)
	}
	exp := t.TempDir()
	if _, err := tl.Export(ctx, graph.ExportInput{Dir: exp}); err != nil {
		t.Fatal(err)
	}
	a, b := readAll(t, up), readAll(t, exp)
	if !reflect.DeepEqual(a, b) {
		ja, _ := json.MarshalIndent(a, "", " ")
		jb, _ := json.MarshalIndent(b, "", " ")
		t.Errorf("round trip changed the files:\nupstream %s\nexported %s", ja, jb)
	}
	for _, f := range []string{"wiki/entities/memory-leak.md"} {
		x, _ := os.ReadFile(filepath.Join(up, f))
		y, _ := os.ReadFile(filepath.Join(exp, f))
		if !bytes.Equal(x, y) {
			t.Errorf("%s changed", f)
		}
	}
	// Re-importing merges: nothing new.
	again, err := tl.Import(ctx, graph.ImportInput{Dir: up})
	if err != nil {
		t.Fatal(err)
	}
	if again.DocumentsAdded != 0 || again.NodesAdded != 0 || again.EdgesAdded != 0 || again.NodesMerged != 3 || again.EdgesMerged != 2 {
		t.Errorf("re-import = %+v", again)
	}
	if st, _ := tl.Store.GraphStats(ctx); *st != (graph.Stats{Documents: 1, Chunks: 1, Nodes: 3, Edges: 2}) {
		t.Errorf("stats after re-import = %+v", st)
	}
	roundTripMerge(t, open, up)
}

// roundTripMerge: importing into a graph that has the same entity under
// another id merges by name, and ingesting after an import reuses the
// imported ids.
func roundTripMerge(t *testing.T, open Opener, up string) {
	ctx := context.Background()
	tl2 := Tools(t, open)
	if _, err := tl2.Ingest(ctx, AcceptanceInput()); err != nil {
		t.Fatal(err)
	}
	m, err := tl2.Import(ctx, graph.ImportInput{Dir: up})
	if err != nil {
		t.Fatal(err)
	}
	if m.NodesAdded != 1 || m.NodesMerged != 2 || m.EdgesAdded != 1 || m.DocumentsKept != 1 {
		t.Errorf("merge import = %+v", m)
	}
	// Ingesting after an import reuses the imported ids.
	tl3 := Tools(t, open)
	if _, err := tl3.Import(ctx, graph.ImportInput{Dir: up}); err != nil {
		t.Fatal(err)
	}
	in := AcceptanceInput()
	in.DocID = "doc_009"
	ing, err := tl3.Ingest(ctx, in)
	if err != nil {
		t.Fatalf("ingest after import: %v", err)
	}
	if ing.NodesAdded != 0 || ing.EdgesAdded != 0 {
		t.Errorf("ingest after import = %+v, want the imported entities and edge reused", ing)
	}
	ev, _ := tl2.Evidence(ctx, graph.QueryInput{Query: "Why does the system crash?"})
	if len(ev.Subgraph.Nodes) != 2 || len(ev.Subgraph.Edges) != 1 {
		t.Errorf("after merge: %d nodes %d edges; the contains edge has no evidence and must not be followed", len(ev.Subgraph.Nodes), len(ev.Subgraph.Edges))
	}
	ev, _ = tl2.Evidence(ctx, graph.QueryInput{Query: "Why does the system crash?", IncludeUnverified: true})
	if len(ev.Subgraph.Nodes) != 3 || len(ev.Subgraph.Edges) != 2 {
		t.Errorf("with unverified: %d nodes %d edges", len(ev.Subgraph.Nodes), len(ev.Subgraph.Edges))
	}
	for _, p := range ev.Paths {
		for _, h := range p.Hops {
			if h.Type == "contains" && (!h.Unverified || h.SupportingText != nil || h.Citation.Reference != "") {
				t.Errorf("unverified hop = %+v", h)
			}
		}
	}
}

func testWiki(t *testing.T, open Opener) {
	ctx := context.Background()
	tl := Tools(t, open)
	w := tl.Wiki
	write := func(cat, title, content, summary string) *wiki.PageRef {
		t.Helper()
		r, err := w.Write(ctx, wiki.WriteInput{Category: cat, Title: title, Content: content, Summary: summary})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	write("entity", "Memory Leak", "# Memory leak\n\nMemory that is never released; it leads to a [[system-crash]].\n", "")
	write("entity", "System Crash", "---\ntitle: System Crash\ntype: event\n---\n\n# System crash\n\nThe process dies. See [[memory-leak]] and [[topic/memory-leak]].\n", "")
	write("topic", "Memory Leak", "# Memory leaks in depth\n\nWhy leaks | crashes happen. [[entity/memory-leak]] [[nowhere]]\n", "Leaks | crashes")
	write("summary", "Incident doc", "Summary of the incident. [[summaries/incident-doc]]\n", "")
	// Slug collision across categories: both pages exist.
	if _, err := w.Read(ctx, wiki.ReadInput{Slug: "memory-leak"}); retrieve.ErrorCode(err) != retrieve.CodeInputValidation {
		t.Errorf("ambiguous read err = %v", err)
	}
	p, err := w.Read(ctx, wiki.ReadInput{Slug: "topic/memory-leak"})
	if err != nil || p.Citation != "wiki:topic/memory-leak" || !strings.Contains(p.Content, "in depth") {
		t.Fatalf("read topic = %+v, %v", p, err)
	}
	// Summary with | round-trips through index.md; frontmatter is not the summary.
	idx, _ := os.ReadFile(filepath.Join(w.Dir, "index.md"))
	rows := wiki.ParseIndex(string(idx))
	if len(rows) != 4 {
		t.Fatalf("index rows = %+v", rows)
	}
	for _, r := range rows {
		if r.Category == "topic" && r.Summary != "Leaks | crashes" {
			t.Errorf("topic summary = %q", r.Summary)
		}
		if r.Slug == "system-crash" && r.Summary != "The process dies. See [[memory-leak]] and [[topic/memory-leak]]." {
			t.Errorf("system-crash summary = %q (frontmatter taken?)", r.Summary)
		}
	}
	lint, err := w.Lint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(lint.BrokenWikilinks, map[string][]string{"topic/memory-leak": {"nowhere"}}) {
		t.Errorf("broken = %+v", lint.BrokenWikilinks)
	}
	if len(lint.OrphanPages) != 0 || len(lint.MissingPages) != 0 || len(lint.IsolatedPages) != 0 {
		t.Errorf("lint = %+v", lint)
	}
	wikiEdits(t, w)
	wikiAsk(t, tl, write)
}

// wikiEdits: a hand-added page is an orphan, isolated, and searchable
// after sync; a removed one is missing.
func wikiEdits(t *testing.T, w *wiki.Wiki) {
	ctx := context.Background()
	os.WriteFile(filepath.Join(w.Dir, "topics", "hand.md"), []byte("# Hand\n\nDatabase outage notes.\n"), 0o644)
	os.Remove(filepath.Join(w.Dir, "summaries", "incident-doc.md"))
	lint, _ := w.Lint(ctx)
	if !reflect.DeepEqual(lint.OrphanPages, []string{"hand"}) || !reflect.DeepEqual(lint.MissingPages, []string{"incident-doc"}) || !reflect.DeepEqual(lint.IsolatedPages, []string{"hand"}) {
		t.Errorf("lint after edits = %+v", lint)
	}
	hits, err := w.Search(ctx, wiki.SearchInput{Query: "database outage"})
	if err != nil || len(hits) != 1 || hits[0].Slug != "hand" || hits[0].Score != 0.75 {
		t.Errorf("search = %+v, %v", hits, err)
	}
	hits, _ = w.Search(ctx, wiki.SearchInput{Query: "why do memory leaks crash?"})
	if len(hits) < 3 || hits[0].Slug != "memory-leak" || hits[0].Score < hits[len(hits)-1].Score {
		t.Errorf("ranked search = %+v", hits)
	}
}

// wikiAsk: wiki-first ask, where the pages answer with citations and an
// unrelated question goes to the graph (and is filed back).
func wikiAsk(t *testing.T, tl *graph.Tools, write func(cat, title, content, summary string) *wiki.PageRef) {
	ctx := context.Background()
	w := tl.Wiki
	ask, err := tl.Ask(ctx, graph.AskInput{QueryInput: graph.QueryInput{Query: "memory leak"}})
	if err != nil || ask.Answered != "wiki" || ask.WikiPages[0].Citation == "" || !strings.HasPrefix(ask.WikiPages[0].Hash, "sha256:") {
		t.Errorf("ask = %+v, %v", ask, err)
	}
	if _, err := tl.Ingest(ctx, AcceptanceInput()); err != nil {
		t.Fatal(err)
	}
	ask, err = tl.Ask(ctx, graph.AskInput{QueryInput: graph.QueryInput{Query: "Why does the system crash?"}, MinWikiScore: 1.01, FileBack: true})
	if err != nil || ask.Answered != "graph" || ask.FiledBack == nil || ask.FiledBack.Citation != "wiki:topic/why-does-the-system-crash" {
		t.Fatalf("ask graph = %+v, %v", ask, err)
	}
	p, err := w.Read(ctx, wiki.ReadInput{Slug: "why-does-the-system-crash"})
	if err != nil || !strings.Contains(p.Content, "doc:doc_001#doc_001_chunk_000") || !strings.Contains(p.Content, "memory leak --[causes]--> system crash") {
		t.Errorf("filed page = %+v, %v", p, err)
	}
	ask, _ = tl.Ask(ctx, graph.AskInput{QueryInput: graph.QueryInput{Query: "Why does the system crash?"}})
	filed := false
	for _, p := range ask.WikiPages {
		filed = filed || p.Slug == "why-does-the-system-crash"
	}
	if ask.Answered != "wiki" || !filed {
		t.Errorf("second ask = %s %+v", ask.Answered, ask.WikiHits)
	}
	write("topic", "Staging token", "The staging token rotates weekly.\n", "")
	// One word the index stems its own way ("staging": stage in FTS5 and
	// PostgreSQL, stag in the score) still finds its page.
	if hits, err := w.Search(ctx, wiki.SearchInput{Query: "staging"}); err != nil || len(hits) != 1 || hits[0].Slug != "staging-token" {
		t.Errorf("search staging = %+v, %v", hits, err)
	}
}

// IntlText is a Chinese incident report: a memory leak causes a crash.
const IntlText = "事故报告：缓存服务的内存泄漏导致服务崩溃，几小时后发生。Ｍｅｍｏｒｙ leak ｻｰﾋﾞｽ停止も起きた。"

// testIntl: questions in Chinese, Japanese and full-width Latin find the
// entities they name (after NFKC and lowercasing), then the evidence.
func testIntl(t *testing.T, open Opener) {
	ctx := context.Background()
	tl := Tools(t, open)
	out, err := tl.Ingest(ctx, graph.IngestInput{DocID: "doc_zh", Title: "事故报告", Content: IntlText,
		Extraction: graph.Extraction{
			Entities: []graph.ExtractedEntity{
				{Name: "内存泄漏", Type: "bug", SupportingText: "内存泄漏"},
				{Name: "服务崩溃", Type: "event", SupportingText: "服务崩溃"},
				{Name: "ｻｰﾋﾞｽ停止", Type: "event", SupportingText: "ｻｰﾋﾞｽ停止"},
				{Name: "Ｍｅｍｏｒｙ Leak", Type: "bug"},
			},
			Relations: []graph.ExtractedRelation{
				{Source: "内存泄漏", Target: "服务崩溃", Type: "导致", Confidence: 0.9, SupportingText: "内存泄漏导致服务崩溃"},
				{Source: "ｻｰﾋﾞｽ停止", Target: "Ｍｅｍｏｒｙ Leak", Type: "related", Confidence: 0.8, SupportingText: "Ｍｅｍｏｒｙ leak ｻｰﾋﾞｽ停止"},
			},
		}})
	if err != nil {
		t.Fatal(err)
	}
	if out.NodesAdded != 4 || out.EdgesAdded != 2 {
		t.Fatalf("ingest = %+v", out)
	}
	ev, err := tl.Evidence(ctx, graph.QueryInput{Query: "什么导致服务崩溃?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Subgraph.Nodes) != 2 || len(ev.Subgraph.Edges) != 1 || ev.EvidenceChain != "内存泄漏 --[导致]--> 服务崩溃" {
		t.Errorf("什么导致服务崩溃? → %+v, chain %q", ev.Subgraph, ev.EvidenceChain)
	}
	if len(ev.Paths) != 1 || ev.Paths[0].Hops[0].SupportingText == nil || *ev.Paths[0].Hops[0].SupportingText != "内存泄漏导致服务崩溃" || ev.Paths[0].Hops[0].Citation.Reference != "doc:doc_zh#doc_zh_chunk_000" {
		t.Errorf("paths = %+v", ev.Paths)
	}
	// The wiki index of the store: words inside CJK sentences, accents.
	for _, p := range []wiki.WriteInput{
		{Category: "topic", Title: "回滚手册", Content: "回滚时先检查证书，然后重启服务。"},
		{Category: "topic", Title: "Résumé", Content: "Le serveur a redémarré."},
	} {
		if _, err := tl.Wiki.Write(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	for q, want := range map[string]string{"证书": "回滚手册", "resume": "résumé", "redemarre": "résumé"} {
		hits, err := tl.Wiki.Search(ctx, wiki.SearchInput{Query: q})
		if err != nil || len(hits) == 0 || hits[0].Slug != want {
			t.Errorf("wiki search %q: %+v, %v; want %s", q, hits, err, want)
		}
	}
	for q, want := range map[string]string{
		"サービス停止の原因は何ですか": "サービス停止",      // half-width at ingest, full-width asked
		"ＭＥＭＯＲＹ　ＬＥＡＫ?":   "memory leak", // full-width asked
		"memory leak":    "memory leak",
		"内存泄漏":           "内存泄漏",
	} {
		seeds, err := tl.Seeds(ctx, q, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(seeds) == 0 || seeds[0] != graph.NodeID(want) {
			t.Errorf("seeds of %q = %v, want %s (%s) first", q, seeds, want, graph.NodeID(want))
		}
	}
}

// testIntlRoundTrip: upstream files with names in other scripts import
// and export unchanged, wiki pages with non-ASCII file names included.
func testIntlRoundTrip(t *testing.T, open Opener) {
	ctx := context.Background()
	up := t.TempDir()
	text := "内存泄漏导致服务崩溃。Le café crash."
	files := map[string]string{
		"data/graph.json": `{"nodes": {
    "n1": {"name": "内存泄漏", "type": "issue", "source_document": "doc_zh", "source_chunks": ["doc_zh_chunk_000"]},
    "n2": {"name": "服务崩溃", "type": "event", "source_document": "doc_zh", "source_chunks": ["doc_zh_chunk_000"]},
    "n3": {"name": "café crash", "type": "event", "source_document": "doc_zh", "source_chunks": ["doc_zh_chunk_000"]}},
  "edges": [{"source": "n1", "target": "n2", "type": "causes", "confidence": 0.9, "source_document": "doc_zh", "supporting_text": "内存泄漏导致服务崩溃", "chunk_id": "doc_zh_chunk_000"}]}`,
		"data/documents.json":   `{"documents": {"doc_zh": {"id": "doc_zh", "title": "事故", "source": "notes/事故.md", "content": "` + text + `", "chunks": [{"chunk_id": "doc_zh_chunk_000", "index": 0, "text": "` + text + `"}], "ingestion_date": "2026-05-05T04:04:37.000000+00:00"}}}`,
		"data/index.json":       `{"entity_index": {"内存泄漏": ["n1"], "服务崩溃": ["n2"], "café crash": ["n3"]}, "keyword_index": {"caf": ["n3"], "crash": ["n3"]}}`,
		"data/ontology.json":    `{"entity_types": {"issue": 1, "event": 2}, "relation_types": {"causes": 1}}`,
		"wiki/index.md":         "# Wiki Index\n\n| Page | Category | Summary | Date |\n|------|----------|---------|------|\n| [[内存泄漏]] | entity | 泄漏 | 2026-05-05 |\n",
		"wiki/log.md":           "\n## [2026-05-05] write | 内存泄漏\n",
		"wiki/entities/内存泄漏.md": "---\ntitle: 内存泄漏\ntype: issue\n---\n\n# 内存泄漏\n\n导致 [[服务崩溃]]。\n",
	}
	writeFiles(t, up, files)
	tl := Tools(t, open)
	imp, err := tl.Import(ctx, graph.ImportInput{Dir: up})
	if err != nil {
		t.Fatal(err)
	}
	if imp.NodesAdded != 3 || imp.EdgesAdded != 1 || imp.WikiPages != 1 {
		t.Errorf("import = %+v", imp)
	}
	exp := t.TempDir()
	if _, err := tl.Export(ctx, graph.ExportInput{Dir: exp}); err != nil {
		t.Fatal(err)
	}
	a, b := readAll(t, up), readAll(t, exp)
	if !reflect.DeepEqual(a, b) {
		ja, _ := json.MarshalIndent(a, "", " ")
		jb, _ := json.MarshalIndent(b, "", " ")
		t.Errorf("round trip changed the files:\nupstream %s\nexported %s", ja, jb)
	}
	x, _ := os.ReadFile(filepath.Join(up, "wiki/entities/内存泄漏.md"))
	y, err := os.ReadFile(filepath.Join(exp, "wiki/entities/内存泄漏.md"))
	if err != nil || !bytes.Equal(x, y) {
		t.Errorf("wiki/entities/内存泄漏.md changed: %v", err)
	}
	// Imported names are found by questions too.
	ev, err := tl.Evidence(ctx, graph.QueryInput{Query: "为什么服务崩溃"})
	if err != nil || ev.EvidenceChain != "内存泄漏 --[causes]--> 服务崩溃" {
		t.Errorf("evidence after import: %q, %v", ev.EvidenceChain, err)
	}
}

// writeFiles writes files (slash paths relative to dir) with their folders.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
