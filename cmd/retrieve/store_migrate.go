package main

import (
	"github.com/retrieve-dev/retrieve/store/stores"
	"github.com/spf13/cobra"
)

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
			if m, ok := s.(stores.Migrator); ok {
				if applied, err = m.MigrateReport(ctx); err != nil {
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
