package ops_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/graph/graphtest"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/store/sqlite"
	"github.com/retrieve-dev/retrieve/workspace"
)

// BenchmarkGraphSummary100k is graph_summary on 100,000 notes (three
// tiers, 50 tags) and 100,000 relations (20,000 entities): the graph part
// reads the aggregates the store keeps, the notes part the cached memory
// listing (no memory index). Reports the first (cold: every note parsed
// once) call apart and the warm calls' median (target ≤ 50 ms).
func BenchmarkGraphSummary100k(b *testing.B) {
	ctx := context.Background()
	fs, tl, notes := summaryBenchWorkspace(b)
	svc, err := memory.New(memory.Options{FS: fs})
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	out, err := ops.Summarize(ctx, tl, svc, ops.SummaryInput{})
	if err != nil {
		b.Fatal(err)
	}
	cold := time.Since(t0)
	if out.Notes == nil || out.Notes.Notes != notes || out.Graph.Edges < 90_000 {
		b.Fatalf("summary: %+v %+v", out.Notes, out.Graph.SummaryCounts)
	}
	b.ResetTimer()
	var durs []time.Duration
	for i := 0; i < b.N; i++ {
		t1 := time.Now()
		if _, err := ops.Summarize(ctx, tl, svc, ops.SummaryInput{}); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(t1))
	}
	b.ReportMetric(float64(cold.Milliseconds()), "cold-ms")
	reportDurations(b, durs)
}

// BenchmarkGraphSummary100kIndexed is graph_summary as a new process runs
// it (a CLI run) when the memory index is current: each iteration opens
// the graph store and the index file and a new memory service (a CLI's,
// each an hour after the last run and full check: it goes on from that check, as
// `retrieve graph summary` does, with a stat of the tier folders) and counts
// the notes from the index's counts (memory.Service.Counts, memory_counts).
// The index is built once, before the timer. Target ≤ 50 ms at 100,000
// notes and 100,000 edges.
func BenchmarkGraphSummary100kIndexed(b *testing.B) {
	ctx := context.Background()
	fs, tl, notes := summaryBenchWorkspace(b)
	graphPath := tl.Store.(*benchGraph).path
	dbPath := filepath.Join(b.TempDir(), "memory.db")
	checkFile := filepath.Join(b.TempDir(), "check.json")
	var later time.Duration
	open := func() (*memory.Service, func()) {
		idx, err := sqlite.OpenMemoryIndex(ctx, dbPath)
		if err != nil {
			b.Fatal(err)
		}
		now := func() time.Time { return time.Now().Add(later) }
		svc, err := memory.New(memory.Options{FS: fs, Index: idx, CheckFile: checkFile, FullCheckInterval: 10 * time.Second, Now: now})
		if err != nil {
			b.Fatal(err)
		}
		return svc, func() { _ = idx.Close() }
	}
	svc, done := open()
	t0 := time.Now()
	if _, err := svc.Reindex(ctx, memory.ReindexInput{}); err != nil {
		b.Fatal(err)
	}
	if _, err := svc.Refresh(ctx, nil); err != nil { // records the full check
		b.Fatal(err)
	}
	indexed := time.Since(t0)
	done()
	b.ResetTimer()
	var durs []time.Duration
	for i := 0; i < b.N; i++ {
		later += time.Hour // each run an hour after the last (and any full check)
		t1 := time.Now()
		svc, done := open()
		g, err := sqlite.OpenGraphFile(ctx, graphPath)
		if err != nil {
			b.Fatal(err)
		}
		out, err := ops.Summarize(ctx, &graph.Tools{Store: g}, svc, ops.SummaryInput{})
		done()
		_ = g.Close()
		durs = append(durs, time.Since(t1))
		if err != nil || out.Notes == nil || out.Notes.Notes != notes || len(out.Notes.ByTier) != 3 {
			b.Fatalf("summary: %v %+v", err, out.Notes)
		}
	}
	b.ReportMetric(float64(indexed.Milliseconds()), "index-ms")
	reportDurations(b, durs)
}

func reportDurations(b *testing.B, durs []time.Duration) {
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(durs[len(durs)*95/100].Microseconds())/1000, "p95-ms")
}

// summaryBenchWorkspace writes 100,000 notes (three tiers, 50 tags;
// RETRIEVE_BENCH_NOTES for another count) and a graph of 100,000
// relations (20,000 entities).
func summaryBenchWorkspace(b *testing.B) (*workspace.FS, *graph.Tools, int) {
	ctx := context.Background()
	root := b.TempDir()
	tiers := []string{"semantic", "episodic", "procedural"}
	for _, tier := range tiers {
		if err := os.MkdirAll(filepath.Join(root, "memory", tier), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	notes := 100_000
	if n, err := strconv.Atoi(os.Getenv("RETRIEVE_BENCH_NOTES")); err == nil && n > 0 {
		notes = n
	}
	old := time.Now().Add(-time.Hour) // not racy: indexed once
	for i := range notes {
		tier := tiers[i%3]
		body := fmt.Sprintf("---\nmemory_entry_id: %s-20260101-%06d\ntitle: \"Note %d\"\nmemory_type: %s\ntags: [\"t%02d\", \"t%02d\"]\ncreated: \"2026-01-01T00:00:00Z\"\nupdated: \"2026-01-01T00:00:00Z\"\n---\n\nNote %d.\n",
			tier[:3], i, i, tier, i%50, (i/50)%50, i)
		p := filepath.Join(root, "memory", tier, fmt.Sprintf("note-%06d.md", i))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			b.Fatal(err)
		}
	}
	fs, err := file.OpenWorkspace(root, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = fs.Close() })
	path := filepath.Join(b.TempDir(), "g.db")
	g, err := sqlite.OpenGraphFile(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = g.Close() })
	if _, err := graphtest.Generate(ctx, g, 20_000); err != nil {
		b.Fatal(err)
	}
	return fs, &graph.Tools{Store: &benchGraph{g, path}}, notes
}

// benchGraph is the benchmark's graph store with the path of its file, to
// open it again as a new process does.
type benchGraph struct {
	*sqlite.Graph
	path string
}
