package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/retrieve-dev/retrieve/memory"
	"github.com/spf13/cobra"
)

func newMemoryReadCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "read ID|PATH",
		Short: "Print a note (frontmatter and content)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runKeeper(cmd, io, g, func(ctx context.Context, s *memory.Service) error {
				out, err := s.Read(ctx, memory.ReadInput{Target: args[0]})
				if err != nil {
					return err
				}
				return memoryPrint(io, g, out, func() {
					if out.Warning != "" {
						fmt.Fprintf(io.ErrOut, "warning: %s: %s\n", out.Path, out.Warning)
					}
					fmt.Fprintf(io.Out, "%s  %s\n%s  %s  tags: %s\n\n%s", out.ID, out.Note.Title, out.Path, out.Note.Type,
						strings.Join(out.Note.Tags, ", "), out.Note.Body)
				})
			})
		},
	}
}
