package main

import (
	"strings"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/spf13/cobra"
)

func newWikiSearchCmd(io *Streams, g *globalOptions) *cobra.Command {
	in := &ops.WikiSearchInput{}
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Rank pages for a query: {slug, category, path, score, snippet}",
		Example: `  retrieve wiki search "system crash" --json
  retrieve wiki search "system crash" --limit 5      # a page; the next page's cursor is printed on stderr
  retrieve wiki search "system crash" --limit 5 --cursor <cursor>`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Query = strings.Join(args, " ")
			return runTool(cmd.Context(), io, g, func(t *graph.Tools) (any, error) {
				out, err := ops.SearchWiki(cmd.Context(), t.Wiki, *in)
				if err != nil {
					return nil, err
				}
				printNextCursor(io, out.NextCursor)
				return out, nil // wiki_search's page object (docs/CONTRACT.md, "Lists")
			})
		},
	}
	cmd.Flags().IntVar(&in.Limit, "limit", 10, "at most this many hits per page (1-100); the next page's cursor is printed on stderr")
	cmd.Flags().StringVar(&in.Cursor, "cursor", "", "the cursor printed by the previous page (same query)")
	return cmd
}
