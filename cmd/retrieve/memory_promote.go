package main

import (
	"context"

	"github.com/retrieve-dev/retrieve/memory"
	"github.com/spf13/cobra"
)

func newMemoryPromoteCmd(io *Streams, g *globalOptions) *cobra.Command {
	var in memory.PromoteInput
	cmd := &cobra.Command{
		Use:   "promote DRAFT --type TIER [--title T] [--tag T…]",
		Short: "Turn a draft under .working/ into a note of a tier",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Source = args[0]
			return runKeeper(cmd, io, g, func(ctx context.Context, s *memory.Service) error {
				out, err := s.Promote(ctx, in)
				if err != nil {
					return err
				}
				return printWrite(io, g, "promoted to", out)
			})
		},
	}
	cmd.Flags().StringVar(&in.Type, "type", "", "memory tier: episodic, semantic or procedural")
	cmd.Flags().StringVar(&in.Title, "title", "", "title (default: the draft's title or first heading)")
	cmd.Flags().StringArrayVar(&in.Tags, "tag", nil, "tags (default: the draft's)")
	return cmd
}
