package postgres

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/memory"
)

// fullRanking is the search without the lists: ts_rank_cd of every match.
func fullRanking(t *testing.T, m *MemoryIndex, q memory.IndexQuery) []memory.IndexHit {
	t.Helper()
	rows, err := m.db.pool.Query(context.Background(), strings.Replace(memorySearchSQL, "%s", "", 1), tsqueryLiteral(q), q.Dir, q.Limit, int64(1<<62), false)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := scanHits(rows, &q)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

// The impact lists give the full ranking's top k (paths, order and ranks,
// ties by path) for a word in every note and words in ~15% of them, after
// the build, after notes are added (some beating the lists' bound) or
// replaced, after the best are deleted, and after a reset and reindex; a
// rare word and a query of two words are ranked as before.
func TestImpactSearchIsFullRanking(t *testing.T) {
	ctx := context.Background()
	m, err := OpenMemoryIndex(ctx, pgtest.URL(t, "pgimpact"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	write := func(n, seed int) {
		r := rand.New(rand.NewPCG(uint64(seed), 5))
		var batch []memory.IndexNote
		for i := range n {
			var b strings.Builder
			for range 5 + r.IntN(40) {
				fmt.Fprintf(&b, "w%dq ", r.IntN(30))
			}
			b.WriteString("omni")
			if i%500 == 1 {
				b.WriteString(" rare")
			}
			batch = append(batch, memory.IndexNote{Path: fmt.Sprintf("semantic/n%05d.md", i), Tier: "semantic", ID: fmt.Sprint(i),
				Title: fmt.Sprintf("w%dq", r.IntN(30)), Tags: []string{fmt.Sprintf("w%dq", r.IntN(30))}, Body: b.String(), Hash: "h"})
		}
		for len(batch) > 0 {
			k := min(len(batch), 700)
			if err := m.MemoryUpsert(ctx, "memory", batch[:k]); err != nil {
				t.Fatal(err)
			}
			batch = batch[k:]
		}
	}
	write(3000, 1)
	check := func(round string) {
		t.Helper()
		for _, lim := range []int{1, 20, 60} {
			for _, w := range []string{"omni", "w3q", "w11q", "rare"} {
				q := memory.IndexQuery{Dir: "memory", Limit: lim, Phrases: []memory.IndexPhrase{{Terms: []string{w}}}}
				got, ok, err := m.impactSearch(ctx, q, lim)
				if err != nil {
					t.Fatal(err)
				}
				if ok != (w != "rare") {
					t.Fatalf("%s %s limit %d: answered by the lists %v", round, w, lim, ok)
				}
				if !ok {
					continue
				}
				want := fullRanking(t, m, q)
				if len(got) != len(want) {
					t.Fatalf("%s %s limit %d: %d hits, want %d", round, w, lim, len(got), len(want))
				}
				for i := range want {
					if got[i].Path != want[i].Path || got[i].Score != want[i].Score {
						t.Fatalf("%s %s limit %d: hit %d is %s (%g), want %s (%g)", round, w, lim, i, got[i].Path, got[i].Score, want[i].Path, want[i].Score)
					}
				}
			}
		}
		q := memory.IndexQuery{Dir: "memory", Limit: 20, Phrases: []memory.IndexPhrase{{Terms: []string{"w3q"}}, {Terms: []string{"omni"}}}}
		if _, ok, err := m.impactSearch(ctx, q, 20); err != nil || ok {
			t.Fatalf("%s: two words answered by the lists (%v)", round, err)
		}
	}
	check("built")
	// Added: titles and tags of a listed word beat the bound.
	var batch []memory.IndexNote
	for i := range 40 {
		batch = append(batch, memory.IndexNote{Path: fmt.Sprintf("episodic/new%02d.md", i), Tier: "episodic", ID: fmt.Sprint("new", i),
			Title: "w3q omni w11q", Tags: []string{"w3q", "w11q"}, Body: "w3q omni w11q w3q", Hash: "h"})
	}
	if err := m.MemoryUpsert(ctx, "memory", batch); err != nil {
		t.Fatal(err)
	}
	var joined int
	if err := m.db.pool.QueryRow(ctx, `SELECT count(*) FROM memory_impacts WHERE path LIKE 'episodic/new%'`).Scan(&joined); err != nil || joined == 0 {
		t.Fatalf("%d list entries of the new notes (%v)", joined, err)
	}
	check("added")
	// Replaced: the same paths, the word gone from them.
	for i := range batch {
		batch[i].Title, batch[i].Tags, batch[i].Body = "other", nil, "omni"
	}
	if err := m.MemoryUpsert(ctx, "memory", batch); err != nil {
		t.Fatal(err)
	}
	check("replaced")
	var best []string
	rows, _ := m.db.pool.Query(ctx, `SELECT DISTINCT path FROM (SELECT path FROM memory_impacts ORDER BY impact DESC LIMIT 300) s`)
	for rows.Next() {
		var p string
		rows.Scan(&p)
		best = append(best, p)
	}
	rows.Close()
	if err := m.MemoryDelete(ctx, "memory", best); err != nil {
		t.Fatal(err)
	}
	check("deleted")
	if err := m.MemoryReset(ctx, "memory"); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := m.db.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM memory_impacts) + (SELECT count(*) FROM memory_impact_terms)`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d list rows after a reset (%v)", left, err)
	}
	if err := m.BeginBulk(ctx); err != nil {
		t.Fatal(err)
	}
	write(2500, 2)
	if err := m.EndBulk(ctx); err != nil {
		t.Fatal(err)
	}
	check("reindexed")
}

// A query of any of several words whose lists are complete gives the full
// ranking's top k (paths, order, ranks to float rounding) from the sums of
// the lists, prefixes included while no longer lexeme starts them; after
// writes that add, replace and delete notes, and one that indexes a longer
// lexeme (the prefix is then ranked as before, as one that had a longer
// lexeme at the list's build).
func TestImpactAnySearchIsFullRanking(t *testing.T) {
	defer func(f float64) { impactCompleteFrac = f }(impactCompleteFrac)
	impactCompleteFrac = 1
	ctx := context.Background()
	m, err := OpenMemoryIndex(ctx, pgtest.URL(t, "pgimpactany"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	r := rand.New(rand.NewPCG(7, 5))
	var batch []memory.IndexNote
	for i := range 3000 {
		var b strings.Builder
		for range 3 + r.IntN(30) {
			fmt.Fprintf(&b, "w%dq ", r.IntN(60))
		}
		if i%500 == 1 {
			b.WriteString(" rare")
		}
		if i%7 == 0 {
			b.WriteString(" alpha")
		}
		if i%300 == 2 {
			b.WriteString(" w5qxy") // w5q* is ranked over every match
		}
		batch = append(batch, memory.IndexNote{Path: fmt.Sprintf("semantic/n%05d.md", i), Tier: "semantic", ID: fmt.Sprint(i),
			Title: fmt.Sprintf("w%dq", r.IntN(60)), Tags: []string{fmt.Sprintf("w%dq", r.IntN(60))}, Body: b.String(), Hash: "h"})
	}
	if err := m.MemoryUpsert(ctx, "memory", batch); err != nil {
		t.Fatal(err)
	}
	phrases := func(prefix bool, ws ...string) []memory.IndexPhrase {
		var out []memory.IndexPhrase
		for _, w := range ws {
			out = append(out, memory.IndexPhrase{Terms: []string{w}, Prefix: prefix})
		}
		return out
	}
	queries := [][]memory.IndexPhrase{
		phrases(false, "w1q", "w2q", "w3q"),
		phrases(true, "w1q", "w5q", "rare"),
		phrases(true, "alpha", "w7q"),
		phrases(false, "w9q", "rare", "nowhere"),
	}
	check := func(round string, wantOK func(i int) bool) {
		t.Helper()
		for _, lim := range []int{1, 20, 60} {
			for i, ps := range queries {
				q := memory.IndexQuery{Dir: "memory", Limit: lim, Phrases: ps, Any: true}
				what := fmt.Sprintf("%s %s limit %d", round, tsqueryLiteral(q), lim)
				got, ok, err := m.impactSearch(ctx, q, lim)
				if err != nil {
					t.Fatal(err)
				}
				if ok != wantOK(i) {
					t.Fatalf("%s: answered by the lists %v", what, ok)
				}
				if !ok {
					continue
				}
				wq := q
				wq.Limit = lim + 20
				want := fullRanking(t, m, wq)
				if len(got) != min(lim, len(want)) {
					t.Fatalf("%s: %d hits, want %d", what, len(got), min(lim, len(want)))
				}
				rank := map[string]float64{}
				for _, h := range want {
					rank[h.Path] = h.Score
				}
				near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(a, b) }
				for k := range got {
					wr, in := rank[got[k].Path]
					if !near(got[k].Score, want[k].Score) || got[k].Path != want[k].Path && (!in || !near(wr, want[k].Score)) {
						t.Fatalf("%s: hit %d is %s (%g), want %s (%g)", what, k, got[k].Path, got[k].Score, want[k].Path, want[k].Score)
					}
				}
			}
		}
	}
	all := func(i int) bool { return i != 1 }
	check("built", all)
	check("read", all)
	// A cached row not in the notes' order is not merged: the search ranks
	// every match.
	if _, err := m.db.pool.Exec(ctx, `UPDATE memory_impact_postings SET (nids, impacts) =
		(SELECT string_agg(int8send(n.nid), ''::bytea ORDER BY n.nid DESC), string_agg(float4send(i.impact), ''::bytea ORDER BY n.nid DESC)
		FROM memory_impacts i JOIN memory_notes n ON n.dir = i.dir AND n.path = i.path WHERE i.dir = 'memory' AND i.term = 'w2q')
		WHERE term = 'w2q'`); err != nil {
		t.Fatal(err)
	}
	unordered := memory.IndexQuery{Dir: "memory", Limit: 20, Phrases: queries[0], Any: true}
	if got, ok, err := m.impactSearch(ctx, unordered, 20); err != nil || ok {
		t.Fatalf("%s with a list out of order: answered by the lists %v (%d hits, %v)", tsqueryLiteral(unordered), ok, len(got), err)
	}
	if _, err := m.db.pool.Exec(ctx, `DELETE FROM memory_impact_postings WHERE term = 'w2q'`); err != nil {
		t.Fatal(err)
	}
	check("written again", all)
	// Added notes, strong for listed words; then replaced; then the best
	// deleted.
	var added []memory.IndexNote
	for i := range 40 {
		added = append(added, memory.IndexNote{Path: fmt.Sprintf("episodic/new%02d.md", i), Tier: "episodic", ID: fmt.Sprint("new", i),
			Title: "w3q w1q alpha", Tags: []string{"w3q", "w7q"}, Body: "w3q w1q w9q w3q alpha", Hash: "h"})
	}
	if err := m.MemoryUpsert(ctx, "memory", added); err != nil {
		t.Fatal(err)
	}
	check("added", all)
	for i := range added {
		added[i].Title, added[i].Tags, added[i].Body = "other", nil, "w5q"
	}
	if err := m.MemoryUpsert(ctx, "memory", added); err != nil {
		t.Fatal(err)
	}
	check("replaced", all)
	var best []string
	rows, _ := m.db.pool.Query(ctx, `SELECT DISTINCT path FROM (SELECT path FROM memory_impacts ORDER BY impact DESC LIMIT 200) s`)
	for rows.Next() {
		var p string
		rows.Scan(&p)
		best = append(best, p)
	}
	rows.Close()
	if err := m.MemoryDelete(ctx, "memory", best); err != nil {
		t.Fatal(err)
	}
	check("deleted", all)
	// A longer lexeme that alpha starts, in strong notes: alpha* is ranked
	// over every match again.
	if err := m.MemoryUpsert(ctx, "memory", []memory.IndexNote{{Path: "semantic/alphabet.md", Tier: "semantic", ID: "ab",
		Title: "alphabet", Tags: []string{"alphabet"}, Body: "alphabet alphabet", Hash: "h"}}); err != nil {
		t.Fatal(err)
	}
	check("longer", func(i int) bool { return i != 1 && i != 2 })
	// The search of the prefix (made exact while no longer lexeme was
	// indexed) finds the longer lexeme's note first.
	q := memory.IndexQuery{Dir: "memory", Limit: 5, Phrases: []memory.IndexPhrase{{Terms: []string{"alpha"}, Prefix: true}}}
	got, err := m.MemorySearch(ctx, q)
	if err != nil || len(got) == 0 || got[0].Path != "semantic/alphabet.md" {
		t.Fatalf("alpha* after a longer lexeme: %v (%v)", got, err)
	}
}
