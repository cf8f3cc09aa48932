package main

import (
	"context"
	"io"
	"slices"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/spf13/cobra"
)

func newCiteCmd(io *Streams, g *globalOptions) *cobra.Command {
	var style, label string
	cmd := &cobra.Command{
		Use:   "cite RETRIEVAL_ID",
		Short: "Write the citation of a recorded retrieval in a form `retrieve check` verifies",
		Long: `cite writes the citation of a ledger entry (a retrieval_id) for a document:
  markdown   [reference](reference "sha256:…")
  footnote   [^label]: reference sha256:…   (cite with [^label] in the text)
  csl-json   a CSL-JSON item (for bibliography tools) whose URL is
             retrieval:<id> and whose note holds the reference and hash
Put a quotation right before a markdown or footnote citation ("…" [ref](ref))
and retrieve check proves it is in the cited span.`,
		Example: `  retrieve cite 0192f0c4-7a3e-7b61-9d2a-5b1e8f0c3d21
  retrieve cite 0192f0c4-7a3e-7b61-9d2a-5b1e8f0c3d21 --style footnote --label notes`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return runCite(c.Context(), io, g, args[0], style, label)
		},
	}
	cmd.Flags().StringVar(&style, "style", "markdown", "markdown, footnote or csl-json")
	cmd.Flags().StringVar(&label, "label", "", "the footnote label (default: the first 8 characters of the id)")
	return cmd
}

func runCite(ctx context.Context, stdio *Streams, g *globalOptions, id, style, label string) error {
	if !slices.Contains(ops.CiteStyles, style) {
		return failStartup(stdio, retrieve.Errorf(retrieve.CodeInputValidation, "unknown --style %q", style).
			WithHint("use %s", strings.Join(ops.CiteStyles, ", ")))
	}
	a, err := openApp(ctx, g, storeRequired)
	if err != nil {
		return failStartup(stdio, err)
	}
	defer a.Close()
	out, err := ops.Cite(ctx, ops.Deps{Store: a.Store}, ops.CiteInput{RetrievalID: id, Style: style, Label: label})
	if err != nil {
		return failStartup(stdio, err)
	}
	if g.JSON || g.YAML {
		// The cite_retrieval tool's and GET /v1/cite_retrieval's object.
		return writeResult(stdio.Out, g, out)
	}
	_, err = io.WriteString(stdio.Out, out.Citation)
	return err
}
