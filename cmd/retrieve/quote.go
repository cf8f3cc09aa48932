package main

import (
	"fmt"

	"github.com/retrieve-dev/retrieve"
	"github.com/spf13/cobra"
)

// quoteOptions are the flags of `retrieve quote`.
type quoteOptions struct {
	Global *globalOptions
	Ref    string
	Text   string
	Loose  bool
}

func newQuoteCmd(io *Streams, g *globalOptions) *cobra.Command {
	opts := &quoteOptions{Global: g}
	cmd := &cobra.Command{
		Use:   `quote REF "text"`,
		Short: "Check that a quotation appears verbatim in a source, and cite its exact location",
		Long: `quote checks a quotation before an agent uses it. It returns the result contract
citing the lines that hold it, with the exact location as path:LINE:COL-LINE:COL
in evidence_anchors, or QUOTE_NOT_FOUND with the closest passage, clearly
marked as not matching. --loose ignores differences of whitespace and case.`,
		Example: `  retrieve quote README.md "fetches a known thing from a known place"
  retrieve quote docs/guide.md:10-40 "run the installer" --loose`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref, opts.Text = args[0], args[1]
			app, err := openApp(cmd.Context(), g, storeOptional)
			if err != nil {
				return failStartup(io, err)
			}
			defer app.Close()
			res, qerr := app.Engine.Quote(cmd.Context(), opts.Ref, opts.Text, retrieve.QuoteOptions{Loose: opts.Loose})
			if err := writeResult(io.Out, g, res); err != nil {
				return err
			}
			if qerr != nil {
				e := retrieve.AsError(qerr)
				fmt.Fprintf(io.ErrOut, "retrieve: %s: %s\n", e.Code, e.Message)
				return &exitError{code: exitCode(e.Code)}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&opts.Loose, "loose", false, "match modulo whitespace and case")
	return cmd
}
