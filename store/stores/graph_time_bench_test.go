package stores_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/graph/graphtest"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/postgres"
	"github.com/retrieve-dev/retrieve/store/sqlite"
	"github.com/retrieve-dev/retrieve/store/stores"
)

// BenchmarkGraphTimeStores runs, on SQLite and on PostgreSQL side by side,
// at 100,000 relations (20,000 entities, graphtest.Generate; one edge in
// ten rewritten later with a higher confidence, so it has a retired
// version): "asof", `graph query --as-of` (between the two versions)
// against today's query on the same questions in one loop (their medians
// and ratio, target ≤ 1.5), and "summary", the graph part of `graph
// summary` on a store opened for each call as a new process opens it
// (the store, the graph and the memory index on its connections) with the
// notes' counts of 100,000 notes in the same store (target ≤ 50 ms). Each store is loaded once.
func BenchmarkGraphTimeStores(b *testing.B) {
	ctx := context.Background()
	for _, kind := range []string{"sqlite", "postgres"} {
		if only := os.Getenv("RETRIEVE_BENCH_STORE"); only != "" && only != kind {
			continue // RETRIEVE_BENCH_STORE=postgres: one store only
		}
		var open func() (graph.Store, func())
		var spec string
		switch kind {
		case "sqlite":
			path := filepath.Join(b.TempDir(), "g.db")
			spec = path
			open = func() (graph.Store, func()) {
				g, err := sqlite.OpenGraphFile(ctx, path)
				if err != nil {
					b.Fatal(err)
				}
				return g, func() { _ = g.Close() }
			}
		default:
			u := pgtest.URL(b, "pggraph_timebench")
			spec = u
			open = func() (graph.Store, func()) {
				g, err := postgres.OpenGraph(ctx, u)
				if err != nil {
					b.Fatal(err)
				}
				return g, func() { _ = g.Close() }
			}
		}
		st, done := open()
		t0 := time.Now()
		names, err := graphtest.Generate(ctx, st, 20_000)
		if err != nil {
			b.Fatal(err)
		}
		var rewrite []*graph.Edge
		i := 0
		_ = st.EachEdge(ctx, func(e *graph.Edge) error {
			if i++; i%10 == 0 && e.Confidence < 1 {
				c := *e
				c.Confidence = 1
				rewrite = append(rewrite, &c)
			}
			return nil
		})
		for k := 0; k < len(rewrite); k += 500 {
			if _, err := st.ApplyGraph(ctx, &graph.Batch{Edges: rewrite[k:min(k+500, len(rewrite))], Now: 2e15}); err != nil {
				b.Fatal(err)
			}
		}
		if a, ok := st.(interface{ Analyze(context.Context) error }); ok {
			if err := a.Analyze(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.Logf("%s: loaded %d relations in %s", kind, i, time.Since(t0).Round(time.Millisecond))
		tg, err := stores.Parse(spec, b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		t0 = time.Now()
		loadNotes(b, tg, 100_000)
		b.Logf("%s: loaded 100,000 notes in %s", kind, time.Since(t0).Round(time.Millisecond))
		b.Run(fmt.Sprintf("store=%s/asof", kind), func(b *testing.B) {
			tl := &graph.Tools{Store: st}
			r := rand.New(rand.NewPCG(3, 4))
			var now, asOf []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				q := "What does " + names[r.IntN(len(names))] + " depend on?"
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
			p50 := func(d []time.Duration) time.Duration {
				sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
				return d[len(d)/2]
			}
			n, a := p50(now), p50(asOf)
			b.ReportMetric(float64(n.Microseconds())/1000, "now-p50-ms")
			b.ReportMetric(float64(a.Microseconds())/1000, "asof-p50-ms")
			b.ReportMetric(float64(a)/float64(n), "asof/now")
		})
		b.Run(fmt.Sprintf("store=%s/summary", kind), func(b *testing.B) {
			var durs, opens, graphs []time.Duration
			for i := 0; i < b.N; i++ {
				// As `retrieve graph summary` opens them: the store, the
				// graph on its connections, the memory index on them
				// where the backend shares them (PostgreSQL).
				t0 := time.Now()
				ls, err := stores.Open(ctx, tg, stores.Options{})
				if err != nil {
					b.Fatal(err)
				}
				gs, err := stores.OpenGraph(ctx, tg, ls)
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				s, err := (&graph.Tools{Store: gs}).Summary(ctx, "", 10)
				opens, graphs = append(opens, t1.Sub(t0)), append(graphs, time.Since(t1))
				if err != nil || s.Edges < 90_000 || len(s.MostConnected) != 10 {
					b.Fatalf("summary: %+v, %v", s, err)
				}
				// The notes' part: the memory index's counts (memory_counts).
				idx, err := stores.OpenMemoryIndex(ctx, tg, ls)
				if err != nil {
					b.Fatal(err)
				}
				c, err := idx.MemoryCounts(ctx, "memory")
				_, _, _ = idx.Close(), gs.Close(), ls.Close()
				durs = append(durs, time.Since(t0))
				if err != nil || c.Notes != 100_000 || len(c.ByTier) != 3 {
					b.Fatalf("notes' counts: %+v, %v", c, err)
				}
			}
			for _, d := range [][]time.Duration{durs, opens, graphs} {
				sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
			}
			b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(durs[len(durs)*95/100].Microseconds())/1000, "p95-ms")
			b.ReportMetric(float64(opens[len(opens)/2].Microseconds())/1000, "open-p50-ms")
			b.ReportMetric(float64(graphs[len(graphs)/2].Microseconds())/1000, "graph-p50-ms")
		})
		done()
	}
}

// loadNotes writes n notes (three tiers, 50 tags) into the memory index of
// tg, 1,000 a batch, as a bulk load where the store has one.
func loadNotes(b *testing.B, tg stores.Target, n int) {
	ctx := context.Background()
	idx, err := stores.OpenMemoryIndex(ctx, tg, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer idx.Close()
	if bulk, ok := idx.(memory.BulkIndex); ok {
		if err := bulk.BeginBulk(ctx); err != nil {
			b.Fatal(err)
		}
		defer func() { _ = bulk.EndBulk(ctx) }()
	}
	tiers := []string{"semantic", "episodic", "procedural"}
	for k := 0; k < n; k += 1000 {
		notes := make([]memory.IndexNote, 0, 1000)
		for i := k; i < min(k+1000, n); i++ {
			notes = append(notes, memory.IndexNote{Path: fmt.Sprintf("%s/note-%06d.md", tiers[i%3], i), Tier: tiers[i%3], ID: fmt.Sprint(i),
				Title: fmt.Sprintf("Note %d", i), Tags: []string{fmt.Sprintf("t%02d", i%50), fmt.Sprintf("t%02d", (i/50)%50)}, Body: fmt.Sprintf("Note %d.", i)})
		}
		if err := idx.MemoryUpsert(ctx, "memory", notes); err != nil {
			b.Fatal(err)
		}
	}
}
