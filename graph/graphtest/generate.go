package graphtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/retrieve-dev/retrieve/graph"
)

// Vocab returns n distinct three-syllable words: with n/2 words, each word
// is in about four of the n two-word names at every graph size, so a query
// does the same work (a few seeds, then BFS to 50 nodes) at 10k and 50k.
func Vocab(n int) []string {
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

// Generate writes the benchmark graph of n entities and about 5n relations
// into st (the generator of store/sqlite's benchmarks, for any store):
// names of two words from an n/2-word vocabulary, one document per 20
// entities whose text states every relation, random edges with confidence
// 0.5–1.0. It returns the entity names.
func Generate(ctx context.Context, st graph.Store, n int) ([]string, error) {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	words := Vocab(n / 2)
	seen := map[string]bool{}
	var names []string
	for len(names) < n {
		nm := words[r.IntN(len(words))] + " " + words[r.IntN(len(words))]
		if !seen[nm] {
			seen[nm] = true
			names = append(names, nm)
		}
	}
	const perDoc = 20
	var pending []*graph.Edge
	for d := 0; d*perDoc < n; d++ {
		docID := fmt.Sprintf("gen_%06d", d)
		var nodes []*graph.Node
		var edges []*graph.Edge
		var text strings.Builder
		for i := d * perDoc; i < min(n, (d+1)*perDoc); i++ {
			nodes = append(nodes, &graph.Node{ID: graph.NodeID(names[i]), Name: names[i], Type: "component", SourceDocument: graph.NullString(docID), SourceChunks: []string{}})
		}
		for k := 0; k < 5*perDoc; k++ {
			if d*perDoc+k%perDoc >= n {
				continue
			}
			src := names[d*perDoc+k%perDoc]
			tgt := names[r.IntN(len(names))]
			if tgt == src {
				continue
			}
			text.WriteString(src + " uses " + tgt + ". ")
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
		if _, err := st.ApplyGraph(ctx, &graph.Batch{Document: doc, Nodes: nodes}); err != nil {
			return nil, err
		}
		// Edges can point at entities of later documents: write them all at the end.
		pending = append(pending, edges...)
	}
	for i := 0; i < len(pending); i += 5000 {
		if _, err := st.ApplyGraph(ctx, &graph.Batch{Edges: pending[i:min(i+5000, len(pending))], CountNewTypes: true}); err != nil {
			return nil, err
		}
	}
	return names, nil
}
