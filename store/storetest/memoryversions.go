package storetest

import (
	"context"
	"testing"

	"github.com/retrieve-dev/retrieve/memory"
)

// testMemoryVersions: a write that changes a note keeps the text it
// replaces (from its created, or the previous version's end, to the new
// file's mtime); the same text again keeps nothing; a delete keeps the
// last text; a reset keeps them all; another folder's are apart.
func testMemoryVersions(t *testing.T, open MemoryOpener) {
	ctx := context.Background()
	m := open(t)
	vi, ok := m.(memory.VersionIndex)
	if !ok {
		t.Fatalf("%T keeps no versions", m)
	}
	note := func(hash, body string, mtime int64) memory.IndexNote {
		return memory.IndexNote{Path: "semantic/a.md", Tier: "semantic", ID: "a", Title: "A " + body, Body: body, Hash: hash, ModTime: mtime, Recorded: 100}
	}
	for _, n := range []memory.IndexNote{note("h1", "first", 150), note("h2", "second", 200), note("h2", "second", 200), note("h3", "third", 300)} {
		if err := m.MemoryUpsert(ctx, "memory", []memory.IndexNote{n}); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.MemoryUpsert(ctx, "other", []memory.IndexNote{note("x1", "other", 150)}); err != nil {
		t.Fatal(err)
	}
	vs, err := vi.MemoryVersions(ctx, "memory", []string{"semantic/a.md"})
	if err != nil {
		t.Fatal(err)
	}
	got := vs["semantic/a.md"]
	if len(got) != 2 || got[0].Hash != "h1" || got[0].Body != "first" || got[0].From != 100 || got[0].To != 200 ||
		got[1].Hash != "h2" || got[1].Title != "A second" || got[1].From != 200 || got[1].To != 300 {
		t.Fatalf("versions = %+v", got)
	}
	if err := m.MemoryDelete(ctx, "memory", []string{"semantic/a.md"}); err != nil {
		t.Fatal(err)
	}
	if err := m.MemoryReset(ctx, "memory"); err != nil {
		t.Fatal(err)
	}
	vs, err = vi.MemoryVersions(ctx, "memory", nil)
	if err != nil {
		t.Fatal(err)
	}
	got = vs["semantic/a.md"]
	if len(vs) != 1 || len(got) != 3 || got[2].Hash != "h3" || got[2].Body != "third" || got[2].From != 300 || got[2].To <= 300 {
		t.Fatalf("versions after a delete and a reset = %+v", vs)
	}
}
