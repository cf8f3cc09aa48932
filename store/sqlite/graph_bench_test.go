package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// benchGraph is a generated graph of n entities and 5n relations: names of
// two words from an n/2-word vocabulary, random edges with confidence
// 0.5–1.0, each with a chunk of the document that holds its supporting text.
type benchGraph struct {
	g     *sqlite.Graph
	names []string
}

var (
	benchMu     sync.Mutex
	benchGraphs = map[int]*benchGraph{}
	benchDir    string
)

// vocab returns n distinct three-syllable words: with n/2 words, each word
// is in about four of the n two-word names at every graph size, so a query
// does the same work (a few seeds, then BFS to 50 nodes) at 10k and 50k.
func vocab(n int) []string {
	r := rand.New(rand.NewPCG(1, 2))
	letters := "bcdfghjklmnprstvz"
	vowels := "aeiou"
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		var b strings.Builder
		for i := 0; i < 3; i++ {
			b.WriteByte(letters[r.IntN(len(letters))])
			b.WriteByte(vowels[r.IntN(len(vowels))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func getBenchGraph(b *testing.B, n int) *benchGraph {
	benchMu.Lock()
	defer benchMu.Unlock()
	if bg, ok := benchGraphs[n]; ok {
		return bg
	}
	if benchDir == "" {
		benchDir = b.TempDir()
	}
	ctx := context.Background()
	g, err := sqlite.OpenGraphFile(ctx, filepath.Join(benchDir, fmt.Sprintf("g%d.db", n)))
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(uint64(n), 7))
	words := vocab(n / 2)
	seen := map[string]bool{}
	var names []string
	for len(names) < n {
		nm := words[r.IntN(len(words))] + " " + words[r.IntN(len(words))]
		if !seen[nm] {
			seen[nm] = true
			names = append(names, nm)
		}
	}
	// One document per 20 entities; its text states every relation.
	const perDoc = 20
	for d := 0; d*perDoc < n; d++ {
		docID := fmt.Sprintf("gen_%06d", d)
		var nodes []*graph.Node
		var edges []*graph.Edge
		var text strings.Builder
		for i := d * perDoc; i < min(n, (d+1)*perDoc); i++ {
			nodes = append(nodes, &graph.Node{ID: graph.NodeID(names[i]), Name: names[i], Type: "component", SourceDocument: graph.NullString(docID), SourceChunks: []string{}})
		}
		for k := 0; k < 5*perDoc; k++ {
			src := names[d*perDoc+k%perDoc]
			tgt := names[r.IntN(len(names))]
			if tgt == src {
				continue
			}
			if len(names) > 0 && d*perDoc+k%perDoc >= n {
				continue
			}
			sentence := src + " uses " + tgt + ". "
			text.WriteString(sentence)
			edges = append(edges, &graph.Edge{Source: graph.NodeID(src), Target: graph.NodeID(tgt), Type: "uses",
				Confidence: 0.5 + float64(r.IntN(6))/10, SourceDocument: graph.NullString(docID), SupportingText: graph.NullString(src + " uses " + tgt)})
		}
		doc := &graph.Document{ID: docID, Title: docID, Content: text.String(), IngestionDate: "2026-01-01T00:00:00+00:00"}
		doc.Chunks = graph.ChunkText(docID, doc.Content)
		for _, e := range edges {
			for _, c := range doc.Chunks {
				if strings.Contains(c.Text, string(e.SupportingText)) {
					e.ChunkID = graph.NullString(c.ChunkID)
					break
				}
			}
		}
		if _, err := g.ApplyGraph(ctx, &graph.Batch{Document: doc, Nodes: nodes}); err != nil {
			b.Fatal(err)
		}
		// Edges can point at entities of later documents: write them all at the end.
		pendingEdges = append(pendingEdges, edges...)
	}
	for i := 0; i < len(pendingEdges); i += 5000 {
		if _, err := g.ApplyGraph(ctx, &graph.Batch{Edges: pendingEdges[i:min(i+5000, len(pendingEdges))], CountNewTypes: true}); err != nil {
			b.Fatal(err)
		}
	}
	pendingEdges = nil
	bg := &benchGraph{g: g, names: names}
	benchGraphs[n] = bg
	return bg
}

var pendingEdges []*graph.Edge

func reportPercentiles(b *testing.B, durs []time.Duration) {
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	if len(durs) == 0 {
		return
	}
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(durs[len(durs)*95/100].Microseconds())/1000, "p95-ms")
}

// cpuTime is the process's user+system CPU time: on a shared, loaded
// machine it is a steadier measure than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchSizes(b *testing.B, fn func(b *testing.B, bg *benchGraph)) {
	for _, n := range []int{10_000, 50_000} {
		b.Run(fmt.Sprintf("entities=%d", n), func(b *testing.B) {
			bg := getBenchGraph(b, n)
			b.ResetTimer()
			c0 := cpuTime()
			fn(b, bg)
			b.ReportMetric(float64((cpuTime()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkGraphQuery is `retrieve graph query`: seeds, BFS depth 2, 50 nodes.
func BenchmarkGraphQuery(b *testing.B) {
	benchSizes(b, func(b *testing.B, bg *benchGraph) {
		tl := &graph.Tools{Store: bg.g}
		r := rand.New(rand.NewPCG(3, 4))
		var durs []time.Duration
		for i := 0; i < b.N; i++ {
			q := "What does " + bg.names[r.IntN(len(bg.names))] + " depend on?"
			t0 := time.Now()
			if _, err := tl.Query(context.Background(), graph.QueryInput{Query: q}); err != nil {
				b.Fatal(err)
			}
			durs = append(durs, time.Since(t0))
		}
		reportPercentiles(b, durs)
	})
}

// BenchmarkGraphEvidence is `retrieve graph evidence`.
func BenchmarkGraphEvidence(b *testing.B) {
	benchSizes(b, func(b *testing.B, bg *benchGraph) {
		tl := &graph.Tools{Store: bg.g}
		r := rand.New(rand.NewPCG(5, 6))
		var durs []time.Duration
		for i := 0; i < b.N; i++ {
			q := "Why does " + bg.names[r.IntN(len(bg.names))] + " fail?"
			t0 := time.Now()
			if _, err := tl.Evidence(context.Background(), graph.QueryInput{Query: q}); err != nil {
				b.Fatal(err)
			}
			durs = append(durs, time.Since(t0))
		}
		reportPercentiles(b, durs)
	})
}

// BenchmarkGraphEdgeWrite is one edge write (its own transaction).
func BenchmarkGraphEdgeWrite(b *testing.B) {
	benchSizes(b, func(b *testing.B, bg *benchGraph) {
		r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 8))
		for i := 0; i < b.N; i++ {
			e := &graph.Edge{Source: graph.NodeID(bg.names[r.IntN(len(bg.names))]), Target: graph.NodeID(bg.names[r.IntN(len(bg.names))]),
				Type: fmt.Sprintf("bench %d", r.IntN(1<<30)), Confidence: 0.9, SourceDocument: "gen_000000", SupportingText: "x", ChunkID: "gen_000000_chunk_000"}
			if _, err := bg.g.ApplyGraph(context.Background(), &graph.Batch{Edges: []*graph.Edge{e}, CountNewTypes: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkGraphIngest is `retrieve graph ingest` of a document with 20
// entities and 20 relations; reports documents per second.
func BenchmarkGraphIngest(b *testing.B) {
	benchSizes(b, func(b *testing.B, bg *benchGraph) {
		tl := &graph.Tools{Store: bg.g}
		r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 9))
		start := time.Now()
		for i := 0; i < b.N; i++ {
			var text strings.Builder
			x := graph.Extraction{}
			for k := 0; k < 20; k++ {
				nm := fmt.Sprintf("ingested %d %d", r.IntN(1<<30), k)
				x.Entities = append(x.Entities, graph.ExtractedEntity{Name: nm, Type: "component", SupportingText: nm})
				other := bg.names[r.IntN(len(bg.names))]
				if k > 0 {
					other = x.Entities[k-1].Name
				}
				fmt.Fprintf(&text, "%s feeds %s. ", nm, other)
				if k > 0 {
					x.Relations = append(x.Relations, graph.ExtractedRelation{Source: nm, Target: other, Type: "feeds", Confidence: 0.8, SupportingText: nm + " feeds " + other})
				}
			}
			if _, err := tl.Ingest(context.Background(), graph.IngestInput{DocID: fmt.Sprintf("bench_%d_%d", r.IntN(1<<30), i), Title: "b", Content: text.String(), Extraction: x}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "docs/s")
	})
}
