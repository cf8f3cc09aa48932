package main

import (
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/spf13/cobra"
)

func newGraphStatsCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "stats",
		Short: "Count documents, chunks, entities and relations, with the type ontology",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTool(cmd.Context(), io, g, func(t *graph.Tools) (any, error) { return t.Stats(cmd.Context()) })
		},
	}
}
