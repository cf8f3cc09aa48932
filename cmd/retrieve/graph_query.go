package main

import (
	"fmt"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/spf13/cobra"
)

func newGraphQueryCmd(io *Streams, g *globalOptions, name string) *cobra.Command {
	in := &graph.QueryInput{}
	short := "Return the subgraph around a question: {nodes, edges}"
	if name == "evidence" {
		short = "Return the subgraph with the source text and a cited path for every hop"
	}
	cmd := &cobra.Command{
		Use:     name + " QUESTION",
		Short:   short,
		Example: fmt.Sprintf(`  retrieve graph %s "Why does the system crash?" --json`, name),
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Query = args[0]
			return runTool(cmd.Context(), io, g, func(t *graph.Tools) (any, error) {
				if name == "evidence" {
					return t.Evidence(cmd.Context(), *in)
				}
				return t.Query(cmd.Context(), *in)
			})
		},
	}
	addQueryFlags(cmd, in)
	return cmd
}

func addQueryFlags(cmd *cobra.Command, in *graph.QueryInput) {
	f := cmd.Flags()
	f.IntVar(&in.MaxNodes, "max-nodes", graph.MaxNodes, "at most this many nodes")
	f.IntVar(&in.Depth, "depth", graph.MaxGraphDepth, "BFS depth (at most 2)")
	f.Float64Var(&in.MinConfidence, "min-confidence", graph.MinConfidence, "follow edges with at least this confidence")
	f.BoolVar(&in.IncludeUnverified, "include-unverified", false, "also follow edges whose supporting text was not found")
}
