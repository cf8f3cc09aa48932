package main

import (
	"context"
	"fmt"

	"github.com/retrieve-dev/retrieve/intl"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/spf13/cobra"
)

func newMemoryListCmd(io *Streams, g *globalOptions) *cobra.Command {
	var in ops.MemoryListInput
	cmd := &cobra.Command{
		Use:   "list [--type TIER] [--tag T…] [--limit N] [--cursor C]",
		Short: "List notes, by tier and tags",
		Example: `  retrieve memory list --type semantic
  retrieve memory list --limit 100          # a page; the next page's cursor is printed on stderr
  retrieve memory list --limit 100 --cursor <cursor>`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runKeeper(cmd, io, g, func(ctx context.Context, s *memory.Service) error {
				var out *ops.MemoryListOutput
				if in.Limit == 0 && in.Cursor == "" {
					all, err := s.List(ctx, memory.ListInput{Type: in.Type, Tags: in.Tags})
					if err != nil {
						return err
					}
					out = &ops.MemoryListOutput{Entries: all.Entries, Total: all.Total}
				} else {
					var err error
					if out, err = ops.ListMemory(ctx, s, in); err != nil {
						return err
					}
				}
				printNextCursor(io, out.NextCursor)
				return memoryPrint(io, g, out, func() {
					for _, e := range out.Entries {
						fmt.Fprintf(io.Out, "%s %s %s %s\n", intl.PadRight(e.ID, 18), intl.PadRight(e.Type, 10), intl.PadRight(e.Title, 40), e.Path)
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
	cmd.Flags().IntVar(&in.Limit, "limit", 0, "at most this many notes per page (1-1000; default: all notes)")
	cmd.Flags().StringVar(&in.Cursor, "cursor", "", "the cursor printed by the previous page (same filters)")
	return cmd
}
