package main

import (
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/spf13/cobra"
)

func newGraphExportCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:     "export DIR",
		Short:   "Write the graph and wiki as mini-context-graph files (data/*.json, wiki/)",
		Example: `  retrieve graph export ./mcg-export`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTool(cmd.Context(), io, g, func(t *graph.Tools) (any, error) {
				return t.Export(cmd.Context(), graph.ExportInput{Dir: args[0]})
			})
		},
	}
}
