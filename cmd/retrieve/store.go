package main

import (
	"context"
	"path/filepath"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/stores"
	"github.com/spf13/cobra"
)

func newStoreCmd(io *Streams, g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store",
		Short: "Migrate, inspect and copy the store (SQLite file or PostgreSQL)",
		Long: `The store holds the ledger and the snapshots. It is the workspace's
.retrieve/retrieve.db unless --store, RETRIEVE_STORE or the configuration's
store: key names another SQLite file or a postgres:// URL. See docs/store.md.`,
	}
	cmd.AddCommand(newStoreStatusCmd(io, g), newStoreMigrateCmd(io, g), newStoreCopyCmd(io, g))
	return cmd
}

// resolveStore returns the store the global options and the workspace
// configuration name, without opening it.
func resolveStore(g *globalOptions, spec string) (stores.Target, error) {
	root, err := filepath.Abs(g.Root)
	if err != nil {
		return stores.Target{}, retrieve.Errorf(retrieve.CodeInputValidation, "bad --root %q", g.Root).WithErr(err)
	}
	if spec != "" {
		return stores.Parse(spec, root)
	}
	cfg, err := config.Load(root)
	if err != nil {
		return stores.Target{}, err
	}
	return stores.Parse(stores.Choose(g.Store, cfg), root)
}

type storeStatus struct {
	Store         string                   `json:"store" yaml:"store"`
	Kind          string                   `json:"kind" yaml:"kind"`
	Components    []stores.ComponentStatus `json:"components" yaml:"components"`
	Pending       bool                     `json:"pending_migrations" yaml:"pending_migrations"`
	Entries       int64                    `json:"entries" yaml:"entries"`
	Snapshots     int64                    `json:"snapshots" yaml:"snapshots"`
	SnapshotBytes int64                    `json:"snapshot_bytes_stored" yaml:"snapshot_bytes_stored"`
	Applied       []string                 `json:"applied,omitempty" yaml:"applied,omitempty"`
}

// statusOf reads the schema versions and counts of an open store.
func statusOf(ctx context.Context, t stores.Target, s store.Store) (*storeStatus, error) {
	st := &storeStatus{Store: t.String(), Kind: t.Kind}
	vs, err := stores.Versions(ctx, t, s)
	if err != nil {
		return nil, err
	}
	st.Components = vs
	for _, v := range vs {
		if v.Version < v.Latest {
			st.Pending = true
		}
	}
	if st.Pending {
		return st, nil // the tables may not exist yet
	}
	w, ok := s.(stores.Walker)
	if !ok {
		return st, nil
	}
	st.Entries, st.Snapshots, st.SnapshotBytes, err = w.Counts(ctx)
	return st, err
}

// openStoreAsIs opens the store the global options name without migrating
// it, for the commands that report on or migrate the schema themselves.
func openStoreAsIs(ctx context.Context, g *globalOptions) (stores.Target, store.Store, error) {
	t, err := resolveStore(g, "")
	if err != nil {
		return t, nil, err
	}
	s, err := stores.Open(ctx, t, stores.Options{NoMigrate: true})
	return t, s, err
}
