package main

import (
	"strings"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/wiki"
	"github.com/spf13/cobra"
)

func newWikiSearchCmd(io *Streams, g *globalOptions) *cobra.Command {
	in := &wiki.SearchInput{}
	cmd := &cobra.Command{
		Use:     "search QUERY",
		Short:   "Rank pages for a query: {slug, category, path, score, snippet}",
		Example: `  retrieve wiki search "system crash" --json`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Query = strings.Join(args, " ")
			return runTool(cmd.Context(), io, g, func(t *graph.Tools) (any, error) { return t.Wiki.Search(cmd.Context(), *in) })
		},
	}
	cmd.Flags().IntVar(&in.Limit, "limit", 10, "at most this many pages")
	return cmd
}
