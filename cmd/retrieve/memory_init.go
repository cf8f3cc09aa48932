package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/retrieve-dev/retrieve/memory"
	"github.com/spf13/cobra"
)

func newMemoryInitCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Create the memory folder and its tiers (idempotent)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runKeeper(cmd, io, g, func(ctx context.Context, s *memory.Service) error {
				out, err := s.Init(ctx, memory.InitInput{})
				if err != nil {
					return err
				}
				return memoryPrint(io, g, out, func() {
					if len(out.Created) == 0 {
						fmt.Fprintf(io.Out, "%s/ is already set up\n", out.Dir)
						return
					}
					fmt.Fprintf(io.Out, "created %s\n", strings.Join(out.Created, ", "))
				})
			})
		},
	}
}
