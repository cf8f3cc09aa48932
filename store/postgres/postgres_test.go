package postgres_test

import (
	"context"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/postgres"
	"github.com/retrieve-dev/retrieve/store/storetest"
)

func open(t testing.TB) *postgres.Store {
	t.Helper()
	s, err := postgres.OpenStore(context.Background(), pgtest.URL(t, "postgres_test"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return open(t) })
}
