package stores_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/stores"
	"github.com/retrieve-dev/retrieve/store/storetest"
)

// SQLite FTS5 (bm25) and PostgreSQL (ts_rank_cd) agree on the first note
// for every query of the fixed multilingual corpus, and find the same notes:
// both index the same application-made terms (intl.IndexText).
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
		if err := m.MemoryUpsert(ctx, "memory", slices.Concat(storetest.MemoryCorpus, storetest.MemoryCorpusIntl)); err != nil {
			t.Fatal(err)
		}
		idx = append(idx, m)
	}
	for _, q := range storetest.MemoryQueries {
		var got [2][]string
		for i, m := range idx {
			hits, err := memory.SearchIndex(ctx, m, memory.IndexQuery{Dir: "memory", Tier: q.Tier}, q.Text)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				got[i] = append(got[i], h.Path)
			}
		}
		if len(got[0]) == 0 || got[0][0] != got[1][0] {
			t.Errorf("%s: SQLite ranks %v, PostgreSQL %v", q.Text, got[0], got[1])
		}
		a, b := slices.Clone(got[0]), slices.Clone(got[1])
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			t.Errorf("%s: SQLite finds %v, PostgreSQL %v", q.Text, got[0], got[1])
		}
	}
}
