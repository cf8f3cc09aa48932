package main

import (
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/wiki"
	"github.com/spf13/cobra"
)

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
