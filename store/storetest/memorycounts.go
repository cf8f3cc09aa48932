package storetest

import (
	"context"
	"reflect"
	"testing"

	"github.com/retrieve-dev/retrieve/memory"
)

// testMemoryCounts: MemoryCounts counts one folder's notes by tier and by
// tag, not another folder's, and follows an upsert and a delete; so does
// MemoryCount (memory.IndexCounter), which a full check trusts.
func testMemoryCounts(t *testing.T, open MemoryOpener) {
	ctx := context.Background()
	m := open(t)
	counter, _ := m.(memory.IndexCounter)
	sameCount := func(dir string, want int) {
		t.Helper()
		if counter == nil {
			return
		}
		if n, err := counter.MemoryCount(ctx, dir); err != nil || n != want {
			t.Fatalf("MemoryCount(%s) %d, %v; want %d", dir, n, err, want)
		}
	}
	sameCount("memory", 0)
	notes := []memory.IndexNote{
		{Path: "semantic/a.md", Tier: "semantic", ID: "a", Title: "A", Tags: []string{"x", "y"}, Body: "a"},
		{Path: "semantic/b.md", Tier: "semantic", ID: "b", Title: "B", Tags: []string{"x"}, Body: "b"},
		{Path: "episodic/c.md", Tier: "episodic", ID: "c", Title: "C", Body: "c"},
	}
	if err := m.MemoryUpsert(ctx, "memory", notes); err != nil {
		t.Fatal(err)
	}
	if err := m.MemoryUpsert(ctx, "other", notes[:1]); err != nil {
		t.Fatal(err)
	}
	c, err := m.MemoryCounts(ctx, "memory")
	want := &memory.IndexCounts{Notes: 3, ByTier: map[string]int{"semantic": 2, "episodic": 1}, ByTag: map[string]int{"x": 2, "y": 1}}
	if err != nil || !reflect.DeepEqual(c, want) {
		t.Fatalf("counts %+v, %v; want %+v", c, err, want)
	}
	sameCount("memory", want.Notes)
	if err := m.MemoryDelete(ctx, "memory", []string{"semantic/a.md"}); err != nil {
		t.Fatal(err)
	}
	c, err = m.MemoryCounts(ctx, "memory")
	want = &memory.IndexCounts{Notes: 2, ByTier: map[string]int{"semantic": 1, "episodic": 1}, ByTag: map[string]int{"x": 1}}
	if err != nil || !reflect.DeepEqual(c, want) {
		t.Fatalf("after a delete: %+v, %v; want %+v", c, err, want)
	}
	sameCount("memory", want.Notes)
	// A note rewritten in another tier with other (repeated) tags moves
	// its counts; the same note written again changes nothing.
	moved := memory.IndexNote{Path: "semantic/b.md", Tier: "procedural", ID: "b", Title: "B", Tags: []string{"z", "z", "y"}, Body: "b"}
	for range 2 {
		if err := m.MemoryUpsert(ctx, "memory", []memory.IndexNote{moved}); err != nil {
			t.Fatal(err)
		}
	}
	c, err = m.MemoryCounts(ctx, "memory")
	want = &memory.IndexCounts{Notes: 2, ByTier: map[string]int{"procedural": 1, "episodic": 1}, ByTag: map[string]int{"z": 1, "y": 1}}
	if err != nil || !reflect.DeepEqual(c, want) {
		t.Fatalf("after a rewrite: %+v, %v; want %+v", c, err, want)
	}
	sameCount("memory", want.Notes)
	// A reset empties the folder's counts, not another folder's.
	if err := m.MemoryReset(ctx, "memory"); err != nil {
		t.Fatal(err)
	}
	c, err = m.MemoryCounts(ctx, "memory")
	want = &memory.IndexCounts{ByTier: map[string]int{}, ByTag: map[string]int{}}
	if err != nil || !reflect.DeepEqual(c, want) {
		t.Fatalf("after a reset: %+v, %v; want %+v", c, err, want)
	}
	sameCount("memory", want.Notes)
	c, err = m.MemoryCounts(ctx, "other")
	want = &memory.IndexCounts{Notes: 1, ByTier: map[string]int{"semantic": 1}, ByTag: map[string]int{"x": 1, "y": 1}}
	if err != nil || !reflect.DeepEqual(c, want) {
		t.Fatalf("the other folder after a reset: %+v, %v; want %+v", c, err, want)
	}
	sameCount("other", want.Notes)
}
