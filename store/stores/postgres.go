package stores

import (
	"context"
	"net/url"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/postgres"
)

// postgresBackend is the shared store: a PostgreSQL database.
var postgresBackend = Backend{
	Kind:    KindPostgres,
	Schemes: []string{"postgres", "postgresql"},
	Parse: func(raw, expanded, _ string) (Target, error) {
		if _, err := url.Parse(expanded); err != nil {
			return Target{}, retrieve.Errorf(retrieve.CodeInputValidation, "the store URL %s is not a URL", postgres.Redact(raw)).
				WithHint("write it as postgres://user@host:5432/dbname?sslmode=require")
		}
		return Target{Kind: KindPostgres, URL: expanded}, nil
	},
	Open: func(ctx context.Context, t Target, opts Options) (store.Store, error) {
		return postgres.OpenStoreWith(ctx, t.URL, postgres.Options{NoMigrate: opts.NoMigrate})
	},
	OpenMemoryIndex: func(ctx context.Context, t Target) (MemoryIndex, error) {
		return postgres.OpenMemoryIndex(ctx, t.URL)
	},
	MemoryIndexOf: func(st store.Store) (MemoryIndex, bool) {
		s, ok := st.(*postgres.Store)
		if !ok {
			return nil, false
		}
		return postgres.NewMemoryIndex(s.DB), true
	},
	OpenGraph: func(ctx context.Context, t Target) (Graph, error) {
		return postgres.OpenGraph(ctx, t.URL)
	},
	GraphOf: func(_ context.Context, st store.Store) (Graph, bool, error) {
		s, ok := st.(*postgres.Store)
		if !ok {
			return nil, false, nil
		}
		return postgres.NewGraph(s.DB), true, nil
	},
	Versions: func(ctx context.Context, st store.Store) ([]ComponentStatus, error) {
		s, ok := st.(*postgres.Store)
		if !ok {
			return nil, retrieve.Errorf(retrieve.CodeInternal, "the store %T is not a PostgreSQL store", st)
		}
		vs, err := s.Versions(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]ComponentStatus, len(vs))
		for i, v := range vs {
			out[i] = ComponentStatus(v)
		}
		return out, nil
	},
	Redact: postgres.Redact,
}
