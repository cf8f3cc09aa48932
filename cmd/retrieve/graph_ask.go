package main

import (
	"fmt"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/spf13/cobra"
)

func newGraphAskCmd(io *Streams, g *globalOptions) *cobra.Command {
	in := &graph.AskInput{}
	cmd := &cobra.Command{
		Use:   "ask QUESTION",
		Short: "Answer wiki-first: wiki pages above the score threshold, else the evidence query",
		Long: fmt.Sprintf(`Search the wiki first: pages scoring at least %.2f (the share of the question's
keywords they hold, title words counting double) answer, each cited as
wiki:<category>/<slug> with its hash. Otherwise run the evidence query.
--file-back writes a graph answer as a topic page with its evidence chain and
citations, so the next ask finds it in the wiki. A graph answer's evidence
comes as its first page (--limit edges of retrieve graph evidence): the rest
is read with retrieve graph evidence and the cursor printed on stderr.`, graph.AskWikiScore),
		Example: `  retrieve graph ask "Why does the system crash?" --file-back`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Query = args[0]
			return runTool(cmd.Context(), io, g, func(t *graph.Tools) (any, error) {
				out, err := ops.AskGraph(cmd.Context(), t, *in)
				if err == nil && out.Evidence != nil && out.Evidence.NextCursor != "" {
					fmt.Fprintf(io.ErrOut, "more evidence: retrieve graph evidence QUESTION (same flags) --cursor %s\n", out.Evidence.NextCursor)
				}
				return out, err
			})
		},
	}
	addQueryFlags(cmd, &in.QueryInput)
	cmd.Flags().Float64Var(&in.MinWikiScore, "min-wiki-score", graph.AskWikiScore, "wiki score at which pages answer")
	cmd.Flags().BoolVar(&in.FileBack, "file-back", false, "file a graph answer as a wiki topic page")
	return cmd
}
