package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/graph/graphtest"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// benchGraph is a generated graph of n entities and 5n relations: names of
// two words from an n/2-word vocabulary, random edges with confidence
// 0.5–1.0, each with a chunk of the document that holds its supporting text.
type benchGraph struct {
	g     *sqlite.Graph
	names []string
}

var (
	benchMu     sync.Mutex
	benchGraphs = map[int]*benchGraph{}
	benchDir    string
)

func getBenchGraph(b *testing.B, n int) *benchGraph {
	benchMu.Lock()
	defer benchMu.Unlock()
	if bg, ok := benchGraphs[n]; ok {
		return bg
	}
	if benchDir == "" {
		benchDir = b.TempDir()
	}
	ctx := context.Background()
	g, err := sqlite.OpenGraphFile(ctx, filepath.Join(benchDir, fmt.Sprintf("g%d.db", n)))
	if err != nil {
		b.Fatal(err)
	}
	names, err := graphtest.Generate(ctx, g, n)
	if err != nil {
		b.Fatal(err)
	}
	bg := &benchGraph{g: g, names: names}
	benchGraphs[n] = bg
	return bg
}

func reportPercentiles(b *testing.B, durs []time.Duration) {
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	if len(durs) == 0 {
		return
	}
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(durs[len(durs)*95/100].Microseconds())/1000, "p95-ms")
}

// cpuTime is the process's user+system CPU time: on a shared, loaded
// machine it is a steadier measure than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchSizes(b *testing.B, fn func(b *testing.B, bg *benchGraph)) {
	for _, n := range []int{10_000, 50_000} {
		b.Run(fmt.Sprintf("entities=%d", n), func(b *testing.B) {
			bg := getBenchGraph(b, n)
			b.ResetTimer()
			c0 := cpuTime()
			fn(b, bg)
			b.ReportMetric(float64((cpuTime()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkGraphQuery is `retrieve graph query`: seeds, BFS depth 2, 50 nodes.
func BenchmarkGraphQuery(b *testing.B) {
	benchSizes(b, func(b *testing.B, bg *benchGraph) {
		tl := &graph.Tools{Store: bg.g}
		r := rand.New(rand.NewPCG(3, 4))
		var durs []time.Duration
		for i := 0; i < b.N; i++ {
			q := "What does " + bg.names[r.IntN(len(bg.names))] + " depend on?"
			t0 := time.Now()
			if _, err := tl.Query(context.Background(), graph.QueryInput{Query: q}); err != nil {
				b.Fatal(err)
			}
			durs = append(durs, time.Since(t0))
		}
		reportPercentiles(b, durs)
	})
}

// BenchmarkGraphEvidence is `retrieve graph evidence`.
func BenchmarkGraphEvidence(b *testing.B) {
	benchSizes(b, func(b *testing.B, bg *benchGraph) {
		tl := &graph.Tools{Store: bg.g}
		r := rand.New(rand.NewPCG(5, 6))
		var durs []time.Duration
		for i := 0; i < b.N; i++ {
			q := "Why does " + bg.names[r.IntN(len(bg.names))] + " fail?"
			t0 := time.Now()
			if _, err := tl.Evidence(context.Background(), graph.QueryInput{Query: q}); err != nil {
				b.Fatal(err)
			}
			durs = append(durs, time.Since(t0))
		}
		reportPercentiles(b, durs)
	})
}

// BenchmarkGraphEdgeWrite is one edge write (its own transaction).
func BenchmarkGraphEdgeWrite(b *testing.B) {
	benchSizes(b, func(b *testing.B, bg *benchGraph) {
		r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 8))
		for i := 0; i < b.N; i++ {
			e := &graph.Edge{Source: graph.NodeID(bg.names[r.IntN(len(bg.names))]), Target: graph.NodeID(bg.names[r.IntN(len(bg.names))]),
				Type: fmt.Sprintf("bench %d", r.IntN(1<<30)), Confidence: 0.9, SourceDocument: "gen_000000", SupportingText: "x", ChunkID: "gen_000000_chunk_000"}
			if _, err := bg.g.ApplyGraph(context.Background(), &graph.Batch{Edges: []*graph.Edge{e}, CountNewTypes: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkGraphIngest is `retrieve graph ingest` of a document with 20
// entities and 20 relations; reports documents per second.
func BenchmarkGraphIngest(b *testing.B) {
	benchSizes(b, func(b *testing.B, bg *benchGraph) {
		tl := &graph.Tools{Store: bg.g}
		r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 9))
		start := time.Now()
		for i := 0; i < b.N; i++ {
			var text strings.Builder
			x := graph.Extraction{}
			for k := 0; k < 20; k++ {
				nm := fmt.Sprintf("ingested %d %d", r.IntN(1<<30), k)
				x.Entities = append(x.Entities, graph.ExtractedEntity{Name: nm, Type: "component", SupportingText: nm})
				other := bg.names[r.IntN(len(bg.names))]
				if k > 0 {
					other = x.Entities[k-1].Name
				}
				fmt.Fprintf(&text, "%s feeds %s. ", nm, other)
				if k > 0 {
					x.Relations = append(x.Relations, graph.ExtractedRelation{Source: nm, Target: other, Type: "feeds", Confidence: 0.8, SupportingText: nm + " feeds " + other})
				}
			}
			if _, err := tl.Ingest(context.Background(), graph.IngestInput{DocID: fmt.Sprintf("bench_%d_%d", r.IntN(1<<30), i), Title: "b", Content: text.String(), Extraction: x}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "docs/s")
	})
}

// BenchmarkGraphQueryAsOf compares `graph query --as-of` with today's
// query at 100,000 relations (20,000 entities), interleaved in one loop on
// the same questions: one edge in ten has a retired version (rewritten
// with a higher confidence later), and the as-of time falls between, so
// the as-of query reads both the live and the retired tables. Reports
// both medians and their ratio (target ≤ 1.5).
func BenchmarkGraphQueryAsOf(b *testing.B) {
	bg := getBenchGraph(b, 20_000)
	ctx := context.Background()
	benchMu.Lock()
	var n int
	_ = bg.g.EachEdge(ctx, func(e *graph.Edge) error { n++; return nil })
	if n > 0 && !retiredBench {
		retiredBench = true
		var rewrite []*graph.Edge
		i := 0
		_ = bg.g.EachEdge(ctx, func(e *graph.Edge) error {
			if i++; i%10 == 0 && e.Confidence < 1 {
				c := *e
				c.Confidence = 1
				rewrite = append(rewrite, &c)
			}
			return nil
		})
		for k := 0; k < len(rewrite); k += 500 {
			if _, err := bg.g.ApplyGraph(ctx, &graph.Batch{Edges: rewrite[k:min(k+500, len(rewrite))], Now: 2e15}); err != nil {
				b.Fatal(err)
			}
		}
	}
	benchMu.Unlock()
	tl := &graph.Tools{Store: bg.g}
	r := rand.New(rand.NewPCG(3, 4))
	var now, asOf []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := "What does " + bg.names[r.IntN(len(bg.names))] + " depend on?"
		t0 := time.Now()
		if _, err := tl.Query(ctx, graph.QueryInput{Query: q}); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		sub, err := tl.Query(ctx, graph.QueryInput{Query: q, AsOf: "2001-09-09T01:46:40Z"})
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 && len(sub.Nodes) == 0 {
			b.Fatal("the as-of query found nothing")
		}
		now, asOf = append(now, t1.Sub(t0)), append(asOf, time.Since(t1))
	}
	b.StopTimer()
	sort.Slice(now, func(i, j int) bool { return now[i] < now[j] })
	sort.Slice(asOf, func(i, j int) bool { return asOf[i] < asOf[j] })
	b.ReportMetric(float64(now[len(now)/2].Microseconds())/1000, "now-p50-ms")
	b.ReportMetric(float64(asOf[len(asOf)/2].Microseconds())/1000, "asof-p50-ms")
	b.ReportMetric(float64(asOf[len(asOf)/2])/float64(now[len(now)/2]), "asof/now")
	b.ReportMetric(float64(n), "edges")
}

var retiredBench bool

// BenchmarkGraphForget is `retrieve graph forget` of one source behind
// 10,000 edges and 10,000 entities (target ≤ 5 s), in batches of
// graph.ForgetBatch.
func BenchmarkGraphForget(b *testing.B) {
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		g, err := sqlite.OpenGraphFile(ctx, filepath.Join(b.TempDir(), "forget.db"))
		if err != nil {
			b.Fatal(err)
		}
		const n = 10_000
		doc := &graph.Document{ID: "big", Title: "big", Content: "x", Reference: "src/big.md", IngestionDate: "2026-01-01T00:00:00+00:00"}
		doc.Chunks = graph.ChunkText("big", doc.Content)
		batch := &graph.Batch{Document: doc, Now: 1}
		for k := 0; k <= n; k++ {
			name := fmt.Sprintf("entity %d", k)
			batch.Nodes = append(batch.Nodes, &graph.Node{ID: graph.NodeID(name), Name: name, Type: "component", SourceDocument: "big", SourceChunks: []string{"big_chunk_000"}})
			if k > 0 {
				batch.Edges = append(batch.Edges, &graph.Edge{Source: graph.NodeID(fmt.Sprintf("entity %d", k-1)), Target: graph.NodeID(name), Type: "uses",
					Confidence: 0.9, SourceDocument: "big", SupportingText: "x", ChunkID: "big_chunk_000"})
			}
		}
		if _, err := g.ApplyGraph(ctx, batch); err != nil {
			b.Fatal(err)
		}
		tl := &graph.Tools{Store: g}
		b.StartTimer()
		out, err := tl.Forget(ctx, graph.ForgetInput{Source: "src/big.md"})
		b.StopTimer()
		if err != nil || out.Total.Edges != n || out.Total.Nodes != n+1 {
			b.Fatalf("forget = %+v, %v", out, err)
		}
		g.Close()
	}
}

// BenchmarkGraphSummary is the graph part of `retrieve graph summary` at
// 100,000 relations (20,000 entities): counts, both type lists, the most
// connected entities, the recently stale edges (target ≤ 50 ms).
func BenchmarkGraphSummary(b *testing.B) {
	bg := getBenchGraph(b, 20_000)
	tl := &graph.Tools{Store: bg.g}
	b.ResetTimer()
	c0 := cpuTime()
	var durs []time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		s, err := tl.Summary(context.Background(), "", 10)
		if err != nil {
			b.Fatal(err)
		}
		if s.Edges < 90_000 || len(s.MostConnected) != 10 {
			b.Fatalf("summary: %d edges, %d hubs", s.Edges, len(s.MostConnected))
		}
		durs = append(durs, time.Since(t0))
	}
	b.ReportMetric(float64((cpuTime()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	reportPercentiles(b, durs)
}
