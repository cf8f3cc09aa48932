package main

import (
	"context"
	"fmt"

	"github.com/retrieve-dev/retrieve/memory"
	"github.com/spf13/cobra"
)

func newMemoryListCmd(io *Streams, g *globalOptions) *cobra.Command {
	var in memory.ListInput
	cmd := &cobra.Command{
		Use:   "list [--type TIER] [--tag T…]",
		Short: "List notes, by tier and tags",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runKeeper(cmd, io, g, func(ctx context.Context, s *memory.Service) error {
				out, err := s.List(ctx, in)
				if err != nil {
					return err
				}
				return memoryPrint(io, g, out, func() {
					for _, e := range out.Entries {
						fmt.Fprintf(io.Out, "%-18s %-10s %-40s %s\n", e.ID, e.Type, e.Title, e.Path)
						if e.Warning != "" {
							fmt.Fprintf(io.ErrOut, "warning: %s: %s\n", e.Path, e.Warning)
						}
					}
					fmt.Fprintf(io.Out, "%d notes\n", out.Total)
				})
			})
		},
	}
	cmd.Flags().StringVar(&in.Type, "type", "", "only this tier")
	cmd.Flags().StringArrayVar(&in.Tags, "tag", nil, "only notes with this tag (repeatable: all must match)")
	return cmd
}
