package main

import (
	"fmt"

	"github.com/retrieve-dev/retrieve/ops"
	"github.com/spf13/cobra"
)

func newGraphSummaryCmd(io *Streams, g *globalOptions) *cobra.Command {
	in := ops.SummaryInput{}
	cmd := &cobra.Command{
		Use:   "summary [--limit N] [--list NAME --cursor C]",
		Short: "A cheap overview: counts by type, tier and tag, the most connected entities, what went stale lately",
		Long: `Count the graph (documents, chunks, entities, edges, retired and stale
edges) and the memory notes, with the first --limit (10) of each list:
entity_types, relation_types, most_connected, recently_stale, note_tiers,
note_tags. A few KB whatever the size; a list cut at the limit is named in
more with the cursor of its next page: --list NAME --cursor C pages it.
The same as the graph_summary tool. See docs/graph.md, "Summary".`,
		Example: `  retrieve graph summary
  retrieve graph summary --list most_connected --limit 50 --cursor <more.most_connected>`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			a, t, err := openGraphTools(ctx, g)
			if err != nil {
				return failStartup(io, err)
			}
			defer a.Close()
			// The notes, when the workspace has them (no note folder: no notes part).
			svc, _ := a.memory(ctx, &Streams{ErrOut: io.ErrOut}, true, cliFullCheckInterval)
			out, err := ops.Summarize(ctx, t, svc, in)
			if err != nil {
				return failStartup(io, err)
			}
			printNextCursor(io, out.NextCursor)
			return writeResult(io.Out, g, out)
		},
	}
	f := cmd.Flags()
	f.IntVar(&in.Limit, "limit", ops.DefaultSummaryLimit, fmt.Sprintf("items per list (1-%d)", ops.MaxSummaryLimit))
	f.StringVar(&in.List, "list", "", "page this list only (entity_types, relation_types, most_connected, recently_stale, note_tiers, note_tags)")
	f.StringVar(&in.Cursor, "cursor", "", "the list's cursor (more.<list> or next_cursor)")
	return cmd
}
