package storetest

import (
	"context"
	"testing"

	"github.com/retrieve-dev/retrieve/store"
)

// MemoryOpener returns a new, empty memory index for one test.
type MemoryOpener func(t *testing.T) store.MemoryIndex

// MemoryCorpus is a fixed corpus of notes; MemoryQueries are searches of
// it with the note each must rank first. Both stores are held to them,
// so that their rankings agree on the top result.
var MemoryCorpus = []store.MemoryNote{
	{Path: "semantic/postgres.md", Tier: "semantic", ID: "postgres", Title: "PostgreSQL deployment", Tags: []string{"database", "ops"},
		Body: "Run the replicas behind a load balancer. The pool size is eight connections per replica."},
	{Path: "semantic/sqlite.md", Tier: "semantic", ID: "sqlite", Title: "SQLite store", Tags: []string{"database"},
		Body: "One file in WAL mode. The busy timeout is thirty seconds; PostgreSQL is for teams."},
	{Path: "episodic/2026-01-02.md", Tier: "episodic", ID: "e1", Title: "Outage review", Tags: []string{"incident"},
		Body: "PostgreSQL restarted at noon; the replicas reconnected on their own. The load balancer kept serving."},
	{Path: "procedural/deploy.md", Tier: "procedural", ID: "deploy", Title: "How to deploy", Tags: []string{"ops", "release"},
		Body: "Build the binary, run the migrations, then roll the replicas one by one."},
	{Path: "semantic/citations.md", Tier: "semantic", ID: "cite", Title: "Citations", Tags: []string{"ledger"},
		Body: "Every citation carries a sha256 hash of the bytes it quotes and can be verified later."},
}

// MemoryQueries pairs a match expression (as the memory service writes
// them) with the path that must rank first.
var MemoryQueries = []struct{ Match, Tier, Top string }{
	{`"postgresql"*`, "", "semantic/postgres.md"}, // title beats body
	{`"busy"*`, "", "semantic/sqlite.md"},
	{`"pool"* AND "replica"*`, "", "semantic/postgres.md"},
	{`"replicas"*`, "episodic", "episodic/2026-01-02.md"}, // tier filter
	{`"deploy"*`, "", "procedural/deploy.md"},             // prefix: deploy → deployment too, title of both
	{`"sha256"*`, "", "semantic/citations.md"},
	{`"verif"*`, "", "semantic/citations.md"}, // prefix
	{`"zebra"* OR "citation"*`, "", "semantic/citations.md"},
}

// RunMemory runs the conformance suite of store.MemoryIndex.
func RunMemory(t *testing.T, open MemoryOpener) {
	ctx := context.Background()
	t.Run("Memory/OK", func(t *testing.T) {
		m := open(t)
		if err := m.MemoryUpsert(ctx, "memory", MemoryCorpus); err != nil {
			t.Fatal(err)
		}
		if err := m.MemoryUpsert(ctx, "other", MemoryCorpus[:1]); err != nil {
			t.Fatal(err)
		}
		st, err := m.MemoryStates(ctx, "memory")
		if err != nil || len(st) != len(MemoryCorpus) {
			t.Fatalf("states: %d, %v", len(st), err)
		}
		for _, q := range MemoryQueries {
			hits, err := m.MemorySearch(ctx, store.MemoryQuery{Dir: "memory", Match: q.Match, Tier: q.Tier})
			if err != nil {
				t.Fatalf("%s: %v", q.Match, err)
			}
			if len(hits) == 0 || hits[0].Path != q.Top {
				t.Errorf("%s (tier %q): top %v, want %s", q.Match, q.Tier, paths(hits), q.Top)
				continue
			}
			if hits[0].Score <= 0 || hits[0].Snippet == "" || hits[0].Title == "" || len(hits[0].Tags) == 0 {
				t.Errorf("%s: hit %+v lacks a score, snippet, title or tags", q.Match, hits[0])
			}
			for i := 1; i < len(hits); i++ {
				if hits[i].Score > hits[i-1].Score {
					t.Errorf("%s: hits not best first: %v", q.Match, hits)
				}
			}
		}
		// Update: the new text is searched, the old is not.
		n := MemoryCorpus[4]
		n.Body = "Nothing about hashes any more: zebras."
		if err := m.MemoryUpsert(ctx, "memory", []store.MemoryNote{n}); err != nil {
			t.Fatal(err)
		}
		if hits, _ := m.MemorySearch(ctx, store.MemoryQuery{Dir: "memory", Match: `"sha256"*`}); len(hits) != 0 {
			t.Errorf("the old text is still found: %v", paths(hits))
		}
		if hits, _ := m.MemorySearch(ctx, store.MemoryQuery{Dir: "memory", Match: `"zebras"*`}); len(hits) != 1 {
			t.Errorf("the new text is not found: %v", paths(hits))
		}
		if err := m.MemoryDelete(ctx, "memory", []string{"semantic/postgres.md", "absent.md"}); err != nil {
			t.Fatal(err)
		}
		if hits, _ := m.MemorySearch(ctx, store.MemoryQuery{Dir: "memory", Match: `"pool"*`}); len(hits) != 0 {
			t.Errorf("a deleted note is found: %v", paths(hits))
		}
		if err := m.MemoryReset(ctx, "memory"); err != nil {
			t.Fatal(err)
		}
		if st, _ := m.MemoryStates(ctx, "memory"); len(st) != 0 {
			t.Errorf("%d notes after reset", len(st))
		}
		if st, _ := m.MemoryStates(ctx, "other"); len(st) != 1 {
			t.Errorf("reset of one folder touched another: %d notes", len(st))
		}
	})
}

func paths(hs []store.MemoryHit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Path)
	}
	return out
}
