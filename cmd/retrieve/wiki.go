package main

import (
	"github.com/spf13/cobra"
)

func newWikiCmd(io *Streams, g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "wiki",
		Short: "The workspace wiki: write, read, search and lint Markdown pages with [[wikilinks]]",
		Long: `Pages live in wiki/entities, wiki/summaries and wiki/topics as <slug>.md, with
wiki/index.md and wiki/log.md in the mini-context-graph formats. Every page is
cited as wiki:<category>/<slug>, which retrieve get re-retrieves. See docs/wiki.md.`,
	}
	cmd.AddCommand(newWikiWriteCmd(io, g), newWikiReadCmd(io, g), newWikiSearchCmd(io, g), newWikiLintCmd(io, g))
	return cmd
}
