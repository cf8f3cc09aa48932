package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/spf13/cobra"
)

// logOptions are the flags of `retrieve log`.
type logOptions struct {
	Global *globalOptions
	Filter store.Filter
	Since  string
	Until  string
	Cursor string
}

func newLogCmd(io *Streams, g *globalOptions) *cobra.Command {
	opts := &logOptions{Global: g}
	cmd := &cobra.Command{
		Use:   "log",
		Short: "List recorded retrievals, newest first",
		Example: `  retrieve log --limit 20
  retrieve log --target README.md --status error
  retrieve log --since 24h --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLog(cmd.Context(), io, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Filter.Target, "target", "", "only this target (as requested) or citation reference")
	f.StringVar(&opts.Filter.Source, "source", "", "only this source kind (file, git, web…)")
	f.StringVar(&opts.Since, "since", "", "only entries newer than a duration (24h) or an RFC 3339 time")
	f.StringVar(&opts.Until, "until", "", "only entries older than a duration ago (1h) or an RFC 3339 time")
	f.StringVar(&opts.Filter.Status, "status", "", "ok or error")
	f.StringVar(&opts.Filter.Op, "op", "", "get, verify, quote or all (default: retrievals, without verification runs)")
	f.IntVar(&opts.Filter.Limit, "limit", 50, "at most this many entries per page (1-500); the next page's cursor is printed on stderr")
	f.StringVar(&opts.Cursor, "cursor", "", "the cursor printed by the previous page (same filters)")
	return cmd
}

func runLog(ctx context.Context, io *Streams, opts *logOptions) error {
	app, err := openApp(ctx, opts.Global, storeRequired)
	if err != nil {
		return failStartup(io, err)
	}
	defer app.Close()
	f := opts.Filter
	out, err := ops.ListLog(ctx, app.Store, time.Now(), ops.LogInput{Target: f.Target, Source: f.Source, Op: f.Op, Status: f.Status,
		Since: opts.Since, Until: opts.Until, Limit: f.Limit, Cursor: opts.Cursor})
	if err != nil {
		return failStartup(io, err)
	}
	printNextCursor(io, out.NextCursor)
	if opts.Global.JSON || opts.Global.YAML || !io.OutTTY {
		// The page object of GET /v1/retrieval_log, so that a script reads
		// one shape on every surface (docs/CONTRACT.md, "Lists").
		if opts.Global.YAML {
			return writeYAML(io.Out, out)
		}
		return writeJSON(io.Out, out)
	}
	return writeLogTable(io.Out, out.Entries)
}

// printNextCursor tells on stderr how to read the next page of a list.
func printNextCursor(io *Streams, cursor string) {
	if cursor != "" {
		fmt.Fprintf(io.ErrOut, "more: --cursor %s\n", cursor)
	}
}

func writeLogTable(w io.Writer, entries []ops.LogRow) error {
	tw := newTable(w, 2, 2)
	fmt.Fprintln(tw, "ID\tTIME\tOP\tSTATUS\tTARGET\tREFERENCE / ERROR\tMS")
	for _, e := range entries {
		detail := e.Reference
		if e.Status == store.StatusError {
			detail = e.Code
		}
		when := e.Time
		if t, err := time.Parse(time.RFC3339Nano, e.Time); err == nil {
			when = t.Local().Format("2006-01-02 15:04:05")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%.1f\n", e.ID, when, e.Op, e.Status, trim(e.Target, 40), trim(detail, 50), e.DurationMS)
	}
	if len(entries) == 0 {
		fmt.Fprintln(tw, "(no entries)")
	}
	return tw.Flush()
}

func trim(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
