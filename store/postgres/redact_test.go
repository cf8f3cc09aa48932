package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/postgres"
	"github.com/retrieve-dev/retrieve/store/storetest"
)

// TestSecurityRedactionMigration: ledger rows written with URL
// credentials lose them when the store is migrated.
func TestSecurityRedactionMigration(t *testing.T) {
	url := pgtest.URL(t, "postgres_redact")
	ctx := context.Background()
	storetest.RedactionMigration(t, func(t *testing.T, entries []*store.Entry) {
		s, err := postgres.OpenStore(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if err := s.Append(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		raw, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close(ctx)
		if _, err := raw.Exec(ctx, `DELETE FROM schema_migrations WHERE component = 'ledger' AND version >= 3`); err != nil {
			t.Fatal(err)
		}
	}, func(t *testing.T) store.Store {
		s, err := postgres.OpenStore(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
