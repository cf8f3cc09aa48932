package main

import (
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/spf13/cobra"
)

func newGraphVerifyCmd(io *Streams, g *globalOptions) *cobra.Command {
	var docs []string
	cmd := &cobra.Command{
		Use:   "verify [--doc ID]...",
		Short: "Re-check every edge's evidence against its source; mark the changed ones stale with the diff",
		Long: `Retrieve again the source of every graph document that came with a reference
(graph ingest --file, --url, --result), through the engine: a source with the
same hash leaves its edges fresh; a changed one marks stale each edge whose
supporting text is no longer in it, with the part of the diff that touches
it (an edge whose text is still there stays fresh); a source that is gone
marks all its edges stale. Queries then rank stale edges below fresh ones
and say so (--stale include|exclude to choose). Exit code 7 when an edge is
stale. See docs/graph.md, "Stale edges".`,
		Example: `  retrieve graph verify
  retrieve graph verify --doc doc_001 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := graph.VerifyOptions{Docs: docs}
			var finish func()
			opts.Progress, finish = progressBar(io, "verifying")
			stale := false
			err := runTool(cmd.Context(), io, g, func(t *graph.Tools) (any, error) {
				rep, err := t.Verify(cmd.Context(), opts)
				finish()
				stale = err == nil && rep.Stale > 0
				return rep, err
			})
			if err == nil && stale {
				return &exitError{code: ExitChanged}
			}
			return err
		},
	}
	cmd.Flags().StringArrayVar(&docs, "doc", nil, "verify only this document (repeatable)")
	return cmd
}
