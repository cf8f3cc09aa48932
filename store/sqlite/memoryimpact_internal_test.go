package sqlite

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/memory"
)

// impactCorpus writes n notes over a small vocabulary, so that each word is
// in thousands of notes (above impactRare): "omni" in every note, the
// words w0..w39 in ~15% each with repeats, some in titles and tags; "rare"
// in one note of 400 and "rarest" in one of 1,300 (prefix expansions of
// "rare").
func impactCorpus(t *testing.T, m *MemoryIndex, n, seed int) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(seed), 9))
	vocab := make([]string, 40)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dq", i)
	}
	var batch []memory.IndexNote
	for i := range n {
		var b strings.Builder
		words := 5 + r.IntN(60)
		for range words {
			b.WriteString(vocab[r.IntN(len(vocab))])
			b.WriteByte(' ')
		}
		b.WriteString("omni")
		if i%400 == 11 {
			b.WriteString(" rare")
		}
		if i%1300 == 5 {
			b.WriteString(" rarest")
		}
		tier := memory.Tiers[i%3]
		batch = append(batch, memory.IndexNote{Path: fmt.Sprintf("%s/n%05d-%d.md", tier, i, seed), Tier: tier, ID: fmt.Sprint(i),
			Title: vocab[r.IntN(len(vocab))], Tags: []string{vocab[r.IntN(len(vocab))]}, Body: b.String(), Hash: "h"})
		if len(batch) == 500 || i == n-1 {
			if err := m.MemoryUpsert(context.Background(), "memory", batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}

// ftsTop is the ranking FTS5 gives for q (the path the impact lists stand
// in for).
func ftsTop(t *testing.T, m *MemoryIndex, q memory.IndexQuery) []memory.IndexHit {
	t.Helper()
	rows, err := m.top.QueryContext(context.Background(), ftsMatch(q), q.Limit-1, q.Limit)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := scanHits(rows, &q)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

// sameRanking compares with FTS5's answer: the same notes in the same
// order with the same scores (relative tol). After writes the lists' notes
// keep the impacts computed with the average length of their build, so
// scores may drift by a little (tol 1%), and notes whose FTS5 scores are
// that close may swap. want may rank past the limit (of got), so that a
// swap across the limit is judged by its FTS5 score too.
func sameRanking(t *testing.T, what string, got, want []memory.IndexHit, limit int, tol float64) {
	t.Helper()
	if len(got) != min(limit, len(want)) {
		t.Fatalf("%s: %d hits, FTS5 %d", what, len(got), min(limit, len(want)))
	}
	score := map[string]float64{}
	for _, h := range want {
		score[h.Path] = h.Score
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b)) }
	for i := range got {
		ws, in := score[got[i].Path]
		if !near(got[i].Score, want[i].Score) || got[i].Path != want[i].Path && (!in || !near(ws, want[i].Score)) {
			t.Fatalf("%s: hit %d is %s (%g), FTS5 ranks %s (%g)", what, i, got[i].Path, got[i].Score, want[i].Path, want[i].Score)
		}
	}
}

// The impact lists give FTS5's top k, scores included, for one frequent
// word, several (all required or any), prefixes, and mixes with rare words;
// and stay exact when notes are added (some with the word in the title,
// which beat the list's theta) and the best ones removed. The words of the
// corpus are in ~15% of the notes: with the lists cut at impactListLen,
// and with complete lists (every word under impactCompleteFrac).
func TestImpactSearchIsFTS5Ranking(t *testing.T) {
	for _, c := range []struct {
		name string
		frac float64
	}{{"cut", 0.1}, {"complete", 1}} {
		t.Run(c.name, func(t *testing.T) {
			defer func(f float64) { impactCompleteFrac = f }(impactCompleteFrac)
			impactCompleteFrac = c.frac
			testImpactSearchIsFTS5Ranking(t, c.frac == 1)
		})
	}
}

func testImpactSearchIsFTS5Ranking(t *testing.T, complete bool) {
	ctx := context.Background()
	m, err := OpenMemoryIndex(ctx, filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	impactCorpus(t, m, 6000, 1)
	ph := func(prefix bool, terms ...string) []memory.IndexPhrase {
		var out []memory.IndexPhrase
		for _, t := range terms {
			out = append(out, memory.IndexPhrase{Terms: []string{t}, Prefix: prefix})
		}
		return out
	}
	queries := []memory.IndexQuery{
		{Phrases: ph(false, "omni")},
		{Phrases: ph(false, "w3q")},
		{Phrases: ph(false, "w3q", "w7q")},
		{Phrases: ph(false, "w3q", "w7q", "w9q"), Any: true},
		{Phrases: ph(false, "w3q", "rare"), Any: true},
		{Phrases: ph(true, "w3q", "w1")},
		{Phrases: ph(true, "w5q", "rare", "omni"), Any: true},
		{Phrases: ph(true, "rare", "w2q"), Any: true},
	}
	answered, fallbacks, anyFallbacks := 0, 0, 0
	check := func(round string, tol float64) {
		t.Helper()
		for _, lim := range []int{1, 20, 60} {
			for _, q := range queries {
				q.Dir, q.Limit = "memory", lim
				got, ok, err := m.impactSearch(ctx, q, lim)
				if err != nil {
					t.Fatal(err)
				}
				wq := q
				wq.Limit = lim + 20
				want := ftsTop(t, m, wq)
				what := fmt.Sprintf("%s %s limit %d", round, ftsMatch(q), lim)
				if !ok {
					// Several words may need more candidates scored than
					// the lists allow; one word never does.
					if len(q.Phrases) == 1 {
						t.Fatalf("%s: answered by FTS5, not the lists", what)
					}
					fallbacks++
					if q.Any {
						anyFallbacks++
					}
					continue
				}
				answered++
				sameRanking(t, what, got, want, lim, tol)
			}
		}
	}
	check("built", 1e-9)
	var n int
	if err := m.db.db.QueryRow(`SELECT count(*) FROM memory_impact_terms`).Scan(&n); err != nil || n < 5 {
		t.Fatalf("%d lists (%v): the frequent words were not listed", n, err)
	}
	// New notes, some with a listed word in the title and tags: they
	// join the lists when they beat theta.
	var batch []memory.IndexNote
	for i := range 30 {
		batch = append(batch, memory.IndexNote{Path: fmt.Sprintf("semantic/new%02d.md", i), Tier: "semantic", ID: fmt.Sprint("new", i),
			Title: "w3q w7q omni", Tags: []string{"w3q"}, Body: "w3q w7q w9q omni w5qx", Hash: "h"})
	}
	if err := m.MemoryUpsert(ctx, "memory", batch); err != nil {
		t.Fatal(err)
	}
	var joined int
	if err := m.db.db.QueryRow(`SELECT count(*) FROM memory_impacts i JOIN memory_notes n ON n.rowid = i.note WHERE n.path LIKE 'semantic/new%'`).Scan(&joined); err != nil || joined == 0 {
		t.Fatalf("%d list entries for the new notes (%v)", joined, err)
	}
	check("added", 0.01)
	// The best notes of every list go: the lists keep the rest, exact.
	var gone []string
	rows, _ := m.db.db.Query(`SELECT DISTINCT n.path FROM memory_impacts i JOIN memory_notes n ON n.rowid = i.note ORDER BY i.impact DESC LIMIT 200`)
	for rows.Next() {
		var p string
		rows.Scan(&p)
		gone = append(gone, p)
	}
	rows.Close()
	if err := m.MemoryDelete(ctx, "memory", gone); err != nil {
		t.Fatal(err)
	}
	check("deleted", 0.01)
	// A reset drops the lists; the next searches build them again.
	if err := m.MemoryReset(ctx, "memory"); err != nil {
		t.Fatal(err)
	}
	if err := m.db.db.QueryRow(`SELECT (SELECT count(*) FROM memory_impact_terms) + (SELECT count(*) FROM memory_impacts)`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d list rows after a reset (%v)", n, err)
	}
	impactCorpus(t, m, 3000, 2)
	check("reindexed", 1e-9)
	if answered < 2*fallbacks {
		t.Errorf("the lists answered %d queries, FTS5 %d", answered, fallbacks)
	}
	if complete && anyFallbacks > 0 {
		// Complete lists know every impact: any of several words is
		// summed from them, never left to FTS5.
		t.Errorf("complete lists left %d queries of any word to FTS5 (answered %d)", anyFallbacks, answered)
	}
}

// A store made before the impact lists (memory schema version 4) migrates
// without losing its rows: the first search of a frequent word builds its
// list from them, and answers as FTS5 does.
func TestMemoryMigrationToImpactLists(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx, "memory", memoryMigrations[:4]); err != nil {
		t.Fatal(err)
	}
	old := &MemoryIndex{db: db, top: newLazyStmt(db.db, memoryTopSQL)}
	// The version-4 write path: note rows and FTS rows, no lists.
	for i := range 1500 {
		n := memory.IndexNote{Path: fmt.Sprintf("semantic/n%04d.md", i), Title: "t", Body: strings.Repeat("word ", 1+i%7) + "omni", Hash: "h"}
		n.Analyze()
		r, err := db.db.ExecContext(ctx, `INSERT INTO memory_notes (dir, path, tier, note_id, title, tags, size, mtime_ns, hash, warning, indexed_ns, body)
			VALUES ('memory', ?, 'semantic', ?, ?, '[]', 1, 1, 'h', '', 1, ?)`, n.Path, fmt.Sprint(i), n.Title, n.Body)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := r.LastInsertId()
		if _, err := db.db.ExecContext(ctx, `INSERT INTO memory_terms (rowid, title, tags, body) VALUES (?, ?, '', ?)`, id, n.TitleTerms, n.BodyTerms); err != nil {
			t.Fatal(err)
		}
	}
	q := memory.IndexQuery{Dir: "memory", Limit: 20, Phrases: []memory.IndexPhrase{{Terms: []string{"word"}}}}
	want := ftsTop(t, old, q)
	old.top.Close()
	db.Close()

	m, err := OpenMemoryIndex(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if n, err := m.MemoryCount(ctx, "memory"); err != nil || n != 1500 {
		t.Fatalf("%d notes after the migration (%v)", n, err)
	}
	got, err := m.MemorySearch(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	sameRanking(t, "word", got, want, len(want), 1e-9)
	var lists int
	if err := m.db.db.QueryRow(`SELECT count(*) FROM memory_impact_terms WHERE term = 'word'`).Scan(&lists); err != nil || lists != 1 {
		t.Fatalf("%d lists for the searched word (%v)", lists, err)
	}
}

// The lists are a cache: when the store cannot be written (here query_only,
// as a read-only file answers), a frequent word is ranked by FTS5, not
// failed.
func TestImpactListUnwritableStore(t *testing.T) {
	ctx := context.Background()
	m, err := OpenMemoryIndex(ctx, filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	impactCorpus(t, m, 1500, 3)
	m.db.db.SetMaxOpenConns(1)
	if _, err := m.db.db.ExecContext(ctx, `PRAGMA query_only = 1`); err != nil {
		t.Fatal(err)
	}
	q := memory.IndexQuery{Dir: "memory", Limit: 20, Phrases: []memory.IndexPhrase{{Terms: []string{"omni"}}}}
	got, err := m.MemorySearch(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	sameRanking(t, "omni, read only", got, ftsTop(t, m, q), q.Limit, 1e-9)
	var lists int
	if err := m.db.db.QueryRow(`SELECT count(*) FROM memory_impact_terms`).Scan(&lists); err != nil || lists != 0 {
		t.Fatalf("%d lists in a read-only store (%v)", lists, err)
	}
}

// With complete lists, a note missing from one required word's list lacks
// the word: it is no answer, however high its impact for the others. A
// prefix finds the longer terms indexed before its list was built.
func TestImpactCompleteListsRequireEveryWord(t *testing.T) {
	defer func(f float64) { impactCompleteFrac = f }(impactCompleteFrac)
	impactCompleteFrac = 1
	ctx := context.Background()
	m, err := OpenMemoryIndex(ctx, filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var batch []memory.IndexNote
	for i := range 2400 {
		n := memory.IndexNote{Path: fmt.Sprintf("semantic/n%04d.md", i), Tier: "semantic", ID: fmt.Sprint(i), Hash: "h",
			Body: "alpha beta filler words here"}
		if i%2 == 1 {
			// Strong for alpha, without beta.
			n.Title, n.Tags, n.Body = "alpha", []string{"alpha"}, "alpha"
		}
		if i%300 == 7 {
			n.Title, n.Tags, n.Body = "alphabetical", []string{"alphabetical"}, "alphabetical beta"
		}
		batch = append(batch, n)
	}
	if err := m.MemoryUpsert(ctx, "memory", batch); err != nil {
		t.Fatal(err)
	}
	for _, q := range []memory.IndexQuery{
		{Phrases: []memory.IndexPhrase{{Terms: []string{"alpha"}}, {Terms: []string{"beta"}}}},
		{Phrases: []memory.IndexPhrase{{Terms: []string{"alpha"}, Prefix: true}, {Terms: []string{"beta"}, Prefix: true}}, Any: true},
	} {
		q.Dir, q.Limit = "memory", 40
		want := ftsTop(t, m, q) // past the limit: ties at noise level
		q.Limit = 20
		for range 2 { // builds the lists, then reads them
			got, ok, err := m.impactSearch(ctx, q, q.Limit)
			if err != nil || !ok {
				t.Fatalf("%s: not answered by the lists (%v)", ftsMatch(q), err)
			}
			sameRanking(t, ftsMatch(q), got, want, q.Limit, 1e-9)
		}
	}
}

// A prefix of a listed word that no longer term starts is searched as the
// word itself, with the same answer as FTS5's prefix search; once a write
// indexes a longer term, as a prefix again.
func TestExactPrefixes(t *testing.T) {
	ctx := context.Background()
	m, err := OpenMemoryIndex(ctx, filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	impactCorpus(t, m, 3000, 3)
	exact := memory.IndexQuery{Dir: "memory", Limit: 20, Phrases: []memory.IndexPhrase{{Terms: []string{"w3q"}}, {Terms: []string{"w4q"}}}}
	if _, err := m.MemorySearch(ctx, exact); err != nil { // builds the lists
		t.Fatal(err)
	}
	prefix := exact
	prefix.Phrases = []memory.IndexPhrase{{Terms: []string{"w3q"}, Prefix: true}, {Terms: []string{"w4q"}, Prefix: true}}
	for round, longer := range []bool{false, true} {
		if longer {
			if err := m.MemoryUpsert(ctx, "memory", []memory.IndexNote{{Path: "semantic/long.md", Tier: "semantic", ID: "long",
				Title: "w3qzz w4q", Tags: []string{"w3qzz"}, Body: "w3qzz w4q", Hash: "h"}}); err != nil {
				t.Fatal(err)
			}
		}
		q, err := m.exactPrefixes(ctx, prefix)
		if err != nil || q.Phrases[0].Prefix == !longer || q.Phrases[1].Prefix {
			t.Fatalf("round %d: %+v (%v)", round, q.Phrases, err)
		}
		got, err := m.MemorySearch(ctx, prefix)
		if err != nil {
			t.Fatal(err)
		}
		want := prefix
		want.Limit = 40
		sameRanking(t, fmt.Sprint("round ", round), got, ftsTop(t, m, want), 20, 1e-9)
		if longer && got[0].Path != "semantic/long.md" {
			t.Fatalf("the note of the longer term is not first: %s", got[0].Path)
		}
	}
}

// A query of required words whose lists are all complete is counted from
// the lists: no note holding every word is an empty answer without FTS5,
// a few are ranked by FTS5, many by the lists; a note written later with
// every word is found (the writes keep the lists complete).
func TestRequiredWordsFromCompleteLists(t *testing.T) {
	defer func(f float64) { impactCompleteFrac = f }(impactCompleteFrac)
	impactCompleteFrac = 1
	ctx := context.Background()
	m, err := OpenMemoryIndex(ctx, filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var batch []memory.IndexNote
	for i := range 3600 {
		words := []string{"filler"}
		if i%2 == 0 {
			words = append(words, "red")
		} else {
			words = append(words, "blue")
		}
		if i%3 != 0 {
			words = append(words, "green")
		}
		batch = append(batch, memory.IndexNote{Path: fmt.Sprintf("semantic/n%04d.md", i), Tier: "semantic", ID: fmt.Sprint(i), Hash: "h",
			Body: strings.Repeat(strings.Join(words, " ")+" ", 1+i%4)})
	}
	if err := m.MemoryUpsert(ctx, "memory", batch); err != nil {
		t.Fatal(err)
	}
	query := func(words ...string) memory.IndexQuery {
		q := memory.IndexQuery{Dir: "memory", Limit: 20}
		for _, w := range words {
			q.Phrases = append(q.Phrases, memory.IndexPhrase{Terms: []string{w}})
		}
		return q
	}
	for _, w := range []string{"red", "blue", "green"} { // builds the lists
		if _, err := m.MemorySearch(ctx, query(w)); err != nil {
			t.Fatal(err)
		}
	}
	q := query("red", "blue")
	if n, counted, err := m.requiredFromLists(ctx, q); err != nil || counted == nil || n != 0 {
		t.Fatalf("red blue from the lists: %d notes, from the lists %v, %v; want 0 from the lists", n, counted != nil, err)
	}
	if got, ok, err := m.impactSearch(ctx, q, q.Limit); err != nil || !ok || len(got) != 0 {
		t.Fatalf("red blue: %d hits, answered %v, %v; want an empty answer", len(got), ok, err)
	}
	// red and green: 1,200 notes, ranked from the lists as FTS5 ranks them.
	q = query("red", "green")
	if n, counted, err := m.requiredFromLists(ctx, q); err != nil || counted == nil || n != impactRare+1 {
		t.Fatalf("red green from the lists: %d notes, from the lists %v, %v; want %d", n, counted != nil, err, impactRare+1)
	}
	q.Limit = 40
	want := ftsTop(t, m, q)
	q.Limit = 20
	got, ok, err := m.impactSearch(ctx, q, q.Limit)
	if err != nil || !ok {
		t.Fatalf("red green: not answered by the lists (%v)", err)
	}
	sameRanking(t, ftsMatch(q), got, want, q.Limit, 1e-9)
	// A note with both red and blue: found, by FTS5 (one note).
	if err := m.MemoryUpsert(ctx, "memory", []memory.IndexNote{{Path: "semantic/both.md", Tier: "semantic", ID: "both", Hash: "h", Body: "red blue"}}); err != nil {
		t.Fatal(err)
	}
	q = query("red", "blue")
	if n, counted, err := m.requiredFromLists(ctx, q); err != nil || counted == nil || n != 1 {
		t.Fatalf("after the write, red blue from the lists: %d notes, from the lists %v, %v; want 1", n, counted != nil, err)
	}
	hits, err := m.MemorySearch(ctx, q)
	if err != nil || len(hits) != 1 || hits[0].Path != "semantic/both.md" {
		t.Fatalf("after the write, red blue: %+v, %v; want semantic/both.md", hits, err)
	}
}
