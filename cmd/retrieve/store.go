package main

import (
	"context"

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
