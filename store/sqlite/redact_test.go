package sqlite_test

import (
	"context"
	dbsql "database/sql"
	"path/filepath"
	"testing"

	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/sqlite"
	"github.com/retrieve-dev/retrieve/store/storetest"
)

// TestSecurityRedactionMigration: ledger rows written with URL
// credentials lose them when the store is migrated.
func TestSecurityRedactionMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "retrieve.db")
	storetest.RedactionMigration(t, func(t *testing.T, entries []*store.Entry) {
		s, err := sqlite.OpenStore(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if err := s.Append(context.Background(), e); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		raw, err := dbsql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		if _, err := raw.Exec(`DELETE FROM schema_migrations WHERE component = 'ledger' AND version >= 4`); err != nil {
			t.Fatal(err)
		}
	}, func(t *testing.T) store.Store {
		s, err := sqlite.OpenStore(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
