package sqlite_test

import (
	"context"
	"encoding/hex"
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

// The tamper-evident log's suite, with a second handle on the same file
// as a second process has.
func TestLogConformance(t *testing.T) {
	storetest.RunLog(t, func(t *testing.T) (store.Store, store.Store, storetest.Tamper) {
		path := filepath.Join(t.TempDir(), ".retrieve", "retrieve.db")
		var handles []store.Store
		for range 2 {
			s, err := sqlite.OpenStore(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			handles = append(handles, s)
		}
		raw := handles[0].(*sqlite.Store).SQL()
		return handles[0], handles[1], storetest.Tamper{
			Exec: func(t *testing.T, q string) {
				if _, err := raw.Exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			},
			Blob: func(b []byte) string { return "x'" + hex.EncodeToString(b) + "'" },
			// The leaf is in the entry's row (ledger migration 6).
			MoveLeaf:   "UPDATE ledger SET pos = $2 WHERE pos = $1",
			DeleteLeaf: "UPDATE ledger SET leaf = NULL WHERE pos = $1",
			SetLeaf:    "UPDATE ledger SET leaf = $2 WHERE pos = $1",
		}
	})
}
