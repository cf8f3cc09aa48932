package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/spf13/cobra"
)

// Citation styles of `retrieve cite`.
var citeStyles = []string{"markdown", "footnote", "csl-json"}

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
	known := false
	for _, s := range citeStyles {
		known = known || s == style
	}
	if !known {
		return failStartup(stdio, retrieve.Errorf(retrieve.CodeInputValidation, "unknown --style %q", style).
			WithHint("use %s", strings.Join(citeStyles, ", ")))
	}
	a, err := openApp(ctx, g, storeRequired)
	if err != nil {
		return failStartup(stdio, err)
	}
	defer a.Close()
	e, err := a.Store.Entry(ctx, id)
	if err != nil {
		return failStartup(stdio, err)
	}
	var res retrieve.Result
	if err := json.Unmarshal(e.Result, &res); err != nil {
		return failStartup(stdio, fmt.Errorf("decode entry %s: %w", id, err))
	}
	if res.Error != nil || res.Citation.Reference == "" || res.Citation.Hash == nil {
		return failStartup(stdio, retrieve.Errorf(retrieve.CodeInputValidation, "retrieval %s has no citation (it failed, or cites no data)", id).
			WithHint("cite a successful retrieval; retrieve log --status ok lists them"))
	}
	return writeCitation(stdio.Out, style, label, e.ID, &res)
}

// writeCitation writes one citation of res in style.
func writeCitation(w io.Writer, style, label, id string, res *retrieve.Result) error {
	ref, hash := res.Citation.Reference, *res.Citation.Hash
	switch style {
	case "footnote":
		if label == "" {
			label = strings.ReplaceAll(id, "-", "")[:min(8, len(strings.ReplaceAll(id, "-", "")))]
		}
		_, err := fmt.Fprintf(w, "[^%s]: %s %s\n", label, ref, hash)
		return err
	case "csl-json":
		item := map[string]any{
			"id":       id,
			"type":     "dataset",
			"title":    res.Retrieved.Source,
			"URL":      "retrieval:" + id,
			"note":     ref + " " + hash,
			"accessed": map[string]any{"raw": res.Retrieved.Timestamp},
			"source":   "retrieve",
		}
		if res.Citation.Version != nil {
			item["version"] = *res.Citation.Version
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode([]any{item})
	}
	_, err := fmt.Fprintf(w, "[%s](%s %q)\n", ref, ref, hash)
	return err
}
