package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/postgres"
)

// TestMemoryNotesCompressedWithLZ4: the notes a bulk load copies and the
// notes an upsert writes are compressed with lz4 when the server has it
// (pglz cost the server 2.6–3.4× the time of a 100,000-note load).
func TestMemoryNotesCompressedWithLZ4(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	var lz4 bool
	if err := s.Pool().QueryRow(ctx, `SELECT coalesce((SELECT 'lz4' = ANY (enumvals) FROM pg_settings WHERE name = 'default_toast_compression'), false)`).Scan(&lz4); err != nil {
		t.Fatal(err)
	}
	if !lz4 {
		t.Skip("this PostgreSQL has no lz4")
	}
	m := postgres.NewMemoryIndex(s.DB)
	note := func(i int) memory.IndexNote {
		body := strings.Repeat(fmt.Sprintf("note %d says the failover drill passed again. ", i), 200) // ~9 KB
		return memory.IndexNote{Path: fmt.Sprintf("semantic/n%d.md", i), Tier: "semantic", ID: fmt.Sprint(i), Title: "drill", Body: body, Size: int64(len(body)), Hash: "h"}
	}
	if err := m.BeginBulk(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.MemoryUpsert(ctx, "memory", []memory.IndexNote{note(1), note(2)}); err != nil {
		t.Fatal(err)
	}
	if err := m.EndBulk(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.MemoryUpsert(ctx, "memory", []memory.IndexNote{note(3), note(1)}); err != nil { // not a bulk load: the upsert
		t.Fatal(err)
	}
	rows, err := s.Pool().Query(ctx, `SELECT path, coalesce(pg_column_compression(body), 'none') FROM memory_notes ORDER BY path`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var path, method string
		if err := rows.Scan(&path, &method); err != nil {
			t.Fatal(err)
		}
		n++
		if method != "lz4" {
			t.Errorf("%s: body compressed with %s, want lz4", path, method)
		}
	}
	if n != 3 {
		t.Errorf("%d notes, want 3", n)
	}
}
