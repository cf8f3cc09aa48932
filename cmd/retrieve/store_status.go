package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

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
