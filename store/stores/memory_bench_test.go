package stores_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/stores"
)

var benchWords = []string{"postgres", "replica", "ledger", "citation", "snapshot", "deploy", "outage", "pool", "index", "graph",
	"memory", "verify", "quote", "schema", "migration", "backup", "timeout", "cluster", "token", "server"}

// BenchmarkMemoryOverview measures `memory overview` at 10,000 notes with
// the index in SQLite and in PostgreSQL; it reports the p50 latency.
func BenchmarkMemoryOverview(b *testing.B) {
	root := b.TempDir()
	for i := range 10000 {
		tier := []string{"semantic", "episodic", "procedural"}[i%3]
		dir := filepath.Join(root, "memory", tier)
		_ = os.MkdirAll(dir, 0o755)
		w1, w2, w3 := benchWords[i%20], benchWords[(i/20)%20], benchWords[(i/400)%20]
		note := fmt.Sprintf("---\ntitle: \"%s %s note %d\"\nmemory_type: %s\ntags: [\"%s\"]\n---\n\n# %s %s\n\nThis note %d is about %s, %s and %s. It says more about %s.\n",
			w1, w2, i, tier, w3, w1, w2, i, w1, w2, w3, w1)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("note-%05d.md", i)), []byte(note), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, kind := range []string{stores.KindSQLite, stores.KindPostgres} {
		b.Run(kind, func(b *testing.B) {
			spec := filepath.Join(b.TempDir(), "bench.db")
			if kind == stores.KindPostgres {
				spec = pgtest.URL(b, "postgres_membench")
			}
			tg, _ := stores.Parse(spec, root)
			idx, err := stores.OpenMemoryIndex(context.Background(), tg, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer idx.Close()
			svc, err := memory.New(memory.Options{Root: root, Dir: "memory", Index: idx})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if _, _, err := svc.Overview(ctx, memory.OverviewInput{Target: "postgres replica"}); err != nil { // indexes the 10,000 notes
				b.Fatal(err)
			}
			var ds []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				q := benchWords[i%20] + " " + benchWords[(i*7)%20]
				start := time.Now()
				out, _, err := svc.Overview(ctx, memory.OverviewInput{Target: q})
				ds = append(ds, time.Since(start))
				if err != nil || out == nil {
					b.Fatal(err)
				}
			}
			sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
			b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
		})
	}
}

// BenchmarkMemoryReindex measures `memory reindex` of BENCH_NOTES notes of
// ~4 KB (default 10,000; the figure is 100,000) into SQLite and
// into PostgreSQL, one after the other in the same run. Metrics: s/index
// (wall), cpu-s (user+system of this process: the parsing, the analysis
// and, for SQLite, the store) and cores (cpu-s ÷ s: how much of the
// machine the indexing uses; PostgreSQL's own work is in its server
// processes, not in it).
func BenchmarkMemoryReindex(b *testing.B) {
	n := 10000
	if v := os.Getenv("BENCH_NOTES"); v != "" {
		fmt.Sscan(v, &n)
	}
	root := b.TempDir()
	words := make([]string, 0, 5000)
	for i := 0; len(words) < 5000; i++ {
		words = append(words, fmt.Sprintf("w%x", i*2654435761%1000003))
	}
	var buf []byte
	for i := range n {
		tier := []string{"semantic", "episodic", "procedural"}[i%3]
		dir := filepath.Join(root, "memory", tier)
		_ = os.MkdirAll(dir, 0o755)
		buf = fmt.Appendf(buf[:0], "---\ntitle: \"%s %s\"\nmemory_type: %s\ntags: [\"%s\"]\n---\n\n", words[i%5000], words[(i*7)%5000], tier, words[i%50])
		for j := 0; len(buf) < 4000; j++ {
			buf = append(buf, words[(i*31+j*17)%5000]...)
			buf = append(buf, ' ')
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("note-%06d.md", i)), buf, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, kind := range []string{stores.KindSQLite, stores.KindPostgres} {
		b.Run(kind, func(b *testing.B) {
			spec := filepath.Join(b.TempDir(), "bench.db")
			if kind == stores.KindPostgres {
				spec = pgtest.URL(b, "postgres_reindexbench")
			}
			tg, _ := stores.Parse(spec, root)
			ctx := context.Background()
			idx, err := stores.OpenMemoryIndex(ctx, tg, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer idx.Close()
			svc, err := memory.New(memory.Options{Root: root, Dir: "memory", Index: idx})
			if err != nil {
				b.Fatal(err)
			}
			var wall, cpu time.Duration
			for b.Loop() {
				t0, c0 := time.Now(), processCPU()
				out, err := svc.Reindex(ctx, memory.ReindexInput{})
				wall += time.Since(t0)
				cpu += processCPU() - c0
				if err != nil || out.Notes != n {
					b.Fatal(err, out)
				}
			}
			b.ReportMetric(wall.Seconds()/float64(b.N), "s/index")
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s")
			b.ReportMetric(float64(cpu)/float64(wall), "cores")
			// The index answers: a word of one note's title.
			hits, err := memory.SearchIndex(ctx, idx, memory.IndexQuery{Dir: "memory", Limit: 5}, words[(7*7)%5000])
			if err != nil || len(hits) == 0 {
				b.Fatal("the reindexed notes are not found", err)
			}
		})
	}
}
