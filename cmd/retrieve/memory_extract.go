package main

import (
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/spf13/cobra"
)

func newMemoryExtractCmd(io *Streams, g *globalOptions) *cobra.Command {
	var c memory.RequestContext
	cmd := &cobra.Command{
		Use:   "extract OPERATION TARGET",
		Short: "Run an extractor operation by name, as an orchestrator sends it (extract_overview, extract_details)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c.Target = args[1]
			return runExtract(cmd, io, g, memory.Request{Operation: args[0], Context: c}, 0, 0)
		},
	}
	cmd.Flags().StringVar(&c.Depth, "depth", "", "extract_overview: shallow or medium")
	cmd.Flags().StringVar(&c.KnowledgeType, "knowledge-type", "", "extract_overview: episodic, semantic or procedural")
	cmd.Flags().StringVar(&c.Scope, "scope", "", "extract_details: full, section or specific")
	cmd.Flags().StringVar(&c.FormatHints, "format-hints", "", "extract_details: format hints")
	return cmd
}
