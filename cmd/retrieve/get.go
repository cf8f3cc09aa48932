package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/spf13/cobra"
)

// getOptions are the flags of `retrieve get`.
type getOptions struct {
	Global  *globalOptions
	Targets []string
	Request retrieve.Request
	Batch   string
	Session string
}

func newGetCmd(io *Streams, g *globalOptions, runF func(context.Context, *getOptions) error) *cobra.Command {
	opts := &getOptions{Global: g}
	c := &opts.Request.Constraints
	cmd := &cobra.Command{
		Use:   "get TARGET",
		Short: "Retrieve a target with its citation",
		Long: `Retrieve a target and print the result contract: the data, its citation
(reference, version, hash), provenance, what was cut, confidence, evidence
anchors and assumptions.

TARGET is a workspace path (README.md), a path with lines (README.md:1-20),
or a reference of another source (git:<rev>:<path>, https://…, sql:…,
memory:…).`,
		Example: `  retrieve get README.md --lines 1-20
  retrieve get config/database.yml --format yaml
  retrieve get docs/guide.md --section "Install > Linux"
  retrieve get package.json --select .dependencies --json
  retrieve get src/models/user.ts --section User.save
  retrieve get git:v1.2.0:docs/guide.md --lines 1-40
  retrieve get 'sql:app/users?id=42'
  retrieve get sql:app --query 'SELECT id, name FROM users WHERE team = $1' --param core
  retrieve get https://example.com/post --select 'article h2'
  retrieve get https://api.example.com/items --source api --select '.[].name' --pages 3`,
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.Batch != "" {
				return nil
			}
			return cobra.MinimumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Targets = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runGet(cmd.Context(), io, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Request.Source, "source", "", "source kind (file, git, web, api, database, memory, wiki, graph); inferred when empty")
	f.StringVar(&opts.Request.Format, "format", "", "data format: text, json, yaml, toml, csv, binary, html (json/yaml/toml/csv parse the data)")
	f.StringVar(&c.Lines, "lines", "", "line ranges: 1-50, 10-, -20, 1-5,20-30")
	f.StringVar(&c.Bytes, "bytes", "", "byte ranges, 0-based inclusive: 0-1023 (with --lines, of the text of those lines)")
	f.StringArrayVar(&c.Sections, "section", nil, "markdown heading by title or path (Install > Linux), or code symbol by kind or name (class, User.save, Test*); repeatable")
	f.StringVar(&c.Select, "select", "", "jq expression over JSON, YAML, TOML or CSV")
	f.Int64Var(&c.MaxBytes, "max-bytes", 0, "truncate the returned data at this many bytes, at a line boundary (default 10 MiB)")
	f.StringVar(&c.Version, "version", "", "version to retrieve (a git revision)")
	f.StringVar(&c.Query, "query", "", "SQL query for a sql:<connection> target (one read statement; values with --param)")
	f.StringArrayVar(&c.Params, "param", nil, "positional parameter of --query ($1 or ?); repeatable")
	f.IntVar(&c.MaxRows, "max-rows", 0, "row cap of a SQL result (default 1000); truncated when hit")
	f.BoolVar(&opts.Request.NoRecord, "no-record", false, "do not record this retrieval in the ledger")
	f.StringVar(&opts.Request.Fallback, "fallback", "", `"snapshot": when the live retrieval fails, serve the last snapshot`)
	addWebFlags(f, opts)
	addSessionFlag(f, &opts.Session)
	return cmd
}

func runGet(ctx context.Context, io *Streams, opts *getOptions) error {
	app, err := openApp(ctx, opts.Global, storeOptional)
	if err != nil {
		return failStartup(io, err)
	}
	defer app.Close()
	outcomes, err := retrieveTargets(ctx, io, app, opts)
	if err != nil {
		return failStartup(io, err)
	}
	joinSession(io, opts.Session, func(id string) error {
		svc := app.sessions()
		for _, o := range outcomes {
			if err := svc.Join(ctx, id, "get", o.res); err != nil {
				return err
			}
		}
		return nil
	})
	pal, err := colorOn(opts.Global.Color, io, os.Getenv)
	if err != nil {
		return failStartup(io, err)
	}
	worst := ExitOK
	for i := range opts.Targets {
		res, err := outcomes[i].res, outcomes[i].err
		if readable(io, opts.Global) {
			if i > 0 {
				fmt.Fprintln(io.Out)
			}
			if werr := writeReadable(io.Out, pal, res); werr != nil {
				return werr
			}
		} else if len(opts.Targets) > 1 && opts.Global.JSON {
			if werr := writeJSONLine(io.Out, res); werr != nil {
				return werr
			}
		} else {
			if i > 0 && !opts.Global.JSON {
				fmt.Fprintln(io.Out, "---")
			}
			if werr := writeResult(io.Out, opts.Global, res); werr != nil {
				return werr
			}
		}
		if err != nil {
			e := retrieve.AsError(err)
			fmt.Fprintf(io.ErrOut, "retrieve: %s: %s\n", e.Code, e.Message)
			if len(e.Alternatives) > 0 {
				fmt.Fprintf(io.ErrOut, "did you mean %s?\n", strings.Join(e.Alternatives, " or "))
			}
			if code := exitCode(e.Code); worst == ExitOK || code > worst {
				worst = code
			}
		}
	}
	if worst != ExitOK {
		return &exitError{code: worst}
	}
	return nil
}

// failStartup reports an error that happened before any retrieval.
func failStartup(io *Streams, err error) error {
	e := retrieve.AsError(err)
	if io.JSON && io.wrote != nil && !*io.wrote {
		info := e.Info()
		info.Hint = ops.HintFor("cli", info.Hint)
		_ = writeJSON(io.Out, ops.ErrorBody{Error: info})
	}
	fmt.Fprintf(io.ErrOut, "retrieve: %s: %s\n", e.Code, e.Message)
	if e.Hint != "" {
		fmt.Fprintf(io.ErrOut, "hint: %s\n", ops.HintFor("cli", e.Hint))
	}
	return &exitError{code: exitCode(e.Code)}
}
