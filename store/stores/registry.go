package stores

import (
	"context"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
)

// Backend is one implementation of the evidence store, known by the URL
// schemes of its specs (restic's location registry, litestream's replica
// URL registry). Each backend is one file of this package (sqlite.go,
// postgres.go) and one line of backends; nothing else names it.
type Backend struct {
	// Kind is Target.Kind of its targets.
	Kind string
	// Schemes are the spec schemes it owns, lower case ("postgres").
	Schemes []string
	// Parse resolves a spec of one of its schemes (raw for messages,
	// expanded for use) against the workspace root.
	Parse func(raw, expanded, root string) (Target, error)
	// Open opens the ledger and snapshots.
	Open func(ctx context.Context, t Target, opts Options) (store.Store, error)
	// OpenMemoryIndex opens the memory index on its own connections.
	OpenMemoryIndex func(ctx context.Context, t Target) (MemoryIndex, error)
	// MemoryIndexOf, when set, is the memory index on a store of this
	// backend already open (ok false when st is another backend's),
	// sharing its connections.
	MemoryIndexOf func(st store.Store) (idx MemoryIndex, ok bool)
	// OpenGraph opens the graph and wiki index on its own connections;
	// GraphOf on a store of this backend already open (ok false when st
	// is another backend's), sharing its connections.
	OpenGraph func(ctx context.Context, t Target) (Graph, error)
	GraphOf   func(ctx context.Context, st store.Store) (g Graph, ok bool, err error)
	// Versions reads the schema version of every component of an open
	// store (Latest 0 when the backend migrates as it opens).
	Versions func(ctx context.Context, st store.Store) ([]ComponentStatus, error)
	// Redact hides the credentials of a spec (nil: it holds none).
	Redact func(spec string) string
}

// backends are the stores this binary knows; the first is the default, used
// for plain paths.
var backends = []Backend{sqliteBackend, postgresBackend}

// ComponentStatus is the schema version of one component (ledger, memory,
// graph): applied, and known to this binary when the backend says.
type ComponentStatus struct {
	Component string `json:"component" yaml:"component"`
	Version   int    `json:"version" yaml:"version"`
	Latest    int    `json:"latest,omitempty" yaml:"latest,omitempty"`
}

// Migrator is the optional capability of a store that applies pending
// migrations on demand and reports them (PostgreSQL; SQLite migrates as it
// opens).
type Migrator interface {
	MigrateReport(ctx context.Context) ([]string, error)
}

func backendOf(scheme string) (Backend, bool) {
	for _, b := range backends {
		for _, s := range b.Schemes {
			if s == scheme {
				return b, true
			}
		}
	}
	return Backend{}, false
}

func backendFor(t Target) (Backend, error) {
	for _, b := range backends {
		if b.Kind == t.Kind {
			return b, nil
		}
	}
	return Backend{}, retrieve.Errorf(retrieve.CodeInternal, "unknown store kind %q", t.Kind)
}

// Versions reads the schema versions of st, the open store t names.
func Versions(ctx context.Context, t Target, st store.Store) ([]ComponentStatus, error) {
	b, err := backendFor(t)
	if err != nil {
		return nil, err
	}
	return b.Versions(ctx, st)
}
