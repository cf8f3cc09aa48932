package ops_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/ops"
)

// TestMemoryListReuse: pages reuse one listing, and a note added between
// two calls is listed by the next one (its tier folder changed).
func TestMemoryListReuse(t *testing.T) {
	root := t.TempDir()
	note := func(i int) {
		p := filepath.Join(root, "memory", "semantic", fmt.Sprintf("n%05d.md", i))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("---\nmemory_entry_id: sem-20250101-%05d\ntitle: \"N\"\nmemory_type: semantic\ntags: [\"bulk\"]\n---\n\nB\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "memory", "semantic"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		note(i)
	}
	svc, err := memory.New(memory.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first, err := ops.ListMemory(ctx, svc, ops.MemoryListInput{Limit: 20})
	if err != nil || first.Total != 30 || first.NextCursor == "" {
		t.Fatalf("%+v %v", first, err)
	}
	second, err := ops.ListMemory(ctx, svc, ops.MemoryListInput{Limit: 20, Cursor: first.NextCursor})
	if err != nil || len(second.Entries) != 10 || second.NextCursor != "" {
		t.Fatalf("second page: %d entries, next %q, %v", len(second.Entries), second.NextCursor, err)
	}
	note(30)
	again, err := ops.ListMemory(ctx, svc, ops.MemoryListInput{Limit: 20})
	if err != nil || again.Total != 31 {
		t.Fatalf("a new note is not listed: total %d, %v", again.Total, err)
	}
}
