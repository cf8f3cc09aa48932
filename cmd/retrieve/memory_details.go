package main

import (
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/spf13/cobra"
)

func newMemoryDetailsCmd(io *Streams, g *globalOptions) *cobra.Command {
	var c memory.RequestContext
	cmd := &cobra.Command{
		Use:   "details PATH|QUERY [--scope full|section|specific] [--format-hints …]",
		Short: "extract_details: a note's content, whole, one section, or its code, tables, lists or links",
		Example: `  retrieve memory details memory/semantic/flask-jinja2-templating.md
  retrieve memory details semantic/flask-jinja2-templating.md --scope section --format-hints "Filters"
  retrieve memory details "jinja2 filters" --scope specific --format-hints code:python`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c.Target = args[0]
			return runExtract(cmd, io, g, memory.Request{Operation: memory.OpExtractDetails, Context: c}, 0, 0)
		},
	}
	cmd.Flags().StringVar(&c.Scope, "scope", memory.ScopeFull, "full, section (format hints name the heading) or specific")
	cmd.Flags().StringVar(&c.FormatHints, "format-hints", "", "section: the heading; specific: code, code:LANG, tables, lists, links, headings")
	return cmd
}
