package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/extract/code"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/spf13/cobra"
)

// outlineOptions are the flags of `retrieve outline`.
type outlineOptions struct {
	Global *globalOptions
	In     ops.OutlineInput
}

func newOutlineCmd(io *Streams, g *globalOptions) *cobra.Command {
	opts := &outlineOptions{Global: g}
	cmd := &cobra.Command{
		Use:   "outline PATH...",
		Short: "List the symbols of source files, to cite one with get --section",
		Long: `List the classes, interfaces, structs, enums, types, functions, methods,
constants, variables and modules of source files, with their line spans, so
that one can be cited with retrieve get FILE --section NAME.

PATH is a source file (Go, TypeScript/TSX, JavaScript, Python, Java, Rust, C,
C++, C#, Ruby), a git:<rev>:<path> reference, or a directory of the workspace:
its source files are outlined, skipping the deny list and what .gitignore
ignores. Nothing is recorded in the ledger.

With --limit or --cursor the files come a page at a time (one file's outline
is an item); the next page's cursor is printed on stderr.`,
		Example: `  retrieve outline src/models/user.ts
  retrieve outline internal --kind class --kind interface
  retrieve outline internal --limit 20          # a page; the next page's cursor is printed on stderr
  retrieve outline main.go --json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runOutline(cmd.Context(), io, opts, args)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&opts.In.Kinds, "kind", nil, "only symbols of this kind ("+strings.Join(code.Kinds, ", ")+"); repeatable")
	f.IntVar(&opts.In.Limit, "limit", 0, fmt.Sprintf("at most this many files per page (1-%d; default: all files)", ops.MaxOutlineLimit))
	f.StringVar(&opts.In.Cursor, "cursor", "", "the cursor printed by the previous page (same paths and kinds)")
	return cmd
}

// newOutliner is the outline operation's view of the app: its engine and
// the workspace's directory listing.
func newOutliner(a *app) *ops.Outliner {
	return &ops.Outliner{Engine: a.Engine, Kinds: code.Kinds,
		Files: func(ctx context.Context, target string) ([]string, bool, error) {
			return file.DirFiles(ctx, a.WS, target)
		}}
}

func runOutline(ctx context.Context, io *Streams, opts *outlineOptions, args []string) error {
	defer outlineGC()()
	app, err := openApp(ctx, opts.Global, storeOptional)
	if err != nil {
		return failStartup(io, err)
	}
	defer app.Close()
	in := opts.In
	in.Target = args[0]
	in.All = in.Limit == 0 && in.Cursor == ""
	out, err := newOutliner(app).Outline(ctx, in, args[1:]...)
	if err != nil {
		return failStartup(io, err)
	}
	printNextCursor(io, out.NextCursor)
	var firstErr retrieve.Code
	for _, s := range out.Skipped {
		fmt.Fprintf(io.ErrOut, "retrieve: %s: %s: %s\n", s.Target, s.Code, s.Message)
		// In a folder, a language this build cannot parse is noted, not a
		// failure.
		if firstErr == "" && s.Code != retrieve.CodeUnsupportedFormat {
			firstErr = s.Code
		}
	}
	single := len(args) == 1 && !out.Dir && len(out.Outlines) == 1 && in.All
	if err := writeOutlines(io, opts.Global, out, single); err != nil {
		return err
	}
	if firstErr != "" {
		return &exitError{code: exitCode(firstErr)}
	}
	return nil
}

// outlineGCPercent is the collector's target while a CLI run outlines: a
// parse makes garbage that lives until the run ends, and collecting it at
// the default 100% was 10-18% of a cold outline's CPU (h2_bundle.go). The
// heap of one file's parse is bounded by the parse limit.
const outlineGCPercent = 400

// outlineGC raises the collector's target unless GOGC is set, and returns
// the function that restores it.
func outlineGC() func() {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(outlineGCPercent)
	return func() { debug.SetGCPercent(old) }
}

// writeOutlines prints one file's outline as an object, several (a
// folder, several targets, a page) as the outline tool's page:
// {outlines, skipped, files, next_cursor}.
func writeOutlines(io *Streams, g *globalOptions, out *ops.OutlineOutput, single bool) error {
	outlines := out.Outlines
	switch {
	case (g.JSON || g.YAML) && single:
		return writeResult(io.Out, g, outlines[0])
	case g.JSON || g.YAML:
		return writeResult(io.Out, g, out)
	}
	tw := newTable(io.Out, 0, 2)
	fmt.Fprintln(tw, "ANCHOR\tKIND\tSYMBOL")
	for _, o := range outlines {
		for _, s := range o.Symbols {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Anchor, s.Kind, s.Path)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, o := range outlines {
		if o.SyntaxErrors {
			fmt.Fprintf(io.ErrOut, "retrieve: %s has syntax errors: its spans are a best effort\n", o.Target)
		}
	}
	return nil
}
