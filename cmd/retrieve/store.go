package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/postgres"
	"github.com/retrieve-dev/retrieve/store/sqlite"
	"github.com/retrieve-dev/retrieve/store/stores"
	"github.com/schollz/progressbar/v3"
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
	Store         string            `json:"store" yaml:"store"`
	Kind          string            `json:"kind" yaml:"kind"`
	Components    []componentStatus `json:"components" yaml:"components"`
	Pending       bool              `json:"pending_migrations" yaml:"pending_migrations"`
	Entries       int64             `json:"entries" yaml:"entries"`
	Snapshots     int64             `json:"snapshots" yaml:"snapshots"`
	SnapshotBytes int64             `json:"snapshot_bytes_stored" yaml:"snapshot_bytes_stored"`
	Applied       []string          `json:"applied,omitempty" yaml:"applied,omitempty"`
}

type componentStatus struct {
	Component string `json:"component" yaml:"component"`
	Version   int    `json:"version" yaml:"version"`
	Latest    int    `json:"latest,omitempty" yaml:"latest,omitempty"`
}

// statusOf reads the schema versions and counts of an open store.
func statusOf(ctx context.Context, t stores.Target, s store.Store) (*storeStatus, error) {
	st := &storeStatus{Store: t.String(), Kind: t.Kind}
	switch s := s.(type) {
	case *postgres.Store:
		vs, err := s.Versions(ctx)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			st.Components = append(st.Components, componentStatus(v))
			if v.Version < v.Latest {
				st.Pending = true
			}
		}
		if st.Pending {
			return st, nil // the tables may not exist yet
		}
	case *sqlite.Store:
		vs, err := s.Versions(ctx)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			st.Components = append(st.Components, componentStatus{Component: v.Component, Version: v.Version})
		}
	}
	w, ok := s.(stores.Walker)
	if !ok {
		return st, nil
	}
	var err error
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

func newStoreStatusCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Print the store in use, its schema versions and its counts (does not migrate PostgreSQL)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			t, s, err := openStoreAsIs(ctx, g)
			if err != nil {
				return failStartup(io, err)
			}
			defer s.Close()
			st, err := statusOf(ctx, t, s)
			if err != nil {
				return failStartup(io, err)
			}
			if st.Pending {
				fmt.Fprintln(io.ErrOut, "the store has migrations to apply: run `retrieve store migrate` (replicas also apply them when they start)")
			}
			return writeResult(io.Out, g, st)
		},
	}
}

func newStoreMigrateCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Apply the store's pending schema migrations (safe while replicas run)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			t, s, err := openStoreAsIs(ctx, g)
			if err != nil {
				return failStartup(io, err)
			}
			defer s.Close()
			var applied []string
			if ps, ok := s.(*postgres.Store); ok {
				if applied, err = ps.MigrateReport(ctx); err != nil {
					return failStartup(io, err)
				}
			} // a SQLite store is migrated when it opens
			st, err := statusOf(ctx, t, s)
			if err != nil {
				return failStartup(io, err)
			}
			st.Applied = applied
			if st.Applied == nil {
				st.Applied = []string{}
			}
			return writeResult(io.Out, g, st)
		},
	}
}

func newStoreCopyCmd(io *Streams, g *globalOptions) *cobra.Command {
	var from, to string
	cmd := &cobra.Command{
		Use:   "copy --to STORE [--from STORE]",
		Short: "Copy every ledger entry and snapshot from one store to another (resumable, verified)",
		Long: `Copy every ledger entry and snapshot from one store to another: SQLite to
PostgreSQL, PostgreSQL to SQLite, or between two of either. --from defaults to
the workspace's store. Entries already in the destination are skipped by id
and snapshots by hash, so an interrupted copy resumes by running it again.
At the end both stores are counted and digested; the result says whether the
destination holds exactly what the source holds.`,
		Example: `  retrieve store copy --from .retrieve/retrieve.db --to 'postgres://retrieve@db:5432/retrieve?sslmode=require'
  retrieve store copy --from 'postgres://retrieve@db/retrieve' --to sqlite://backup.db`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if to == "" {
				return failStartup(io, retrieve.Errorf(retrieve.CodeInputValidation, "copy needs --to").
					WithHint("name the destination: a SQLite file or a postgres:// URL"))
			}
			src, err := resolveStore(g, from)
			if err != nil {
				return failStartup(io, err)
			}
			dst, err := resolveStore(g, to)
			if err != nil {
				return failStartup(io, err)
			}
			if src == dst {
				return failStartup(io, retrieve.Errorf(retrieve.CodeInputValidation, "--from and --to are the same store %s", src).
					WithHint("name two different stores"))
			}
			a, err := stores.Open(ctx, src, stores.Options{})
			if err != nil {
				return failStartup(io, err)
			}
			defer a.Close()
			b, err := stores.Open(ctx, dst, stores.Options{})
			if err != nil {
				return failStartup(io, err)
			}
			defer b.Close()
			fmt.Fprintf(io.ErrOut, "copying %s → %s\n", src, dst)
			rep, err := stores.Copy(ctx, a, b, copyProgress(io))
			if err != nil {
				return failStartup(io, err)
			}
			out := map[string]any{"from_store": src.String(), "to_store": dst.String(), "report": rep}
			if err := writeResult(io.Out, g, out); err != nil {
				return err
			}
			switch {
			case rep.Verified:
				fmt.Fprintf(io.ErrOut, "verified: %d entries and %d snapshots in both stores, same digest\n", rep.To.Entries, rep.To.Snapshots)
			case rep.To.Entries >= rep.From.Entries && rep.To.Snapshots >= rep.From.Snapshots:
				fmt.Fprintf(io.ErrOut, "copied; the destination also holds %d entries and %d snapshots the source does not\n",
					rep.To.Entries-rep.From.Entries, rep.To.Snapshots-rep.From.Snapshots)
			default:
				return failStartup(io, retrieve.Errorf(retrieve.CodeInternal, "the destination holds %d entries and %d snapshots, the source %d and %d",
					rep.To.Entries, rep.To.Snapshots, rep.From.Entries, rep.From.Snapshots).
					WithHint("run the copy again; it resumes where it stopped"))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the source store (default: the workspace's store)")
	cmd.Flags().StringVar(&to, "to", "", "the destination store: a SQLite file or a postgres:// URL")
	return cmd
}

// copyProgress draws a bar on a terminal and otherwise prints a line at
// most every two seconds.
func copyProgress(io *Streams) stores.Progress {
	var bar *progressbar.ProgressBar
	var last time.Time
	return func(done, total int64) {
		if io.ErrTTY {
			if bar == nil {
				bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(io.ErrOut),
					progressbar.OptionSetDescription("copying"), progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
			}
			_ = bar.Set64(done)
			return
		}
		if done == total || time.Since(last) > 2*time.Second {
			last = time.Now()
			fmt.Fprintf(io.ErrOut, "copying: %d/%d entries and snapshots\n", done, total)
		}
	}
}
