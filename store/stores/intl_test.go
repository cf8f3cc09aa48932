package stores_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/internal/langcorpus"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/intl"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/stores"
)

// corpusNotes turns a generated corpus into index rows.
func corpusNotes(c *langcorpus.Corpus) []memory.IndexNote {
	notes := make([]memory.IndexNote, len(c.Notes))
	for i, n := range c.Notes {
		notes[i] = memory.IndexNote{Path: fmt.Sprintf("semantic/%s-%05d.md", n.Lang, i), Tier: "semantic", ID: fmt.Sprint(i),
			Title: n.Title, Tags: []string{n.Lang}, Body: n.Body, Hash: "h"}
	}
	return notes
}

// recallAt5 runs every query (every step-th of the languages in sample)
// and returns recall@5 per language.
func recallAt5(t *testing.T, m memory.Index, c *langcorpus.Corpus, notes []memory.IndexNote, step int) map[string]float64 {
	ctx := context.Background()
	found, total := map[string]int{}, map[string]int{}
	seen := map[string]int{}
	for _, q := range c.Queries {
		seen[q.Lang]++
		if q.Lang == "zh" && seen[q.Lang]%step != 0 {
			continue
		}
		hits, err := memory.SearchIndex(ctx, m, memory.IndexQuery{Dir: "memory", Limit: 5}, q.Text)
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
	if testing.Short() {
		t.Skip("the recall corpus (5,000 + 3,000 notes on two stores) runs in the full test pass, not the -short -race one")
	}
	c := langcorpus.Generate(22, 5000, 500)
	notes := corpusNotes(c)
	t.Log(c)
	ctx := context.Background()
	for _, spec := range []string{filepath.Join(t.TempDir(), "m.db"), pgtest.URL(t, "postgres_recall")} {
		tg, err := stores.Parse(spec, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		m, err := stores.OpenMemoryIndex(ctx, tg, nil)
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

// graphQuestion asks for a key as a user of each language would.
func graphQuestion(lang, key string) string {
	switch lang {
	case "zh":
		return "什么导致" + key + "?"
	case "ja":
		return key + "の原因は何ですか"
	case "ko":
		return key + "의 원인은 무엇입니까?"
	case "de":
		return "Warum " + strings.NewReplacer("ü", "u", "ö", "o", "ä", "a").Replace(key) + "?"
	case "fr":
		return "Pourquoi " + strings.NewReplacer("é", "e", "è", "e", "ç", "c", "ê", "e", "ô", "o").Replace(key) + " ?"
	case "ru":
		return "Почему " + key + "?"
	}
	return "why " + key + " 的原因"
}

// The graph's seed finding names the entity a question in any language is
// about: recall@5 on the generated corpus (every note's key an entity, its
// title another), on SQLite and PostgreSQL.
func TestGraphSeedRecallIntl(t *testing.T) {
	if testing.Short() {
		t.Skip("the recall corpus (5,000 + 3,000 notes on two stores) runs in the full test pass, not the -short -race one")
	}
	c := langcorpus.Generate(22, 5000, 500)
	ctx := context.Background()
	var nodes []*graph.Node
	seen := map[string]bool{}
	for _, n := range c.Notes {
		for _, name := range []string{n.Key, n.Title} {
			name = graph.NormalizeName(name)
			if !seen[name] {
				seen[name] = true
				nodes = append(nodes, &graph.Node{ID: graph.NodeID(name), Name: name, Type: "concept", SourceChunks: []string{}})
			}
		}
	}
	for _, spec := range []string{filepath.Join(t.TempDir(), "g.db"), pgtest.URL(t, "postgres_seeds")} {
		tg, err := stores.Parse(spec, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		g, err := stores.OpenGraph(ctx, tg, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		for i := 0; i < len(nodes); i += 1000 {
			if _, err := g.ApplyGraph(ctx, &graph.Batch{Nodes: nodes[i:min(i+1000, len(nodes))]}); err != nil {
				t.Fatal(err)
			}
		}
		tl := &graph.Tools{Store: g}
		found, total := map[string]int{}, map[string]int{}
		n := map[string]int{}
		for _, q := range c.Queries {
			if n[q.Lang]++; q.Lang == "zh" && n[q.Lang]%5 != 0 {
				continue
			}
			key := c.Notes[q.Want].Key
			seeds, err := tl.Seeds(ctx, graphQuestion(q.Lang, key), 5)
			if err != nil {
				t.Fatal(err)
			}
			total[q.Lang]++
			if slices.Contains(seeds, graph.NodeID(graph.NormalizeName(key))) {
				found[q.Lang]++
			}
		}
		var line []string
		for _, l := range langcorpus.Languages {
			r := float64(found[l]) / float64(total[l])
			line = append(line, fmt.Sprintf("%s %.3f", l, r))
			if r < 0.95 {
				t.Errorf("%s: seed recall@5 of %s is %.3f, want ≥ 0.95", tg.Kind, l, r)
			}
		}
		t.Logf("%s: seed recall@5 %s", tg.Kind, strings.Join(line, ", "))
	}
}

// BenchmarkCJKSegmentation compares, on the 5,000 Chinese notes of the
// generated corpus, the ways to index CJK text that docs/memory.md weighs:
// FTS5's unicode61 on the raw text (the index before issue 22: a CJK run is
// one token), FTS5's trigram tokenizer (with a LIKE scan for two-character
// words, which trigrams cannot find), and the application's bigrams
// (intl.IndexText, what both stores use). It reports recall@5 of the
// known answers and the size of the index.
func BenchmarkCJKSegmentation(b *testing.B) {
	c := langcorpus.Generate(22, 5000, 0)
	var notes []langcorpus.Note
	var queries []langcorpus.Query
	for _, q := range c.Queries {
		if q.Lang == "zh" {
			queries = append(queries, q)
		}
	}
	notes = c.Notes
	for _, mode := range []string{"unicode61", "trigram", "bigram"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				path := filepath.Join(b.TempDir(), "seg.db")
				db, err := sql.Open("sqlite", path)
				if err != nil {
					b.Fatal(err)
				}
				tok := map[string]string{"unicode61": "porter unicode61 remove_diacritics 2", "trigram": "trigram", "bigram": "ascii"}[mode]
				if _, err := db.Exec(`CREATE VIRTUAL TABLE t USING fts5(title, body, tokenize = '` + tok + `')`); err != nil {
					b.Fatal(err)
				}
				tx, _ := db.Begin()
				for i, n := range notes {
					title, body := n.Title, n.Body
					if mode == "bigram" {
						title, body = intl.IndexText(title), intl.IndexText(body)
					}
					if _, err := tx.Exec(`INSERT INTO t (rowid, title, body) VALUES (?, ?, ?)`, i, title, body); err != nil {
						b.Fatal(err)
					}
				}
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
				db.Exec(`INSERT INTO t(t) VALUES ('optimize')`)
				found := 0
				for _, q := range queries {
					key := notes[q.Want].Key
					var rows *sql.Rows
					switch {
					case mode == "bigram":
						hits, _ := searchBigrams(db, q.Text)
						if slices.Contains(hits, q.Want) {
							found++
						}
						continue
					case mode == "trigram" && utf8.RuneCountInString(key) < 3:
						rows, err = db.Query(`SELECT rowid FROM t WHERE body LIKE ? LIMIT 5`, "%"+key+"%")
					default:
						rows, err = db.Query(`SELECT rowid FROM t WHERE t MATCH ? ORDER BY rank LIMIT 5`, `"`+key+`"`)
					}
					if err != nil {
						b.Fatal(err)
					}
					for rows.Next() {
						var id int
						rows.Scan(&id)
						if id == q.Want {
							found++
						}
					}
					rows.Close()
				}
				db.Close()
				fi, _ := os.Stat(path)
				b.ReportMetric(float64(found)/float64(len(queries)), "recall@5")
				b.ReportMetric(float64(fi.Size())/(1<<20), "MB")
			}
		})
	}
}

// searchBigrams runs the memory service's plan on a bare FTS5 table of
// bigrams.
func searchBigrams(db *sql.DB, text string) ([]int, error) {
	for _, q := range memory.IndexSearches(memory.IndexQuery{}, text) {
		var parts []string
		for _, p := range q.Phrases {
			s := `"` + strings.Join(p.Terms, " ") + `"`
			if p.Prefix {
				s += "*"
			}
			parts = append(parts, s)
		}
		op := " AND "
		if q.Any {
			op = " OR "
		}
		rows, err := db.Query(`SELECT rowid FROM t WHERE t MATCH ? ORDER BY rank LIMIT 5`, strings.Join(parts, op))
		if err != nil {
			return nil, err
		}
		var out []int
		for rows.Next() {
			var id int
			rows.Scan(&id)
			out = append(out, id)
		}
		rows.Close()
		if len(out) > 0 {
			return out, nil
		}
	}
	return nil, nil
}
