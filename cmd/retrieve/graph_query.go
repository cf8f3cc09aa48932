package main

import (
	"fmt"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/spf13/cobra"
)

func newGraphQueryCmd(io *Streams, g *globalOptions, name string) *cobra.Command {
	in := &ops.GraphQueryInput{}
	short := "Return the subgraph around a question: {nodes, edges}"
	if name == "evidence" {
		short = "Return the subgraph with the source text and a cited path for every hop"
	}
	cmd := &cobra.Command{
		Use:   name + " QUESTION",
		Short: short,
		Long: short + `.

The answer comes in pages of --limit edges (default 100), each with the
nodes it joins; the next page's cursor is printed on stderr. Every edge has
an id: retrieve get graph:edge/<id> returns it with its evidence.`,
		Example: fmt.Sprintf(`  retrieve graph %s "Why does the system crash?" --json
  retrieve graph %s "Why does the system crash?" --limit 20 --cursor <cursor>`, name, name),
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Query = args[0]
			return runTool(cmd.Context(), io, g, func(t *graph.Tools) (any, error) {
				if name == "evidence" {
					out, err := ops.EvidenceGraph(cmd.Context(), t, *in)
					if err == nil {
						printNextCursor(io, out.NextCursor)
					}
					return out, err
				}
				out, err := ops.QueryGraph(cmd.Context(), t, *in)
				if err == nil {
					printNextCursor(io, out.NextCursor)
				}
				return out, err
			})
		},
	}
	addQueryFlags(cmd, &in.QueryInput)
	cmd.Flags().IntVar(&in.Limit, "limit", ops.DefaultGraphLimit, fmt.Sprintf("at most this many edges per page (1-%d); the next page's cursor is printed on stderr", ops.MaxGraphLimit))
	cmd.Flags().StringVar(&in.Cursor, "cursor", "", "the cursor printed by the previous page (same question and flags)")
	return cmd
}

func addQueryFlags(cmd *cobra.Command, in *graph.QueryInput) {
	f := cmd.Flags()
	f.IntVar(&in.MaxNodes, "max-nodes", graph.MaxNodes, "at most this many nodes")
	f.IntVar(&in.Depth, "depth", graph.MaxGraphDepth, "BFS depth (at most 2)")
	f.Float64Var(&in.MinConfidence, "min-confidence", graph.MinConfidence, "follow edges with at least this confidence")
	f.BoolVar(&in.IncludeUnverified, "include-unverified", false, "also follow edges whose supporting text was not found")
	f.StringVar(&in.AsOf, "as-of", "", "answer as the store knew then: a date (its end, UTC) or an RFC 3339 time")
	f.StringVar(&in.Stale, "stale", graph.StaleRank, "edges whose source changed (graph verify): rank (after fresh ones), include or exclude")
}
