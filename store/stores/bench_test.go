package stores_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/stores"
)

// BenchmarkLedgerAppend measures ledger writes/s on SQLite and PostgreSQL
// with 1 and 2 replicas: each replica is its own store handle (its own
// pool), with 1 or 8 concurrent writers (requests) each writing serially.
func BenchmarkLedgerAppend(b *testing.B) {
	for _, kind := range []string{stores.KindSQLite, stores.KindSQLite + "+journal", stores.KindPostgres} {
		for _, replicas := range []int{1, 2} {
			for _, writers := range []int{1, 8} {
				benchAppend(b, kind, replicas, writers)
			}
		}
	}
}

// benchAppend runs one case; kind "sqlite+journal" is the SQLite store as
// `retrieve serve` opens it (stores.Options.Journal).
func benchAppend(b *testing.B, kind string, replicas, writers int) {
	b.Run(fmt.Sprintf("%s/replicas=%d/writers=%d", kind, replicas, writers), func(b *testing.B) {
		journal := kind == stores.KindSQLite+"+journal"
		var spec string
		if kind != stores.KindPostgres {
			spec = filepath.Join(b.TempDir(), "bench.db")
		} else {
			spec = pgtest.URL(b, "postgres_bench")
		}
		tg, err := stores.Parse(spec, b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		ss := make([]store.Store, replicas)
		for i := range ss {
			if ss[i], err = stores.Open(context.Background(), tg, stores.Options{Journal: journal}); err != nil {
				b.Fatal(err)
			}
			defer ss[i].Close()
		}
		result := json.RawMessage(`{"retrieved":{"target":"docs/guide.md"},"citation":{"reference":"docs/guide.md:10-20"}}`)
		b.ResetTimer()
		start := time.Now()
		var wg sync.WaitGroup
		for r, s := range ss {
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := r*writers + w; i < b.N; i += replicas * writers {
						e := &store.Entry{ID: retrieve.NewID(), Time: time.Now(), Op: "get", Target: "docs/guide.md", Source: "file",
							Reference: "docs/guide.md:10-20", Status: store.StatusOK, Request: json.RawMessage(`{}`), Result: result}
						if err := s.Append(context.Background(), e); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
		}
		wg.Wait()
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "writes/s")
	})
}
