package main

import (
	"context"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

func newGraphImportCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "import DIR",
		Short: "Import a mini-context-graph folder (data/*.json and wiki/), merging with what is here",
		Long: `Read data/graph.json, documents.json, ontology.json (and index.json, which is
rebuilt) and the wiki/ folder of a mini-context-graph project. Importing
merges: documents already here are kept, entities merge by name, edges by
(source, target, type) keeping the higher confidence, so importing twice adds
nothing. Edges whose supporting text is not in their chunk are flagged
unverified.`,
		Example: `  retrieve graph import ../old-project`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in := graph.ImportInput{Dir: args[0]}
			var finish func()
			in.Progress, finish = progressBar(io, "importing")
			return runTool(cmd.Context(), io, g, func(t *graph.Tools) (any, error) {
				out, err := t.Import(cmd.Context(), in)
				finish()
				if an, ok := t.Store.(interface{ Analyze(context.Context) error }); ok && err == nil {
					_ = an.Analyze(cmd.Context()) // planner statistics for the new rows; autovacuum would catch up later
				}
				return out, err
			})
		},
	}
}

// progressBar is a progress callback (done of total) that draws a bar on
// a terminal's stderr (nil elsewhere), and the function that ends it.
func progressBar(io *Streams, what string) (progress func(done, total int), finish func()) {
	if !io.ErrTTY {
		return nil, func() {}
	}
	var bar *progressbar.ProgressBar
	progress = func(done, total int) {
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(io.ErrOut), progressbar.OptionSetDescription(what),
				progressbar.OptionShowCount(), progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100_000_000))
		}
		_ = bar.Set(done)
	}
	return progress, func() {
		if bar != nil {
			_ = bar.Finish()
		}
	}
}
