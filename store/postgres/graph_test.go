package postgres_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/graph/graphtest"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/store/postgres"
)

func openGraph(t *testing.T) graph.Store {
	g, err := postgres.OpenGraph(context.Background(), pgtest.URL(t, "pggraph"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

func TestGraphConformance(t *testing.T) { graphtest.Run(t, openGraph) }

func TestGraphAnalyze(t *testing.T) {
	g, err := postgres.OpenGraph(context.Background(), pgtest.URL(t, "pggraph_analyze"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.Analyze(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Tokens go through websearch_to_tsquery quoted: no text makes the search
// fail, and no operator in a token changes the query.
func TestGraphSearchAnyTokens(t *testing.T) {
	ctx := context.Background()
	tl := graphtest.Tools(t, openGraph)
	if _, err := tl.Ingest(ctx, graphtest.AcceptanceInput()); err != nil {
		t.Fatal(err)
	}
	for _, toks := range [][]string{{`"`}, {`'); DROP TABLE graph_nodes; --`}, {"!", "&", "|"}, {"\x00", "\xff"}, {"or", "-crash"}, {"<->", ":*"}, {}} {
		if _, err := tl.Store.SearchNodeNames(ctx, toks, 10); err != nil {
			t.Errorf("%q: %v", toks, err)
		}
		if _, err := tl.Store.SearchChunkNodes(ctx, toks, 10); err != nil {
			t.Errorf("%q: %v", toks, err)
		}
		if _, err := tl.Wiki.Index.SearchWiki(ctx, toks, 10); err != nil {
			t.Errorf("%q: %v", toks, err)
		}
	}
	ids, err := tl.Store.SearchNodeNames(ctx, []string{"crashes", "-leak"}, 10)
	if err != nil || len(ids) != 2 {
		t.Errorf("stemmed OR search = %v, %v; want both nodes", ids, err)
	}
}

// Every token becomes one quoted phrase: no quote, NUL or invalid UTF-8
// inside, so websearch_to_tsquery sees no operator from a token.
func FuzzOrQuery(f *testing.F) {
	for _, s := range []string{`a`, `"`, `a" or "b`, "\x00", "\xff", ` `, `-x`} {
		f.Add(s, "b")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		q := postgres.OrQuery([]string{a, b})
		if !utf8.ValidString(q) || strings.ContainsRune(q, 0) {
			t.Fatalf("%q", q)
		}
		for _, part := range strings.Split(q, `" or "`) {
			if strings.Count(strings.Trim(part, `"`), `"`) != 0 {
				t.Fatalf("%q, %q → %q: a quote inside a term", a, b, q)
			}
		}
	})
}

// Two pools on one schema (two serve replicas): ingest and forget at once
// leave no orphaned edge.
func TestGraphConcurrentForget(t *testing.T) {
	u := pgtest.URL(t, "pggraph_forget")
	var handles [2]graph.Store
	for i := range handles {
		g, err := postgres.OpenGraph(context.Background(), u)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.Close() })
		handles[i] = g
	}
	graphtest.RunConcurrentForget(t, handles[0], handles[1])
}

// Two processes on one schema (two serve replicas on two machines): one
// ingests while the other forgets; no orphaned edge, no lost document.
func TestGraphConcurrentForgetProcesses(t *testing.T) {
	open := func(t *testing.T, u string) graph.Store {
		g, err := postgres.OpenGraph(context.Background(), u)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { g.Close() })
		return g
	}
	if graphtest.ConcurrentForgetChild(t, open) {
		return
	}
	graphtest.RunConcurrentForgetProcesses(t, pgtest.URL(t, "pggraph_procs"), open)
}
