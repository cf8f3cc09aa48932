package ops_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/graph/graphtest"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// BenchmarkGraphSummary100k is graph_summary on 100,000 notes (three
// tiers, 50 tags) and 100,000 relations (20,000 entities): the graph part
// reads the aggregates the store keeps, the notes part the cached memory
// listing. Reports the first (cold: every note parsed once) call apart
// and the warm calls' median (target ≤ 50 ms).
func BenchmarkGraphSummary100k(b *testing.B) {
	ctx := context.Background()
	root := b.TempDir()
	tiers := []string{"semantic", "episodic", "procedural"}
	for _, tier := range tiers {
		if err := os.MkdirAll(filepath.Join(root, "memory", tier), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	const notes = 100_000
	for i := range notes {
		tier := tiers[i%3]
		body := fmt.Sprintf("---\nmemory_entry_id: %s-20260101-%06d\ntitle: \"Note %d\"\nmemory_type: %s\ntags: [\"t%02d\", \"t%02d\"]\ncreated: \"2026-01-01T00:00:00Z\"\nupdated: \"2026-01-01T00:00:00Z\"\n---\n\nNote %d.\n",
			tier[:3], i, i, tier, i%50, (i/50)%50, i)
		if err := os.WriteFile(filepath.Join(root, "memory", tier, fmt.Sprintf("note-%06d.md", i)), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	fs, err := file.OpenWorkspace(root, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer fs.Close()
	svc, err := memory.New(memory.Options{FS: fs})
	if err != nil {
		b.Fatal(err)
	}
	g, err := sqlite.OpenGraphFile(ctx, filepath.Join(b.TempDir(), "g.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	if _, err := graphtest.Generate(ctx, g, 20_000); err != nil {
		b.Fatal(err)
	}
	tl := &graph.Tools{Store: g}
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
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	b.ReportMetric(float64(cold.Milliseconds()), "cold-ms")
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(durs[len(durs)*95/100].Microseconds())/1000, "p95-ms")
}
