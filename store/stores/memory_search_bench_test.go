package stores_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/stores"
)

// searchKinds are the four query kinds of issue 31.5: a word in every
// note, in 5% of them, in 0.1%, and five words of ~7% each (no note holds
// all five: the query plan falls to any of them, ~30% of the notes).
var searchKinds = []struct{ name, query string }{
	{"every", "canary"},
	{"5pct", "failover"},
	{"0.1pct", "rehearsal"},
	{"mix5", "kalomi nesuta lovori mipezu subado"},
}

// searchBenchNotes writes n notes of ~1 KB (words of a 2,000-word
// vocabulary, each in ~7% of the notes; "canary" in every note,
// "failover" in one of 20, "rehearsal" in one of 1,000) into idx, as the
// indexer does: batches of 1,000 between BeginBulk and EndBulk.
func searchBenchNotes(tb testing.TB, idx memory.Index, n int) {
	tb.Helper()
	syl := []string{"ka", "lo", "mi", "ne", "su", "ta", "vo", "ri", "pe", "zu", "ba", "do", "fi", "gu", "he", "jo", "wa", "xe", "yi", "qo"}
	var vocab []string
	for _, a := range syl {
		for _, b := range syl {
			for _, c := range syl {
				if len(vocab) < 2000 {
					vocab = append(vocab, a+b+c)
				}
			}
		}
	}
	ctx := context.Background()
	if bi, ok := idx.(memory.BulkIndex); ok {
		if err := bi.BeginBulk(ctx); err != nil {
			tb.Fatal(err)
		}
		defer bi.EndBulk(ctx)
	}
	r := rand.New(rand.NewPCG(3, 4))
	batch := make([]memory.IndexNote, 0, 1000)
	var b strings.Builder
	for i := range n {
		tier := memory.Tiers[i%3]
		b.Reset()
		for b.Len() < 1000 {
			for range 12 {
				b.WriteString(vocab[r.IntN(len(vocab))])
				b.WriteByte(' ')
			}
			b.WriteString(".\n")
		}
		b.WriteString("The canary stayed green.\n")
		if i%20 == 3 {
			b.WriteString("The failover drill passed.\n")
		}
		if i%1000 == 7 {
			b.WriteString("A restore rehearsal is due.\n")
		}
		batch = append(batch, memory.IndexNote{
			Path: fmt.Sprintf("%s/note-%06d.md", tier, i), Tier: tier, ID: fmt.Sprintf("n%06d", i),
			Title: vocab[r.IntN(len(vocab))] + " " + vocab[r.IntN(len(vocab))], Tags: []string{vocab[r.IntN(50)]},
			Body: b.String(), Size: int64(b.Len()), ModTime: 1, Hash: fmt.Sprint(i),
		})
		if len(batch) == cap(batch) || i == n-1 {
			if err := idx.MemoryUpsert(ctx, "memory", batch); err != nil {
				tb.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}

// BenchmarkMemorySearchKinds measures the index's answer to
// extract_overview's query (memory.SearchIndex, the limit the tool asks
// for: 60) at BENCH_NOTES notes (default 100,000; 2,000 with -short) for
// the four query kinds, SQLite then PostgreSQL (when
// RETRIEVE_TEST_POSTGRES is set). Each sub-benchmark runs its queries
// after one warm-up query; metrics: p50-ms, p95-ms and cpu-ms/query (this
// process's user+system: PostgreSQL's work is in its server). The load
// average is logged. RETRIEVE_BENCH_SQLITE names a store file to reuse
// between runs (built when missing), RETRIEVE_BENCH_POSTGRES a
// PostgreSQL URL (a database of your own: it is not dropped).
//
//	go test ./store/stores -run XXX -bench MemorySearchKinds -benchtime 100x
func BenchmarkMemorySearchKinds(b *testing.B) {
	n := 100000
	if testing.Short() {
		n = 2000
	}
	if v := os.Getenv("BENCH_NOTES"); v != "" {
		fmt.Sscan(v, &n)
	}
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		b.Logf("load average: %s", strings.TrimSpace(string(la)))
	}
	ctx := context.Background()
	for _, kind := range []string{stores.KindSQLite, stores.KindPostgres} {
		if kind == stores.KindPostgres && os.Getenv(pgtest.Env) == "" {
			continue
		}
		b.Run(kind, func(b *testing.B) {
			spec := filepath.Join(b.TempDir(), "bench.db")
			cached := os.Getenv("RETRIEVE_BENCH_SQLITE")
			if kind == stores.KindSQLite && cached != "" {
				spec = cached
			}
			if kind == stores.KindPostgres {
				spec = os.Getenv("RETRIEVE_BENCH_POSTGRES")
				if spec == "" {
					spec = pgtest.URL(b, "postgres_searchbench")
				}
			}
			tg, _ := stores.Parse(spec, b.TempDir())
			idx, err := stores.OpenMemoryIndex(ctx, tg, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer idx.Close()
			if c, ok := idx.(memory.IndexCounter); !ok || mustCount(b, c) != n {
				if err := idx.MemoryReset(ctx, "memory"); err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				searchBenchNotes(b, idx, n)
				b.Logf("%s: %d notes indexed in %s", kind, n, time.Since(t0).Round(time.Millisecond))
			}
			for _, k := range searchKinds {
				b.Run(k.name, func(b *testing.B) {
					base := memory.IndexQuery{Dir: "memory", Limit: 60}
					if hits, err := memory.SearchIndex(ctx, idx, base, k.query); err != nil || len(hits) == 0 {
						b.Fatal(err, len(hits))
					}
					var lat []time.Duration
					c0 := processCPU()
					for b.Loop() {
						t0 := time.Now()
						hits, err := memory.SearchIndex(ctx, idx, base, k.query)
						lat = append(lat, time.Since(t0))
						if err != nil || len(hits) == 0 {
							b.Fatal(err, len(hits))
						}
					}
					b.ReportMetric(msOf(quantile(lat, 0.5)), "p50-ms")
					b.ReportMetric(msOf(quantile(lat, 0.95)), "p95-ms")
					b.ReportMetric(msOf(processCPU()-c0)/float64(len(lat)), "cpu-ms/query")
				})
			}
		})
	}
}

func mustCount(tb testing.TB, c memory.IndexCounter) int {
	n, err := c.MemoryCount(context.Background(), "memory")
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

func quantile(d []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), d...)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
