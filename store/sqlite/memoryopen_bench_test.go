package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// BenchmarkOpenMemoryIndex opens an up-to-date store's memory index and
// closes it, as each CLI memory command does before its first query.
func BenchmarkOpenMemoryIndex(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "s.db")
	m, err := sqlite.OpenMemoryIndex(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	m.Close()
	for b.Loop() {
		m, err := sqlite.OpenMemoryIndex(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		m.Close()
	}
}
