package main

import (
	"fmt"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store/stores"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

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
