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
		m, err := stores.OpenMemoryIndex(ctx, tg, nil)
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

// TestMemoryIndexOnTheStore: on an open store, the memory index shares
// its connections where the backend can (PostgreSQL: no pool of its own,
// what a CLI run saves), and closing the index leaves the store open; on
// SQLite it opens its own, as before. Either way it reads what the
// index on its own connections wrote.
func TestMemoryIndexOnTheStore(t *testing.T) {
	ctx := context.Background()
	for _, spec := range []string{filepath.Join(t.TempDir(), "m.db"), pgtest.URL(t, "postgres_memshare")} {
		tg, err := stores.Parse(spec, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		own, err := stores.OpenMemoryIndex(ctx, tg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := own.MemoryUpsert(ctx, "memory", storetest.MemoryCorpus); err != nil {
			t.Fatal(err)
		}
		_ = own.Close()
		st, err := stores.Open(ctx, tg, stores.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for round := 0; round < 2; round++ {
			idx, err := stores.OpenMemoryIndex(ctx, tg, st)
			if err != nil {
				t.Fatal(err)
			}
			c, err := idx.MemoryCounts(ctx, "memory")
			if err != nil || c.Notes != len(storetest.MemoryCorpus) {
				t.Fatalf("%s, round %d: counts %+v, %v; want %d notes", tg.Kind, round, c, err, len(storetest.MemoryCorpus))
			}
			if err := idx.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if p, ok := st.(interface{ Ping(context.Context) error }); ok {
			if err := p.Ping(ctx); err != nil {
				t.Fatalf("%s: the store after the index closed: %v", tg.Kind, err)
			}
		}
		_ = st.Close()
	}
}
