package stores_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/stores"
	"github.com/retrieve-dev/retrieve/store/storetest"
)

// SQLite FTS5 (bm25) and PostgreSQL (ts_rank_cd) agree on the first note
// for every query of the fixed corpus, and find the same notes for every
// exact query.
func TestMemoryRankingAgrees(t *testing.T) {
	ctx := context.Background()
	var idx []stores.MemoryIndex
	for _, spec := range []string{filepath.Join(t.TempDir(), "m.db"), pgtest.URL(t, "postgres_rank")} {
		tg, err := stores.Parse(spec, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		m, err := stores.OpenMemoryIndex(ctx, tg)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		if err := m.MemoryUpsert(ctx, "memory", storetest.MemoryCorpus); err != nil {
			t.Fatal(err)
		}
		idx = append(idx, m)
	}
	for _, q := range storetest.MemoryQueries {
		var got [2][]string
		for i, m := range idx {
			hits, err := m.MemorySearch(ctx, store.MemoryQuery{Dir: "memory", Match: q.Match, Tier: q.Tier})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				got[i] = append(got[i], h.Path)
			}
		}
		if len(got[0]) == 0 || got[0][0] != got[1][0] {
			t.Errorf("%s: SQLite ranks %v, PostgreSQL %v", q.Match, got[0], got[1])
		}
		if strings.Contains(q.Match, "*") {
			// A prefix query: SQLite's porter tokenizer stems the prefix
			// ("deploy"* looks for deploi*), PostgreSQL's simple
			// configuration does not, so PostgreSQL may find more; what
			// SQLite finds, it finds too (docs/store.md).
			for _, p := range got[0] {
				if !slices.Contains(got[1], p) {
					t.Errorf("%s: SQLite finds %s, PostgreSQL does not (%v)", q.Match, p, got[1])
				}
			}
			continue
		}
		a, b := slices.Clone(got[0]), slices.Clone(got[1])
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			t.Errorf("%s: SQLite finds %v, PostgreSQL %v", q.Match, got[0], got[1])
		}
	}
}
