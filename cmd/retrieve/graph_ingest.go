package main

import (
	"context"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/spf13/cobra"
)

type ingestOptions struct {
	In         graph.IngestInput
	File, URL  string
	Stdin      bool
	Result     string
	Extraction string
}

func newGraphIngestCmd(io *Streams, g *globalOptions) *cobra.Command {
	o := &ingestOptions{}
	cmd := &cobra.Command{
		Use:   "ingest --doc-id ID --title T (--file PATH | --url URL | --stdin | --result FILE) --extraction FILE",
		Short: "Ingest a document and its extracted entities and relations",
		Long: `Store a document, cut it into chunks (500 characters, 100 overlap) and add the
entities and relations of the extraction JSON:

  {"entities": [{"name", "type", "supporting_text"?}],
   "relations": [{"source", "target", "type", "confidence", "supporting_text"?, "chunk_hint"?,
                  "valid_from"?, "valid_to"?}]}

A relation's supporting_text must occur in its chunk (case-insensitive,
whitespace-normalised), else the ingest fails with EVIDENCE_NOT_FOUND (or,
with --allow-unverified, keeps it flagged with confidence capped at 0.5).
Relations below confidence 0.6 or with an unknown endpoint are listed under
skipped. --file and --url go through retrieve get, so the document keeps its
citation; --result takes a saved retrieve get --json result. The same
--doc-id with the same text again is a no-op; with another text it is a new
version that retires the relations the old text supported (graph query
--as-of still sees them).`,
		Example: `  retrieve graph ingest --doc-id doc_001 --title "Incident" --file notes/incident.md --extraction x.json
  cat notes.txt | retrieve graph ingest --doc-id doc_002 --title Notes --stdin --extraction x.json --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runGraphIngest(cmd.Context(), io, g, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.In.DocID, "doc-id", "", "document id (doc_001)")
	f.StringVar(&o.In.Title, "title", "", "document title (default: the doc id)")
	f.StringVar(&o.File, "file", "", "workspace file with the document's text")
	f.StringVar(&o.URL, "url", "", "URL of the document (needs the web source)")
	f.BoolVar(&o.Stdin, "stdin", false, "read the document's text from standard input")
	f.StringVar(&o.Result, "result", "", "a saved `retrieve get --json` result whose data is the text")
	f.StringVar(&o.Extraction, "extraction", "", "extraction JSON file (- for standard input)")
	f.BoolVar(&o.In.AllowUnverified, "allow-unverified", false, "keep relations whose supporting text is not in the chunk, flagged, confidence capped at 0.5")
	f.StringVar(&o.In.ValidFrom, "valid-from", "", "when the document's relations started to hold (date or RFC 3339), for those without their own valid_from")
	f.StringVar(&o.In.ValidTo, "valid-to", "", "when they stopped holding, for those without their own valid_to")
	_ = cmd.MarkFlagRequired("doc-id")
	_ = cmd.MarkFlagRequired("extraction")
	cmd.MarkFlagsMutuallyExclusive("file", "url", "stdin", "result")
	cmd.MarkFlagsOneRequired("file", "url", "stdin", "result")
	return cmd
}

func runGraphIngest(ctx context.Context, io *Streams, g *globalOptions, o *ingestOptions) error {
	if o.Stdin && o.Extraction == "-" {
		return failStartup(io, retrieve.Errorf(retrieve.CodeInputValidation, "--stdin and --extraction - both read standard input").WithHint("pass the extraction as a file"))
	}
	xb, err := readArgFile(io, o.Extraction, "extraction")
	if err != nil {
		return failStartup(io, err)
	}
	x, err := graph.ParseExtraction(xb)
	if err != nil {
		return failStartup(io, err)
	}
	o.In.Extraction = *x
	switch {
	case o.File != "":
		o.In.Target = o.File
	case o.URL != "":
		o.In.Target = o.URL
	case o.Stdin:
		b, err := readLimited(io.In, "standard input")
		if err != nil {
			return failStartup(io, err)
		}
		o.In.Content, o.In.Source = string(b), "stdin"
	case o.Result != "":
		b, err := readArgFile(io, o.Result, "result")
		if err != nil {
			return failStartup(io, err)
		}
		if err := graph.FromResult(b, &o.In); err != nil {
			return failStartup(io, err)
		}
	}
	return runTool(ctx, io, g, func(t *graph.Tools) (any, error) { return t.Ingest(ctx, o.In) })
}
