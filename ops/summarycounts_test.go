package ops_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// The notes part of graph_summary read from the memory index (counts by
// tier and tag as its tables hold them, a note written on disk behind the
// service's back included after the refresh) is the one counted from the
// listing when there is no index; the stale count follows memory verify.
func TestNotesSummaryFromIndex(t *testing.T) {
	env := opstest.NewFull(t)
	ctx := context.Background()
	write := func(in string) {
		t.Helper()
		op, _ := env.Table.Lookup("memory_write")
		if oc := env.Table.Call(ctx, op, json.RawMessage(in), "mcp"); oc.Err != nil {
			t.Fatalf("memory_write: %v", oc.Err)
		}
	}
	for _, tier := range memory.Tiers {
		if err := os.MkdirAll(filepath.Join(env.WS.Root, "memory", tier), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"memory_type": "semantic", "title": "Alpha first", "content": "alpha comes first.", "tags": ["greek", "order"], "evidence": ["notes.txt:1"]}`)
	write(`{"memory_type": "procedural", "title": "Run make", "content": "Run make to install.", "tags": ["install"], "evidence": ["README.md:7"]}`)
	write(`{"memory_type": "episodic", "title": "Deploy failed", "content": "The deploy failed once.", "tags": ["deploy", "order"]}`)
	note := "---\nmemory_entry_id: sem-20260101-099\ntitle: \"By hand\"\nmemory_type: semantic\ntags: [\"greek\"]\ncreated: \"2026-01-01T00:00:00Z\"\nupdated: \"2026-01-01T00:00:00Z\"\n---\n\nWritten by hand.\n"
	if err := os.WriteFile(filepath.Join(env.WS.Root, "memory", "semantic", "by-hand.md"), []byte(note), 0o644); err != nil {
		t.Fatal(err)
	}
	tl := &graph.Tools{Store: env.Graph.Store}
	indexed, err := ops.Summarize(ctx, tl, env.Memory, ops.SummaryInput{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := memory.New(memory.Options{FS: env.FS})
	if err != nil {
		t.Fatal(err)
	}
	listed, err := ops.Summarize(ctx, tl, plain, ops.SummaryInput{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if indexed.Notes == nil || indexed.Notes.Notes != 5 || !reflect.DeepEqual(indexed.Notes, listed.Notes) {
		t.Fatalf("from the index %+v, from the listing %+v", indexed.Notes, listed.Notes)
	}
	if got := indexed.Notes.ByTag[1]; got.Type != "greek" || got.Count != 2 || indexed.Notes.TagTotal != 4 {
		t.Errorf("by tag: %+v (%d tags)", indexed.Notes.ByTag, indexed.Notes.TagTotal)
	}
	env.WS.Write("notes.txt", "omega\nbeta\ngamma\ndelta\n")
	if _, err := env.Memory.Verify(ctx, memory.VerifyInput{By: "test"}); err != nil {
		t.Fatal(err)
	}
	s, err := ops.Summarize(ctx, tl, env.Memory, ops.SummaryInput{})
	if err != nil || s.Notes.Stale != 1 || s.Notes.Notes != 5 {
		t.Fatalf("after verify: %v %+v", err, s.Notes)
	}
}
