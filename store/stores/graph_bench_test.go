package stores_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/graph/graphtest"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/store/postgres"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// BenchmarkGraphQueryStores is `retrieve graph query` (seeds, BFS depth 2,
// 50 nodes) on the generated graph of graphtest.Generate, on SQLite and on
// PostgreSQL side by side; p50/p95 per query. The PostgreSQL graph is
// loaded once per size (it takes a while on a loaded machine).
func BenchmarkGraphQueryStores(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{50_000} {
		for _, kind := range []string{"sqlite", "postgres"} {
			// Opened and loaded once: the sub-benchmark runs again for each b.N.
			var st graph.Store
			analyze := func() {}
			switch kind {
			case "sqlite":
				g, err := sqlite.OpenGraphFile(ctx, filepath.Join(b.TempDir(), "g.db"))
				if err != nil {
					b.Fatal(err)
				}
				defer g.Close()
				st = g
			default:
				u := pgtest.URL(b, "pggraph_bench")
				g, err := postgres.OpenGraph(ctx, u)
				if err != nil {
					b.Fatal(err)
				}
				defer g.Close()
				st = g
				// After the load, the statistics autovacuum would gather.
				analyze = func() {
					s, err := postgres.OpenStore(ctx, u)
					if err != nil {
						b.Fatal(err)
					}
					defer s.Close()
					if _, err := s.Pool().Exec(ctx, "VACUUM ANALYZE"); err != nil {
						b.Fatal(err)
					}
				}
			}
			var names []string
			b.Run(fmt.Sprintf("store=%s/entities=%d", kind, n), func(b *testing.B) {
				if names == nil {
					t0 := time.Now()
					var err error
					if names, err = graphtest.Generate(ctx, st, n); err != nil {
						b.Fatal(err)
					}
					b.Logf("%s: loaded %d entities in %s", kind, n, time.Since(t0).Round(time.Millisecond))
					analyze()
				}
				tl := &graph.Tools{Store: st}
				r := rand.New(rand.NewPCG(3, 4))
				var durs []time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					q := "What does " + names[r.IntN(len(names))] + " depend on?"
					s := time.Now()
					if _, err := tl.Query(ctx, graph.QueryInput{Query: q}); err != nil {
						b.Fatal(err)
					}
					durs = append(durs, time.Since(s))
				}
				sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
				b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(durs[len(durs)*95/100].Microseconds())/1000, "p95-ms")
			})
		}
	}
}
