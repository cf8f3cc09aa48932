package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/postgres"
	"github.com/retrieve-dev/retrieve/store/storetest"
)

func open(t testing.TB) *postgres.Store {
	t.Helper()
	s, err := postgres.OpenStore(context.Background(), pgtest.URL(t, "postgres_test"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return open(t) })
}

func TestMemoryConformance(t *testing.T) {
	storetest.RunMemory(t, func(t *testing.T) store.MemoryIndex {
		m, err := postgres.OpenMemoryIndex(context.Background(), pgtest.URL(t, "postgres_memory"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m
	})
}

func TestFTSToTSQuery(t *testing.T) {
	for in, want := range map[string]string{
		`"replicas"*`:                   `'replicas':*`,
		`"pool"* AND "Size"*`:           `'pool':* & 'size':*`,
		`"a b"* OR "c"`:                 `'a' <-> 'b':* | 'c'`,
		`"it""s"*`:                      `'it' <-> 's':*`,
		`"déjà-vu"*`:                    `'déjà' <-> 'vu':*`,
		`"x'); DROP TABLE ledger; --"*`: `'x' <-> 'drop' <-> 'table' <-> 'ledger':*`,
	} {
		got, ok := postgres.FTSToTSQuery(in)
		if !ok || got != want {
			t.Errorf("%s → %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{``, `"unclosed`, `plain words`, `"a" AND`, `"a" NEAR "b"`, `"!!"`} {
		if got, ok := postgres.FTSToTSQuery(bad); ok {
			t.Errorf("%s → %q, accepted", bad, got)
		}
	}
}

// Any other query goes through websearch_to_tsquery, which accepts
// anything: no error, whatever the user typed.
func TestMemorySearchAnyText(t *testing.T) {
	m, err := postgres.OpenMemoryIndex(context.Background(), pgtest.URL(t, "postgres_memany"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	if err := m.MemoryUpsert(ctx, "memory", storetest.MemoryCorpus); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`"unclosed`, `pool -replica`, `'); DROP TABLE memory_notes; --`, `"load balancer"`, "\x00"} {
		if _, err := m.MemorySearch(ctx, store.MemoryQuery{Dir: "memory", Match: q}); err != nil {
			t.Errorf("%q: %v", q, err)
		}
	}
	hits, err := m.MemorySearch(ctx, store.MemoryQuery{Dir: "memory", Match: `"load balancer" -outage`})
	if err != nil || len(hits) != 1 || hits[0].Path != "semantic/postgres.md" {
		t.Errorf("websearch syntax: %v %v", hits, err)
	}
}

func FuzzFTSToTSQuery(f *testing.F) {
	for _, s := range []string{`"a"*`, `"a" AND "b"*`, `"a""b" OR "c"`, `"`, `"a" AND`, "\"\xff\"*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, ok := postgres.FTSToTSQuery(s)
		if ok && strings.ContainsAny(strings.ReplaceAll(strings.ReplaceAll(q, "':*", ""), "'", ""), `"\()!`) {
			t.Fatalf("%q → %q: a character outside a lexeme", s, q)
		}
	})
}
