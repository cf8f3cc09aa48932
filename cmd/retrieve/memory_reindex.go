package main

import (
	"fmt"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/spf13/cobra"
)

func newMemoryReindexCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "reindex",
		Short: "Rebuild the full-text index of the memory folder",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			a, m, err := openMemory(ctx, io, g, true)
			if err != nil {
				return memoryFail(io, g, err)
			}
			defer a.Close()
			if a.memIndex == nil {
				return memoryFail(io, g, retrieve.Errorf(retrieve.CodeStoreUnavailable, "the store %s cannot be opened", storePath(g.Root)))
			}
			p, done := progress(io, "indexing memory")
			out, err := m.Reindex(ctx, memory.ReindexInput{Progress: p})
			done()
			if err != nil {
				return memoryFail(io, g, err)
			}
			return memoryPrint(io, g, out, func() {
				fmt.Fprintf(io.Out, "indexed %d notes of %s/ in %s\n", out.Notes, out.Dir, out.Duration)
			})
		},
	}
}
