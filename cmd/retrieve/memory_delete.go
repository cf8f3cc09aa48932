package main

import (
	"context"
	"fmt"

	"github.com/retrieve-dev/retrieve/memory"
	"github.com/spf13/cobra"
)

func newMemoryDeleteCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "delete ID|PATH",
		Short: "Delete a note",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runKeeper(cmd, io, g, func(ctx context.Context, s *memory.Service) error {
				out, err := s.Delete(ctx, memory.DeleteInput{Target: args[0]})
				if err != nil {
					return err
				}
				return memoryPrint(io, g, out, func() { fmt.Fprintf(io.Out, "deleted %s  %s\n", out.ID, out.Path) })
			})
		},
	}
}
