package main

import (
	"github.com/spf13/cobra"
)

func newShowCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Print the full recorded result of a ledger entry",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			app, err := openApp(cmd.Context(), g, storeRequired)
			if err != nil {
				return failStartup(io, err)
			}
			defer app.Close()
			e, err := app.Store.Entry(cmd.Context(), args[0])
			if err != nil {
				return failStartup(io, err)
			}
			res, err := app.Engine.RecordedResult(cmd.Context(), app.Store, e)
			if err != nil {
				return failStartup(io, err)
			}
			return writeResult(io.Out, g, res)
		},
	}
}
