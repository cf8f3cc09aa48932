package main

import (
	"time"

	"github.com/retrieve-dev/retrieve/store"
	"github.com/spf13/cobra"
)

func newGCCmd(io *Streams, g *globalOptions) *cobra.Command {
	var retention string
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "Drop ledger entries and cached outlines past the retention, and snapshots no entry references",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			app, err := openApp(ctx, g, storeRequired)
			if err != nil {
				return failStartup(io, err)
			}
			defer app.Close()
			if retention != "" {
				app.Config.Retention = retention
			}
			keep, err := app.Config.RetentionDuration()
			if err != nil {
				return failStartup(io, err)
			}
			var entries, outlines int
			if keep > 0 {
				if entries, err = app.Store.DeleteEntriesBefore(ctx, time.Now().Add(-keep)); err != nil {
					return failStartup(io, err)
				}
				// Outlines cached before the horizon go too: one that is
				// asked for again is parsed again.
				if c, ok := app.Store.(store.OutlineCache); ok {
					if outlines, err = c.DeleteOutlinesBefore(ctx, time.Now().Add(-keep)); err != nil {
						return failStartup(io, err)
					}
				}
			}
			snaps, err := app.Store.DeleteUnreferencedSnapshots(ctx)
			if err != nil {
				return failStartup(io, err)
			}
			out := map[string]int{"entries_deleted": entries, "snapshots_deleted": snaps, "outlines_deleted": outlines}
			return writeResult(io.Out, g, out)
		},
	}
	cmd.Flags().StringVar(&retention, "retention", "", "override the configured retention (a duration such as 720h)")
	return cmd
}
