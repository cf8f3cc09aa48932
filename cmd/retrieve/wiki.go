package main

import (
	"strings"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/wiki"
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

func newWikiWriteCmd(io *Streams, g *globalOptions) *cobra.Command {
	in := &wiki.WriteInput{}
	var file string
	var stdin bool
	cmd := &cobra.Command{
		Use:   "write --category entity|summary|topic --title T (--file PATH | --stdin | --content TEXT)",
		Short: "Write or overwrite a page, update index.md and log.md",
		Example: `  retrieve wiki write --category entity --title "Memory Leak" --content "A [[system-crash]] follows a memory leak."
  retrieve wiki write --category topic --title "Why crashes" --file answer.md --summary "Leaks cause crashes"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			switch {
			case file != "":
				b, err := readArgFile(io, file, "page")
				if err != nil {
					return failStartup(io, err)
				}
				in.Content = string(b)
			case stdin:
				b, err := readLimited(io.In, "standard input")
				if err != nil {
					return failStartup(io, err)
				}
				in.Content = string(b)
			}
			return runTool(ctx, io, g, func(t *graph.Tools) (any, error) { return t.Wiki.Write(ctx, *in) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&in.Category, "category", "", "entity, summary or topic")
	f.StringVar(&in.Title, "title", "", "page title (its slug names the file)")
	f.StringVar(&in.Content, "content", "", "page Markdown")
	f.StringVar(&file, "file", "", "file with the page Markdown")
	f.BoolVar(&stdin, "stdin", false, "read the page Markdown from standard input")
	f.StringVar(&in.Summary, "summary", "", "one-line summary for index.md (default: the first text line)")
	f.StringVar(&in.SourceDocument, "source-document", "", "doc_id the page is about (frontmatter)")
	f.StringSliceVar(&in.Tags, "tag", nil, "tag (repeatable, frontmatter)")
	f.StringVar(&in.Type, "type", "", "entity type (entity pages, frontmatter)")
	_ = cmd.MarkFlagRequired("category")
	_ = cmd.MarkFlagRequired("title")
	cmd.MarkFlagsMutuallyExclusive("content", "file", "stdin")
	cmd.MarkFlagsOneRequired("content", "file", "stdin")
	return cmd
}

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
