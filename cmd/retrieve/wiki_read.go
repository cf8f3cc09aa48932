package main

import (
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/wiki"
	"github.com/spf13/cobra"
)

func newWikiReadCmd(io *Streams, g *globalOptions) *cobra.Command {
	var category string
	cmd := &cobra.Command{
		Use:   "read SLUG",
		Short: "Read a page by slug (category/slug when the slug is in several categories)",
		Example: `  retrieve wiki read memory-leak
  retrieve wiki read topic/why-crashes --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTool(cmd.Context(), io, g, func(t *graph.Tools) (any, error) {
				return t.Wiki.Read(cmd.Context(), wiki.ReadInput{Slug: args[0], Category: category})
			})
		},
	}
	cmd.Flags().StringVar(&category, "category", "", "entity, summary or topic")
	return cmd
}
