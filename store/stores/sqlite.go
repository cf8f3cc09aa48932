package stores

import (
	"context"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// sqliteBackend is the embedded store: one SQLite file.
var sqliteBackend = Backend{
	Kind:    KindSQLite,
	Schemes: []string{"sqlite"},
	Parse: func(raw, expanded, root string) (Target, error) {
		p := expanded[len("sqlite://"):]
		if p == "" {
			return Target{}, retrieve.Errorf(retrieve.CodeInputValidation, "the store %s names no file", raw).
				WithHint("write sqlite:///absolute/path.db or sqlite://relative/path.db")
		}
		return Target{Kind: KindSQLite, Path: absUnder(root, p)}, nil
	},
	Open: func(ctx context.Context, t Target, opts Options) (store.Store, error) {
		s, err := sqlite.OpenStore(ctx, t.Path)
		if err != nil {
			return nil, err
		}
		if opts.Journal {
			s.StartJournal()
		}
		if opts.ShortLived {
			s.LeaveWAL()
		}
		return s, nil
	},
	OpenMemoryIndex: func(ctx context.Context, t Target) (MemoryIndex, error) {
		return sqlite.OpenMemoryIndex(ctx, t.Path)
	},
	OpenGraph: func(ctx context.Context, t Target) (Graph, error) {
		return sqlite.OpenGraphFile(ctx, t.Path)
	},
	GraphOf: func(ctx context.Context, st store.Store) (Graph, bool, error) {
		s, ok := st.(*sqlite.Store)
		if !ok {
			return nil, false, nil
		}
		g, err := sqlite.OpenGraph(ctx, s.DB)
		if err != nil {
			return nil, true, err
		}
		return sharedSQLiteGraph{g}, true, nil
	},
	Versions: func(ctx context.Context, st store.Store) ([]ComponentStatus, error) {
		s, ok := st.(*sqlite.Store)
		if !ok {
			return nil, retrieve.Errorf(retrieve.CodeInternal, "the store %T is not a SQLite store", st)
		}
		vs, err := s.Versions(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]ComponentStatus, len(vs))
		for i, v := range vs {
			out[i] = ComponentStatus{Component: v.Component, Version: v.Version}
		}
		return out, nil
	},
}

// sharedSQLiteGraph leaves the store's file open on Close.
type sharedSQLiteGraph struct{ *sqlite.Graph }

func (sharedSQLiteGraph) Close() error { return nil }
