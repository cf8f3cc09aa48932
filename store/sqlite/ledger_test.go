package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/sqlite"
	"github.com/retrieve-dev/retrieve/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := sqlite.OpenStore(context.Background(), filepath.Join(t.TempDir(), ".retrieve", "retrieve.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestMemoryConformance(t *testing.T) {
	storetest.RunMemory(t, func(t *testing.T) memory.Index {
		m, err := sqlite.OpenMemoryIndex(context.Background(), filepath.Join(t.TempDir(), ".retrieve", "retrieve.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m
	})
}
