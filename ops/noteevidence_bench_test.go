package ops_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// benchNotes is how many notes the evidence benchmarks write (the issue's
// figure, 10,000; RETRIEVE_BENCH_NOTES changes it).
func benchNotes() int {
	if n, err := strconv.Atoi(os.Getenv("RETRIEVE_BENCH_NOTES")); err == nil && n > 0 {
		return n
	}
	return 10_000
}

// writeEvidenceNotes writes n notes straight to disk (as a keeper would,
// without one fsync each), each with evidence from cite(i), and indexes
// them.
func writeEvidenceNotes(b testing.TB, env *opstest.Env, n int, cite func(i int) []memory.Evidence) {
	b.Helper()
	dir := filepath.Join(env.WS.Root, "memory", "semantic")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		note := memory.Note{ID: fmt.Sprintf("sem-20260301-%05d", i), Title: fmt.Sprintf("Note %d", i), Type: memory.Semantic,
			Created: "2026-03-01T00:00:00Z", Updated: "2026-03-01T00:00:00Z", Body: fmt.Sprintf("Fact %d about the canary.\n", i)}
		note.SetProvenance(memory.Provenance{Evidence: cite(i)})
		p := filepath.Join(dir, fmt.Sprintf("note-%05d.md", i))
		data, err := note.Render()
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
		// Written a while ago: a note changed within 2 s of being indexed
		// is read again by the next query (racy clean), which would be the
		// setup's cost, not the operation's.
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(p, old, old); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := env.Memory.Reindex(context.Background(), memory.ReindexInput{}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkMemoryVerify: `memory verify` of 10,000 notes with 3 citations
// each (target ≤ 10 s), the citations spans of 1,000 files recorded in the
// ledger (2,000 distinct: notes share their sources, as notes from one
// session do); 50 files changed, so ~5% of the notes turn stale with
// diffs. Each distinct citation is re-checked once, from its ledger entry
// (snapshot and hash cache reused).
func BenchmarkMemoryVerify(b *testing.B) {
	env := opstest.NewFull(b)
	ctx := context.Background()
	const files = 1000
	var ev []memory.Evidence
	for f := range files {
		env.WS.Write(fmt.Sprintf("src/f%04d.md", f), fmt.Sprintf("# File %d\n\nline one of %d\nline two of %d\nline three\n", f, f, f))
	}
	for f := range files {
		for _, span := range []string{"1-3", "4-5"} {
			res, err := env.Deps.Engine.Retrieve(ctx, retrieve.Request{Target: fmt.Sprintf("src/f%04d.md:%s", f, span)})
			if err != nil {
				b.Fatal(err)
			}
			ev = append(ev, memory.Evidence{Reference: res.Citation.Reference, RetrievalID: res.RetrievalID, Source: "file", Hash: *res.Citation.Hash})
		}
	}
	n := benchNotes()
	writeEvidenceNotes(b, env, n, func(i int) []memory.Evidence {
		return []memory.Evidence{ev[i%len(ev)], ev[(i*7+1)%len(ev)], ev[(i*13+2)%len(ev)]}
	})
	for f := 0; f < 50; f++ {
		env.WS.Write(fmt.Sprintf("src/f%04d.md", f*20), "# Changed\n\nnot the same\nat all\nnow\n")
	}
	b.ResetTimer()
	var out *memory.VerifyOutput
	for range b.N {
		var err error
		if out, err = env.Memory.Verify(ctx, memory.VerifyInput{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if out.Notes != n || out.Stale == 0 || out.Citations == 0 || out.Citations > len(ev) {
		b.Fatalf("verify: %d notes, %d citations, %d stale", out.Notes, out.Citations, out.Stale)
	}
	b.ReportMetric(float64(out.Stale), "stale-notes")
	b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N), "s/verify")
}

// BenchmarkMemoryForget: `memory forget --source` of a source behind
// 10,000 notes (target ≤ 5 s; run it with -benchtime 1x). Later iterations
// measure running it again (every note already forgotten: the resumed
// run's cost).
func BenchmarkMemoryForget(b *testing.B) {
	env := opstest.NewFull(b)
	ctx := context.Background()
	n := benchNotes()
	writeEvidenceNotes(b, env, n, func(i int) []memory.Evidence {
		return []memory.Evidence{{Reference: "docs/source.md:1-2", Hash: "sha256:" + strings.Repeat("0", 64)},
			{Reference: fmt.Sprintf("docs/other-%d.md:3", i%100), Hash: "sha256:" + strings.Repeat("1", 64)}}
	})
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		out, err := env.Memory.Forget(ctx, memory.ForgetInput{Source: "docs/source.md", By: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 && out.Marked != n || i > 0 && out.Already != n {
			b.Fatalf("run %d: forgot %d notes (%d already), want %d", i, out.Marked, out.Already, n)
		}
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/forget")
}
