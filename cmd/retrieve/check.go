package main

import (
	"context"
	"errors"
	"io"
	"path/filepath"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/check"
	"github.com/retrieve-dev/retrieve/policy"
	"github.com/retrieve-dev/retrieve/workspace"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

// checkOptions are the flags of `retrieve check`.
type checkOptions struct {
	Global  *globalOptions
	File    string
	Loose   bool
	Format  string
	Workers int
	Session string
}

func newCheckCmd(io *Streams, g *globalOptions) *cobra.Command {
	opts := &checkOptions{Global: g}
	cmd := &cobra.Command{
		Use:   "check FILE.md|-",
		Short: "Check every citation of a Markdown document: it resolves, its hash matches, its quotation is in the cited span",
		Long: `check finds the citations of a Markdown document — links whose destination is a
citation (docs/guide.md:7-9, git:<rev>:<path>:1-5, retrieval:<id>, a URL with a
#:~:text= fragment; a link title "sha256:…" gives the hash), footnotes whose
text is one ([^1]: notes.txt:1-2 sha256:…), and quotations ("…" or a
blockquote) immediately followed by their citation — and checks each one.
Denied and outside-root paths are reported as refused and never read.
It exits 0 when every citation checks out, 7 when one fails.`,
		Example: `  retrieve check answer.md
  retrieve check --format sarif docs/design.md > check.sarif
  retrieve cite <retrieval_id> | retrieve check -`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			return runCheck(cmd.Context(), io, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.Loose, "loose", false, "match quotations modulo whitespace and case")
	f.StringVar(&opts.Format, "format", "", "table (default on a terminal), json, sarif or junit; --json is json")
	f.IntVar(&opts.Workers, "workers", 0, "citations checked at once (default: 4 per core)")
	addSessionFlag(f, &opts.Session)
	return cmd
}

func runCheck(ctx context.Context, stdio *Streams, opts *checkOptions) error {
	format := opts.Format
	if format == "" {
		format = "table"
		if opts.Global.JSON {
			format = "json"
		}
	}
	switch format {
	case "table", "json", "sarif", "junit":
	default:
		return failStartup(stdio, retrieve.Errorf(retrieve.CodeInputValidation, "unknown --format %q", format).
			WithHint("use table, json, sarif or junit"))
	}
	src, name, err := readDocument(stdio, opts.File)
	if err != nil {
		return failStartup(stdio, err)
	}
	app, err := openApp(ctx, opts.Global, storeOptional)
	if err != nil {
		return failStartup(stdio, err)
	}
	defer app.Close()
	c := &check.Checker{Engine: app.Engine, Loose: opts.Loose, Workers: opts.Workers}
	cits, err := c.Forms().ParseLimited(name, src)
	if err != nil {
		return failStartup(stdio, err)
	}
	var bar *progressbar.ProgressBar
	if stdio.ErrTTY && len(cits) > 20 {
		bar = progressbar.NewOptions(len(cits), progressbar.OptionSetWriter(stdio.ErrOut),
			progressbar.OptionSetDescription("checking"), progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
		c.Progress = func(int, int) { _ = bar.Add(1) }
	}
	report, err := c.Run(ctx, name, cits)
	if bar != nil {
		_ = bar.Finish()
	}
	if err != nil {
		return failStartup(stdio, err)
	}
	joinSession(stdio, opts.Session, func(id string) error { return app.sessions().Checked(id, "check", report) })
	if err := writeCheckReport(stdio.Out, format, report); err != nil {
		return err
	}
	if !report.Passed() {
		return &exitError{code: ExitChanged}
	}
	return nil
}

func writeCheckReport(w io.Writer, format string, r *check.Report) error {
	switch format {
	case "json":
		return check.WriteJSON(w, r)
	case "sarif":
		return check.WriteSARIF(w, r, retrieve.Version)
	case "junit":
		return check.WriteJUnit(w, r)
	}
	return check.WriteTable(w, r)
}

// readDocument reads FILE, or standard input for "-", capped at
// check.MaxDocument.
func readDocument(stdio *Streams, file string) ([]byte, string, error) {
	var r io.Reader
	name := file
	if file == "-" {
		r, name = stdio.In, "stdin"
	} else {
		f, _, err := workspace.OpenRegular(file, false)
		if err != nil {
			if errors.Is(err, policy.ErrNotRegular) {
				return nil, "", retrieve.Errorf(retrieve.CodeNotAFile, "%s is not a regular file", file).WithErr(err).
					WithHint("pass a Markdown file, or - for standard input")
			}
			return nil, "", retrieve.Errorf(retrieve.CodePathNotFound, "cannot read %s", file).WithErr(err).
				WithHint("pass a Markdown file, or - for standard input")
		}
		defer f.Close()
		r = f
		name = filepath.ToSlash(file)
	}
	b, err := io.ReadAll(io.LimitReader(r, check.MaxDocument+1))
	if err != nil {
		return nil, "", retrieve.Errorf(retrieve.CodeInputValidation, "cannot read %s", name).WithErr(err)
	}
	if len(b) > check.MaxDocument {
		return nil, "", retrieve.Errorf(retrieve.CodeTooLarge, "%s is larger than %d bytes", name, check.MaxDocument).
			WithHint("check the document in parts")
	}
	return b, name, nil
}
