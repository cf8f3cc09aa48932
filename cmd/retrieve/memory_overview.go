package main

import (
	"fmt"

	"github.com/retrieve-dev/retrieve/memory"
	"github.com/spf13/cobra"
)

func newMemoryOverviewCmd(io *Streams, g *globalOptions) *cobra.Command {
	var c memory.RequestContext
	var limit, hops int
	cmd := &cobra.Command{
		Use:   "overview QUERY [--depth shallow|medium] [--type TIER]",
		Short: "extract_overview: find the notes about QUERY (full-text search, plus the ontology at depth medium)",
		Example: `  retrieve memory overview "flask templates"
  retrieve memory overview jinja2 --depth shallow --type semantic --json
  retrieve memory overview deploy --stale exclude
  retrieve memory overview deploy --as-of 2026-03-01`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c.Target = args[0]
			return runExtract(cmd, io, g, memory.Request{Operation: memory.OpExtractOverview, Context: c}, limit, hops)
		},
	}
	cmd.Flags().StringVar(&c.Depth, "depth", memory.DepthMedium, "shallow (text search) or medium (text search and ontology)")
	cmd.Flags().StringVar(&c.KnowledgeType, "type", "", "only this tier: episodic, semantic or procedural")
	cmd.Flags().IntVar(&limit, "limit", 0, fmt.Sprintf("at most this many entries (default %d)", memory.DefaultLimit))
	cmd.Flags().StringVar(&c.Stale, "stale", "", "notes whose evidence changed: rank (after fresh ones, the default), include, exclude or only")
	cmd.Flags().StringVar(&c.AsOf, "as-of", "", "answer as the store knew then: YYYY-MM-DD (midnight UTC) or RFC 3339")
	cmd.Flags().IntVar(&hops, "hops", 0, fmt.Sprintf("ontology relation hops at depth medium (default %d)", memory.DefaultHops))
	return cmd
}
