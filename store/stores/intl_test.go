package stores_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/langcorpus"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/stores"
)

// corpusNotes turns a generated corpus into index rows.
func corpusNotes(c *langcorpus.Corpus) []store.MemoryNote {
	notes := make([]store.MemoryNote, len(c.Notes))
	for i, n := range c.Notes {
		notes[i] = store.MemoryNote{Path: fmt.Sprintf("semantic/%s-%05d.md", n.Lang, i), Tier: "semantic", ID: fmt.Sprint(i),
			Title: n.Title, Tags: []string{n.Lang}, Body: n.Body, Hash: "h"}
	}
	return notes
}

// recallAt5 runs every query (every step-th of the languages in sample)
// and returns recall@5 per language.
func recallAt5(t *testing.T, m store.MemoryIndex, c *langcorpus.Corpus, notes []store.MemoryNote, step int) map[string]float64 {
	ctx := context.Background()
	found, total := map[string]int{}, map[string]int{}
	seen := map[string]int{}
	for _, q := range c.Queries {
		seen[q.Lang]++
		if q.Lang == "zh" && seen[q.Lang]%step != 0 {
			continue
		}
		hits, err := store.SearchMemory(ctx, m, store.MemoryQuery{Dir: "memory", Limit: 5}, q.Text)
		if err != nil {
			t.Fatalf("%s: %v", q.Text, err)
		}
		total[q.Lang]++
		for _, h := range hits {
			if h.Path == notes[q.Want].Path {
				found[q.Lang]++
				break
			}
		}
	}
	out := map[string]float64{}
	for l, n := range total {
		out[l] = float64(found[l]) / float64(n)
	}
	return out
}

// Memory search finds a word inside a sentence in every script: recall@5
// on the generated multilingual corpus (5,000 Chinese notes, 500 in each
// other language), on SQLite and PostgreSQL.
func TestMemoryRecallIntl(t *testing.T) {
	c := langcorpus.Generate(22, 5000, 500)
	notes := corpusNotes(c)
	t.Log(c)
	ctx := context.Background()
	for _, spec := range []string{filepath.Join(t.TempDir(), "m.db"), pgtest.URL(t, "postgres_recall")} {
		tg, err := stores.Parse(spec, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		m, err := stores.OpenMemoryIndex(ctx, tg)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		if err := m.MemoryUpsert(ctx, "memory", notes); err != nil {
			t.Fatal(err)
		}
		rec := recallAt5(t, m, c, notes, 5)
		var line []string
		for _, l := range langcorpus.Languages {
			line = append(line, fmt.Sprintf("%s %.3f", l, rec[l]))
		}
		t.Logf("%s: recall@5 %s", tg.Kind, strings.Join(line, ", "))
		// CJK must reach 0.95 (issue 22); Latin and Cyrillic words are
		// stemmed with the English and Russian stemmers, which miss some
		// French plurals of the made-up words (docs/memory.md).
		for _, l := range langcorpus.Languages {
			want := 0.95
			if l == "fr" || l == "de" || l == "ru" {
				want = 0.9
			}
			if rec[l] < want {
				t.Errorf("%s: recall@5 of %s is %.3f, want ≥ %.2f", spec, l, rec[l], want)
			}
		}
	}
}
