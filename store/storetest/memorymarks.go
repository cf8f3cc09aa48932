package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/memory"
)

// testMemoryMarks holds a store to the evidence and marks of issue 30:
// evidence rows found by source (any span), retrieval id and session;
// marks kept across a reset and read as of a time; retired notes left out
// of a search unless asked for; an as-of search leaves out notes recorded
// later.
func testMemoryMarks(t *testing.T, open MemoryOpener) {
	ctx := context.Background()
	idx := open(t)
	m, ok := idx.(memory.MarkIndex)
	if !ok {
		t.Fatalf("%T does not implement memory.MarkIndex", idx)
	}
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	notes := []memory.IndexNote{
		{Path: "semantic/a.md", Tier: "semantic", ID: "sem-1", Title: "Deploy token", Body: "staging token needed", Recorded: t0.UnixNano(),
			Evidence: []memory.Evidence{{Reference: "docs/deploy.md:12-20", RetrievalID: "r1", Hash: "sha256:aa"}, {Reference: "README.md:1-3", Hash: "sha256:bb"}}},
		{Path: "semantic/b.md", Tier: "semantic", ID: "sem-2", Title: "Deploy order", Body: "deploy the staging first", Recorded: t0.Add(48 * time.Hour).UnixNano(),
			Evidence: []memory.Evidence{{Reference: "docs/deploy.md:30-31", RetrievalID: "r2", Hash: "sha256:cc"}}, Session: "s1"},
		{Path: "semantic/c.md", Tier: "semantic", ID: "sem-3", Title: "Session only", Body: "staging seen in a session", Recorded: t0.UnixNano(), Session: "s1"},
	}
	if err := idx.MemoryUpsert(ctx, "memory", notes); err != nil {
		t.Fatal(err)
	}
	count := func(source, rid, sess string) map[string]int {
		t.Helper()
		rows, err := m.MemoryEvidence(ctx, "memory", source, rid, sess)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for _, r := range rows {
			out[r.Path]++
		}
		return out
	}
	if got := count(memory.SourceKey("docs/deploy.md"), "", ""); len(got) != 2 || got["semantic/a.md"] != 1 || got["semantic/b.md"] != 1 {
		t.Errorf("by source: %v", got)
	}
	if got := count("", "r2", ""); len(got) != 1 || got["semantic/b.md"] != 1 {
		t.Errorf("by retrieval id: %v", got)
	}
	if got := count("", "", "s1"); len(got) != 2 || got["semantic/c.md"] != 1 {
		t.Errorf("by session: %v", got)
	}
	if got := count("", "", ""); got["semantic/a.md"] != 2 {
		t.Errorf("all: %v", got)
	}
	// A re-index of a note replaces its evidence rows.
	n := notes[0]
	n.Evidence = n.Evidence[1:]
	if err := idx.MemoryUpsert(ctx, "memory", []memory.IndexNote{n}); err != nil {
		t.Fatal(err)
	}
	if got := count(memory.SourceKey("docs/deploy.md"), "", ""); got["semantic/a.md"] != 0 {
		t.Errorf("old evidence kept after re-index: %v", got)
	}
	testMemoryMarksSearch(t, idx, m, t0)
}

// testMemoryMarksSearch: marks retire notes from a search, as of a time;
// a reset keeps the marks.
func testMemoryMarksSearch(t *testing.T, idx memory.Index, m memory.MarkIndex, t0 time.Time) {
	ctx := context.Background()
	count := func() int {
		rows, err := m.MemoryEvidence(ctx, "memory", "", "", "")
		if err != nil {
			t.Fatal(err)
		}
		return len(rows)
	}
	search := func(q memory.IndexQuery) []string {
		t.Helper()
		q.Dir = "memory"
		hits, err := memory.SearchIndex(ctx, idx, q, "staging")
		if err != nil {
			t.Fatal(err)
		}
		return paths(hits)
	}
	if got := search(memory.IndexQuery{}); len(got) != 3 {
		t.Fatalf("before marks: %v", got)
	}
	t1 := t0.Add(72 * time.Hour)
	marks := []memory.Mark{
		{Path: "semantic/a.md", NoteID: "sem-1", Kind: memory.StatusStale, At: t1, By: "test", Reference: "README.md:1-3", Detail: "-old\n+new\n"},
		{Path: "semantic/c.md", NoteID: "sem-3", Kind: memory.StatusForgotten, At: t1.Add(time.Hour), By: "test", Reference: "session:s1"},
		// A mark of another note once at that path does not retire b.md.
		{Path: "semantic/b.md", NoteID: "sem-0", Kind: memory.StatusForgotten, At: t1, By: "test"},
	}
	if err := m.MemoryMark(ctx, "memory", marks); err != nil {
		t.Fatal(err)
	}
	if got := search(memory.IndexQuery{}); len(got) != 2 || contains(got, "semantic/c.md") {
		t.Errorf("a forgotten note is searched: %v", got)
	}
	if got := search(memory.IndexQuery{Retired: true}); len(got) != 3 {
		t.Errorf("retired: true leaves notes out: %v", got)
	}
	if got := search(memory.IndexQuery{AsOf: t1.UnixNano()}); len(got) != 3 {
		t.Errorf("as of before the forgetting: %v", got)
	}
	if got := search(memory.IndexQuery{AsOf: t0.Add(time.Hour).UnixNano()}); len(got) != 2 || contains(got, "semantic/b.md") {
		t.Errorf("as of before b.md was recorded: %v", got)
	}
	if got := search(memory.IndexQuery{AsOf: t0.Add(-time.Hour).UnixNano()}); len(got) != 0 {
		t.Errorf("as of before any note: %v", got)
	}
	all, err := m.MemoryMarks(ctx, "memory", nil, time.Time{})
	if err != nil || len(all) != 3 || all[0].Detail != "-old\n+new\n" && all[1].Detail != "-old\n+new\n" {
		t.Errorf("marks: %+v, %v", all, err)
	}
	early, err := m.MemoryMarks(ctx, "memory", []string{"semantic/c.md"}, t1)
	if err != nil || len(early) != 0 {
		t.Errorf("marks of c.md as of before it was forgotten: %+v, %v", early, err)
	}
	none, err := m.MemoryMarks(ctx, "memory", []string{}, time.Time{})
	if err != nil || len(none) != 0 {
		t.Errorf("marks of no path: %+v, %v", none, err)
	}
	// A reset (memory reindex) drops the evidence rows with the notes, and
	// keeps the marks.
	if err := idx.MemoryReset(ctx, "memory"); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Errorf("evidence after reset: %d rows", n)
	}
	if all, _ := m.MemoryMarks(ctx, "memory", nil, time.Time{}); len(all) != 3 {
		t.Errorf("marks after reset: %d", len(all))
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
