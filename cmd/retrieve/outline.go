package main

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/extract"
	"github.com/retrieve-dev/retrieve/extract/code"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/spf13/cobra"
)

// outlineOptions are the flags of `retrieve outline`.
type outlineOptions struct {
	Global *globalOptions
	Kinds  []string
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
ignores. Nothing is recorded in the ledger.`,
		Example: `  retrieve outline src/models/user.ts
  retrieve outline internal --kind class --kind interface
  retrieve outline main.go --json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runOutline(cmd.Context(), io, opts, args)
		},
	}
	cmd.Flags().StringArrayVar(&opts.Kinds, "kind", nil, "only symbols of this kind ("+strings.Join(code.Kinds, ", ")+"); repeatable")
	return cmd
}

func runOutline(ctx context.Context, io *Streams, opts *outlineOptions, args []string) error {
	for _, k := range opts.Kinds {
		if sel, err := code.ParseSelector(k); err != nil || sel.Kind == "" {
			return failStartup(io, retrieve.Errorf(retrieve.CodeInputValidation, "--kind %q is not a symbol kind", k).
				WithHint("use one of %s", strings.Join(code.Kinds, ", ")))
		}
	}
	app, err := openApp(ctx, opts.Global, storeOptional)
	if err != nil {
		return failStartup(io, err)
	}
	defer app.Close()
	var outlines []*retrieve.FileOutline
	var firstErr error
	anyDir := false
	for _, target := range args {
		files, isDir, err := outlineTargets(ctx, app, target)
		if err != nil {
			return failStartup(io, err)
		}
		anyDir = anyDir || isDir
		for _, f := range files {
			o, err := app.Engine.Outline(ctx, f, opts.Kinds)
			if err != nil {
				e := retrieve.AsError(err)
				if !isDir {
					return failStartup(io, err)
				}
				fmt.Fprintf(io.ErrOut, "retrieve: %s: %s: %s\n", f, e.Code, e.Message)
				// In a folder, a language this build cannot parse is noted,
				// not a failure.
				if firstErr == nil && e.Code != retrieve.CodeUnsupportedFormat {
					firstErr = err
				}
				continue
			}
			if isDir && len(o.Symbols) == 0 {
				continue
			}
			outlines = append(outlines, o)
		}
	}
	if err := writeOutlines(io, opts.Global, outlines, len(args) == 1 && !anyDir && len(outlines) == 1); err != nil {
		return err
	}
	if firstErr != nil {
		return &exitError{code: exitCode(retrieve.AsError(firstErr).Code)}
	}
	return nil
}

func writeOutlines(io *Streams, g *globalOptions, outlines []*retrieve.FileOutline, single bool) error {
	switch {
	case g.JSON && single:
		return writeJSON(io.Out, outlines[0])
	case g.JSON:
		return writeJSON(io.Out, nonNilOutlines(outlines))
	case g.YAML && single:
		return writeYAML(io.Out, outlines[0])
	case g.YAML:
		return writeYAML(io.Out, nonNilOutlines(outlines))
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

func nonNilOutlines(o []*retrieve.FileOutline) []*retrieve.FileOutline {
	if o == nil {
		return []*retrieve.FileOutline{}
	}
	return o
}

// outlineTargets expands a directory of the workspace into its source
// files (skipping the deny list and what .gitignore ignores); any other
// target is passed on as is.
func outlineTargets(ctx context.Context, app *app, target string) ([]string, bool, error) {
	if strings.Contains(target, ":") {
		return []string{target}, false, nil // a reference of another source
	}
	rel, err := app.WS.Rel(target)
	if err != nil {
		return []string{target}, false, nil // the source reports it
	}
	fi, err := app.WS.Stat(rel)
	if err != nil || !fi.IsDir() {
		return []string{target}, false, nil
	}
	files, err := file.ListDir(ctx, app.WS, rel)
	if err != nil {
		return nil, true, retrieve.Errorf(retrieve.CodeInternal, "list %s", rel).WithErr(err)
	}
	var out []string
	for _, f := range files {
		if code.IsCode(extract.Detect(path.Base(f), nil)) {
			out = append(out, f)
		}
	}
	return out, true, nil
}
