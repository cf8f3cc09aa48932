// Package stores opens the evidence store a workspace names: the embedded
// SQLite file by default, or a shared PostgreSQL database. It is the one
// place that knows every implementation of store.Store; commands open
// stores through it, never through store/sqlite or store/postgres directly.
//
// A store is named by a spec: "" (the workspace's .retrieve/retrieve.db), a
// path or sqlite:// URL (sqlite:///abs/path or sqlite://rel/path, relative
// to the workspace root), or a postgres:// / postgresql:// URL. The spec is
// chosen by Choose from the --store flag, then RETRIEVE_STORE, then the
// configuration's store: key, and may contain ${env:NAME} references, so
// that passwords stay in the environment. Specs are only ever shown through
// Redact.
package stores

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/wiki"
)

// Env is the environment variable that names the store.
const Env = "RETRIEVE_STORE"

// Kinds of store.
const (
	KindSQLite   = "sqlite"
	KindPostgres = "postgres"
)

// Target is a resolved store spec.
type Target struct {
	Kind string
	// Path is the SQLite file (absolute); URL is the PostgreSQL URL with
	// its ${env:NAME} references resolved. Never print URL: use String.
	Path string
	URL  string
}

// String is the target for messages: the file, or the URL without its
// password.
func (t Target) String() string {
	if t.URL != "" {
		return Redact(t.URL)
	}
	return t.Path
}

// DefaultPath is the embedded store of a workspace root.
func DefaultPath(root string) string { return filepath.Join(root, config.Dir, "retrieve.db") }

// Choose returns the spec in force: flag, else $RETRIEVE_STORE, else the
// configuration's store: key, else "" (the default).
func Choose(flag string, cfg *config.Config) string {
	if flag != "" {
		return flag
	}
	if v := os.Getenv(Env); v != "" {
		return v
	}
	if cfg != nil {
		return cfg.Store
	}
	return ""
}

// Parse resolves a spec against the workspace root. ${env:NAME} references
// are expanded; an unknown scheme is refused with a hint.
func Parse(spec, root string) (Target, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return Target{Kind: KindSQLite, Path: DefaultPath(root)}, nil
	}
	expanded, err := config.Expand(spec)
	if err != nil {
		return Target{}, err
	}
	if scheme, _, ok := strings.Cut(expanded, "://"); ok {
		b, found := backendOf(strings.ToLower(scheme))
		if !found {
			return Target{}, retrieve.Errorf(retrieve.CodeInputValidation, "unknown store %s", Redact(spec)).
				WithHint("use a SQLite file path (or sqlite://path) or a postgres:// URL")
		}
		return b.Parse(spec, expanded, root)
	}
	lower := strings.ToLower(expanded)
	switch {
	case strings.HasPrefix(lower, "sqlite:"):
		return Target{Kind: KindSQLite, Path: absUnder(root, expanded[len("sqlite:"):])}, nil
	case strings.Contains(lower, "password=") || strings.HasPrefix(lower, "host=") || strings.Contains(lower, "dbname="):
		// Never echo it: it may hold a password.
		return Target{}, retrieve.Errorf(retrieve.CodeInputValidation, "the store looks like a libpq keyword/value string").
			WithHint("write it as a URL: postgres://user@host:5432/dbname?sslmode=require, with the password in PGPASSWORD or ${env:NAME}")
	default:
		return Target{Kind: KindSQLite, Path: absUnder(root, expanded)}, nil
	}
}

func absUnder(root, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(root, p)
}

// Redact returns a spec fit for output: URLs lose their password, other
// specs are returned as they are (unexpanded ${env:NAME} references are
// names, not values).
func Redact(spec string) string {
	scheme, _, ok := strings.Cut(spec, "://")
	if !ok {
		return spec
	}
	if b, found := backendOf(strings.ToLower(scheme)); found {
		if b.Redact == nil {
			return spec
		}
		return b.Redact(spec)
	}
	return retrieve.RedactURL(spec)
}

// Options control Open.
type Options struct {
	// NoMigrate opens a PostgreSQL store without applying migrations.
	NoMigrate bool
	// Journal is for a long-running process (`retrieve serve`): a SQLite
	// store acknowledges ledger appends from its journal and commits them
	// in the background (docs/ledger.md). PostgreSQL ignores it.
	Journal bool
	// ShortLived is for a process that closes the store and exits (a CLI
	// command): a SQLite store leaves its WAL to the next opener rather
	// than checkpointing it at close (sqlite.DB.LeaveWAL). PostgreSQL
	// ignores it.
	ShortLived bool
}

// Open opens the store t names. A SQLite store gets its directory (and,
// for the default path, the workspace's .retrieve/.gitignore).
func Open(ctx context.Context, t Target, opts Options) (store.Store, error) {
	b, err := backendFor(t)
	if err != nil {
		return nil, err
	}
	return b.Open(ctx, t, opts)
}

// MemoryIndex is a memory index that is closed when done.
type MemoryIndex interface {
	memory.Index
	io.Closer
}

// OpenMemoryIndex opens the memory index of the store t names: on st, the
// store already open for t, sharing its connections where the backend can
// (PostgreSQL: no second pool to connect; closing the index leaves the
// store open), else, and when st is nil, on its own connections.
func OpenMemoryIndex(ctx context.Context, t Target, st store.Store) (MemoryIndex, error) {
	b, err := backendFor(t)
	if err != nil {
		return nil, err
	}
	if st != nil && b.MemoryIndexOf != nil {
		if idx, ok := b.MemoryIndexOf(st); ok {
			return idx, nil
		}
	}
	return b.OpenMemoryIndex(ctx, t)
}

// Graph is the knowledge graph and the wiki index of a store.
type Graph interface {
	graph.Store
	wiki.Index
	io.Closer
}

// OpenGraph opens the graph (and wiki index) of the store t names: on st,
// the store already open for t, sharing its connections (closing the graph
// leaves the store open), or, when st is nil, on its own connections, which
// Close closes.
func OpenGraph(ctx context.Context, t Target, st store.Store) (Graph, error) {
	b, err := backendFor(t)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return b.OpenGraph(ctx, t)
	}
	g, ok, err := b.GraphOf(ctx, st)
	if !ok && err == nil {
		return nil, retrieve.Errorf(retrieve.CodeStoreUnavailable, "this store does not hold a knowledge graph").
			WithHint("use the embedded store or a PostgreSQL store")
	}
	return g, err
}
