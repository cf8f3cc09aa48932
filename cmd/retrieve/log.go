package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/spf13/cobra"
)

// logOptions are the flags of `retrieve log`.
type logOptions struct {
	Global *globalOptions
	Filter store.Filter
	Since  string
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
	f.StringVar(&opts.Filter.Status, "status", "", "ok or error")
	f.StringVar(&opts.Filter.Op, "op", "", "get, verify or quote")
	f.IntVar(&opts.Filter.Limit, "limit", 50, "at most this many entries (0: all)")
	return cmd
}

// parseSince accepts a duration before now or an RFC 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, retrieve.Errorf(retrieve.CodeInputValidation, "--since %q is neither a duration nor an RFC 3339 time", s).
		WithHint("use 24h, 90m or 2026-01-02T15:04:05Z")
}

func runLog(ctx context.Context, io *Streams, opts *logOptions) error {
	if s := opts.Filter.Status; s != "" && s != store.StatusOK && s != store.StatusError {
		return failStartup(io, retrieve.Errorf(retrieve.CodeInputValidation, "--status %q is not ok or error", s))
	}
	since, err := parseSince(opts.Since, time.Now())
	if err != nil {
		return failStartup(io, err)
	}
	opts.Filter.Since = since
	app, err := openApp(ctx, opts.Global, storeRequired)
	if err != nil {
		return failStartup(io, err)
	}
	defer app.Close()
	entries, err := app.Store.Entries(ctx, opts.Filter)
	if err == nil && opts.Filter.Target != "" && len(entries) == 0 {
		f := opts.Filter
		f.Target, f.Reference = "", opts.Filter.Target
		entries, err = app.Store.Entries(ctx, f)
	}
	if err != nil {
		return failStartup(io, err)
	}
	if opts.Global.JSON || opts.Global.YAML || !io.OutTTY {
		rows := make([]logRow, len(entries))
		for i, e := range entries {
			rows[i] = newLogRow(e)
		}
		if opts.Global.YAML {
			return writeYAML(io.Out, rows)
		}
		return writeJSON(io.Out, rows)
	}
	return writeLogTable(io.Out, entries)
}

// logRow is one ledger entry without its bulky request and result.
type logRow struct {
	ID         string  `json:"id" yaml:"id"`
	Time       string  `json:"time" yaml:"time"`
	Op         string  `json:"op" yaml:"op"`
	Target     string  `json:"target" yaml:"target"`
	Source     string  `json:"source" yaml:"source"`
	Status     string  `json:"status" yaml:"status"`
	Code       string  `json:"code" yaml:"code"`
	Reference  string  `json:"reference" yaml:"reference"`
	Hash       string  `json:"hash" yaml:"hash"`
	DurationMS float64 `json:"duration_ms" yaml:"duration_ms"`
}

func newLogRow(e *store.Entry) logRow {
	return logRow{
		ID: e.ID, Time: retrieve.Timestamp(e.Time), Op: e.Op, Target: e.Target, Source: e.Source,
		Status: e.Status, Code: e.Code, Reference: e.Reference, Hash: e.Hash,
		DurationMS: float64(e.Duration.Microseconds()) / 1000,
	}
}

func writeLogTable(w io.Writer, entries []*store.Entry) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTIME\tOP\tSTATUS\tTARGET\tREFERENCE / ERROR\tMS")
	for _, e := range entries {
		detail := e.Reference
		if e.Status == store.StatusError {
			detail = e.Code
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%.1f\n", e.ID, e.Time.Local().Format("2006-01-02 15:04:05"), e.Op, e.Status,
			trim(e.Target, 40), trim(detail, 50), float64(e.Duration.Microseconds())/1000)
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
