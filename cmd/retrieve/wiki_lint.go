package main

import (
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/spf13/cobra"
)

func newWikiLintCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "lint",
		Short: "Check the wiki: orphan pages, missing pages, broken wikilinks, isolated pages",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTool(cmd.Context(), io, g, func(t *graph.Tools) (any, error) { return t.Wiki.Lint(cmd.Context()) })
		},
	}
}
