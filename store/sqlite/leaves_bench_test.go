package sqlite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/sqlite"
	"golang.org/x/mod/sumdb/tlog"
)

// BenchmarkAudit1M audits a log of 1,000,000 entries (issue 29: ≤ 30 s on
// the 2-core machine): every entry read and its leaf recomputed, the tree
// built, the root compared with a checkpoint. The store is built once in
// a temporary folder (entries of a recorded small read's size, about 1 KB
// of request and result), which takes a minute or two; skipped under
// -short.
func BenchmarkAudit1M(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a store of 1,000,000 entries")
	}
	const n, batch = 1_000_000, 10_000
	ctx := context.Background()
	s, err := sqlite.OpenStore(ctx, filepath.Join(b.TempDir(), "retrieve.db"))
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
			res := json.RawMessage(fmt.Sprintf(`{"retrieved":{"target":"docs/guide%d.md","format":"markdown","data":null},`+
				`"citation":{"reference":"docs/guide%d.md:10-20","hash":"sha256:%064x","source_hash":"sha256:%064x","version":"git:0123456789abcdef0123456789abcdef01234567"},`+
				`"provenance":{"source_type":"file","retrieved_at":"2026-01-01T00:00:00Z","freshness":"fresh"},"extraction":{"applied_filters":["lines=10-20"]},`+
				`"assumptions":[],"confidence":1,"notes":"a recorded small read of about one kilobyte, as the ledger keeps them when the snapshot holds the data"}`, k, k, k, k))
			es[j] = &store.Entry{ID: retrieve.NewID(), Time: t0.Add(time.Duration(k) * time.Millisecond), Op: "get",
				Target: fmt.Sprintf("docs/guide%d.md", k), Source: "file", Reference: fmt.Sprintf("docs/guide%d.md:10-20", k),
				Hash: fmt.Sprintf("sha256:%064x", k), SourceHash: fmt.Sprintf("sha256:%064x", k), Snapshot: fmt.Sprintf("sha256:%064x", k),
				Status: store.StatusOK, Duration: time.Millisecond, Request: req, Result: res, DataInSnapshot: true}
		}
		if _, err := s.ImportEntries(ctx, es); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("built %d entries in %s", n, time.Since(built).Round(time.Second))
	leaves, err := s.Leaves(ctx)
	if err != nil {
		b.Fatal(err)
	}
	hashes := make([]tlog.Hash, len(leaves))
	for i, l := range leaves {
		hashes[i] = l.Hash
	}
	tree, err := ledger.NewTree(hashes)
	if err != nil {
		b.Fatal(err)
	}
	root, err := tree.Root(n)
	if err != nil {
		b.Fatal(err)
	}
	last := &ledger.Checkpoint{Origin: "bench", Size: n, Root: root, Time: time.Now()}
	var before, after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	b.ResetTimer()
	for b.Loop() {
		rep, err := ledger.AuditLog(ctx, s, last)
		if err != nil {
			b.Fatal(err)
		}
		if !rep.Consistent || rep.Size != n {
			b.Fatalf("audit: consistent %v, size %d, %d findings", rep.Consistent, rep.Size, len(rep.Findings))
		}
	}
	b.StopTimer()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano()+after.Stime.Nano()-before.Utime.Nano()-before.Stime.Nano()) * time.Nanosecond
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/audit")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/audit")
}
