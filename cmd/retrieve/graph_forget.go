package main

import (
	"os"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/spf13/cobra"
)

func newGraphForgetCmd(io *Streams, g *globalOptions) *cobra.Command {
	in := graph.ForgetInput{}
	cmd := &cobra.Command{
		Use:   "forget (--source REF | --doc ID) [--dry-run]",
		Short: "Forget what the graph took from a source: its edges, the entities only they supported, its chunks",
		Long: `Tombstone every graph document that came from a source (--source: the path or
URL it was ingested from, as its reference shows, with or without the line
span) or one document (--doc): its edges are retired as forgotten with their
text erased — no query shows them again, not even --as-of a past time —, the
entities no other document supports are retired, its chunks, text and old
versions are erased, and the document stays as a tombstone (id, reference,
when). The ledger records who forgot what and when (retrieve log --op
forget). Edges go in batches, each its own transaction, with progress: run
the same command again to finish an interrupted forget. --dry-run lists what
would go and changes nothing. See docs/graph.md, "Forget".`,
		Example: `  retrieve graph forget --source notes/incident.md --dry-run
  retrieve graph forget --source notes/incident.md
  retrieve graph forget --doc doc_001 --by alice`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if in.By == "" {
				in.By = os.Getenv("USER")
			}
			var finish func()
			in.Progress, finish = progressBar(io, "forgetting edges")
			return runTool(cmd.Context(), io, g, func(t *graph.Tools) (any, error) {
				out, err := t.Forget(cmd.Context(), in)
				finish()
				return out, err
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&in.Source, "source", "", "forget the documents ingested from this path or URL")
	f.StringVar(&in.DocID, "doc", "", "forget this document")
	f.BoolVar(&in.DryRun, "dry-run", false, "list what would be forgotten; change nothing")
	f.StringVar(&in.By, "by", "", "who forgets, for the ledger (default $USER)")
	return cmd
}
