package postgres_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/memory"
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

// TestShared: a PostgreSQL store is a team's, so private pages stay out.
func TestShared(t *testing.T) {
	if !store.IsShared(open(t)) {
		t.Fatal("store.IsShared(PostgreSQL store) = false, want true")
	}
}

func TestMemoryConformance(t *testing.T) {
	storetest.RunMemory(t, func(t *testing.T) memory.Index {
		m, err := postgres.OpenMemoryIndex(context.Background(), pgtest.URL(t, "postgres_memory"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m
	})
}

func TestTSQueryLiteral(t *testing.T) {
	for in, want := range map[string]string{
		"replicas":             `'replica'`,
		"pool size":            `'pool' & 'size'`,
		"服务崩溃":                 `('服务' <-> '务崩' <-> '崩溃')`,
		"it's":                 `'it' & 's'`,
		`x'); DROP TABLE a; \`: `'x' & 'drop' & 'tabl' & 'a'`,
	} {
		q := memory.IndexSearches(memory.IndexQuery{}, in)[0]
		if got := postgres.TSQueryLiteral(q); got != want {
			t.Errorf("%s → %q; want %q", in, got, want)
		}
	}
	q := memory.IndexQuery{Phrases: []memory.IndexPhrase{{Terms: []string{`a'b\c`}, Prefix: true}, {Terms: []string{"d"}}}, Any: true}
	if got, want := postgres.TSQueryLiteral(q), `'a''b\\c':* | 'd'`; got != want {
		t.Errorf("quoting: %q, want %q", got, want)
	}
}

// Whatever the user typed, the analyzed query is a valid tsquery: no
// error, and quotes or operators are plain text.
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
	for _, q := range []string{`"unclosed`, `pool -replica`, `'); DROP TABLE memory_notes; --`, `"load balancer"`, "\x00", `a\'b`, "a:*", "\xff\xfe", "!!"} {
		if _, err := memory.SearchIndex(ctx, m, memory.IndexQuery{Dir: "memory"}, q); err != nil {
			t.Errorf("%q: %v", q, err)
		}
	}
	hits, err := memory.SearchIndex(ctx, m, memory.IndexQuery{Dir: "memory"}, `"load balancer" -outage`)
	if err != nil || len(hits) != 1 || hits[0].Path != "episodic/2026-01-02.md" { // load, balancer and outage
		t.Errorf("operators as words: %v %v", hits, err)
	}
}

func FuzzTSQueryLiteral(f *testing.F) {
	for _, s := range []string{"a", "a b", "a'b", `a\b`, "服务崩溃 crash", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, q := range memory.IndexSearches(memory.IndexQuery{}, s) {
			lit := postgres.TSQueryLiteral(q)
			// Outside quoted lexemes only operators, parentheses and :* remain.
			rest, inQuote := strings.Builder{}, false
			for i := 0; i < len(lit); i++ {
				c := lit[i]
				switch {
				case c == '\'' && inQuote && i+1 < len(lit) && lit[i+1] == '\'':
					i++
				case c == '\'':
					inQuote = !inQuote
				case c == '\\' && inQuote:
					i++
				case !inQuote:
					rest.WriteByte(c)
				}
			}
			if inQuote || strings.Trim(rest.String(), " &|()<->:*") != "" {
				t.Fatalf("%q → %q: %q outside lexemes", s, lit, rest.String())
			}
		}
	})
}

// The tamper-evident log's suite, with two pools on one schema as two
// replicas have.
func TestLogConformance(t *testing.T) {
	storetest.RunLog(t, func(t *testing.T) (store.Store, store.Store, storetest.Tamper) {
		u := pgtest.URL(t, "postgres_log")
		var handles []*postgres.Store
		for range 2 {
			s, err := postgres.OpenStore(context.Background(), u)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			handles = append(handles, s)
		}
		return handles[0], handles[1], storetest.Tamper{
			Exec: func(t *testing.T, q string) {
				if _, err := handles[0].Pool().Exec(context.Background(), q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			},
			Blob: func(b []byte) string { return `'\x` + hex.EncodeToString(b) + `'::bytea` },
		}
	})
}

// Ledger migration 4 builds the leaves of the entries a store had before
// it, in id (time) order, and appends continue after them.
func TestLeavesMigration(t *testing.T) {
	ctx := context.Background()
	u := pgtest.URL(t, "postgres_leaves")
	s, err := postgres.OpenStore(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if err := s.Append(ctx, newEntry(fmt.Sprintf("m%d.md", i))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Pool().Exec(ctx, `DROP TABLE ledger_leaves, ledger_log; DELETE FROM schema_migrations WHERE component = 'ledger' AND version = 4`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = postgres.OpenStore(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Append(ctx, newEntry("after.md")); err != nil {
		t.Fatal(err)
	}
	leaves, err := s.Leaves(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(leaves) != 5 {
		t.Fatalf("%d leaves, want 5", len(leaves))
	}
	for i := 1; i < 4; i++ {
		if leaves[i-1].ID >= leaves[i].ID {
			t.Errorf("leaf %d (%s) is not after leaf %d (%s)", i, leaves[i].ID, i-1, leaves[i-1].ID)
		}
	}
	if rep := storetest.Audit(t, s, nil, nil); !rep.Consistent || rep.Size != 5 {
		t.Fatalf("audit: %v, size %d, %+v", rep.Consistent, rep.Size, rep.Findings)
	}
}

// Appends wait for the WAL flush (durability unchanged) unless the URL
// sets synchronous_commit=off.
func TestAppendSynchronousCommit(t *testing.T) {
	ctx := context.Background()
	u := pgtest.URL(t, "postgres_sync")
	for _, c := range []struct {
		url   string
		async bool
	}{{u, false}, {u + "&synchronous_commit=on", false}, {u + "&synchronous_commit=off", true}} {
		s, err := postgres.OpenStore(ctx, c.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(s.AppendStmt(), "set_config('synchronous_commit', 'off', true)"); got != c.async {
			t.Errorf("%s: async append %v, want %v", postgres.Redact(c.url), got, c.async)
		}
		if err := s.Append(ctx, newEntry("sync.md")); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
}
