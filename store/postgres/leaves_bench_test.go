package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/postgres"
)

// BenchmarkAuditPostgres100k audits a log of 100,000 entries on
// PostgreSQL (the repeatable-read scan of the leaves joined to their
// entries, the leaves recomputed, the root compared), beside
// store/sqlite's BenchmarkAudit1M; skipped under -short.
func BenchmarkAuditPostgres100k(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a store of 100,000 entries")
	}
	const n, batch = 100_000, 5_000
	ctx := context.Background()
	s, err := postgres.OpenStore(ctx, pgtest.URL(b, "postgres_audit"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	req := json.RawMessage(`{"target":"docs/guide.md","constraints":{"lines":"10-20"}}`)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	built := time.Now()
	for i := 0; i < n; i += batch {
		es := make([]*store.Entry, batch)
		for j := range es {
			k := i + j
			es[j] = &store.Entry{ID: retrieve.NewID(), Time: t0.Add(time.Duration(k) * time.Millisecond), Op: "get",
				Target: fmt.Sprintf("docs/guide%d.md", k), Source: "file", Reference: fmt.Sprintf("docs/guide%d.md:10-20", k),
				Hash: fmt.Sprintf("sha256:%064x", k), Snapshot: fmt.Sprintf("sha256:%064x", k), Status: store.StatusOK,
				Duration: time.Millisecond, Request: req, DataInSnapshot: true,
				Result: json.RawMessage(fmt.Sprintf(`{"citation":{"reference":"docs/guide%d.md:10-20","hash":"sha256:%064x"},"notes":"about one kilobyte: %0800d"}`, k, k, k))}
		}
		if _, err := s.ImportEntries(ctx, es); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("built %d entries in %s", n, time.Since(built).Round(time.Second))
	var before, after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	b.ResetTimer()
	for b.Loop() {
		rep, err := ledger.AuditLog(ctx, s, nil)
		if err != nil {
			b.Fatal(err)
		}
		if !rep.Consistent || rep.Size != n {
			b.Fatalf("audit: consistent %v, size %d, %d findings", rep.Consistent, rep.Size, len(rep.Findings))
		}
	}
	b.StopTimer()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/audit")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "client-cpu-s/audit")
}
