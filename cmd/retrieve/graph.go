package main

import (
	"context"
	"io"
	"os"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/spf13/cobra"
)

// runTool opens the tools, runs fn and prints its output.
func runTool(ctx context.Context, io *Streams, g *globalOptions, fn func(*graph.Tools) (any, error)) error {
	a, t, err := openGraphTools(ctx, g)
	if err != nil {
		return failStartup(io, err)
	}
	defer a.Close()
	out, err := fn(t)
	if err != nil {
		return failStartup(io, err)
	}
	return writeResult(io.Out, g, out)
}

func newGraphCmd(io *Streams, g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "graph",
		Short: "Knowledge graph: ingest documents with extracted entities, query with an evidence chain",
		Long: `The knowledge graph of the workspace (mini-context-graph compatible). Every edge
carries the text that supports it and the chunk it is in; every hop of an
evidence query cites doc:<doc_id>#<chunk_id>, and every edge has an id:
retrieve get re-retrieves doc:<doc_id>#<chunk_id> and graph:edge/<id>.
Answers come in pages (--limit, --cursor). See docs/graph.md.`,
	}
	cmd.AddCommand(newGraphIngestCmd(io, g), newGraphQueryCmd(io, g, "query"), newGraphQueryCmd(io, g, "evidence"),
		newGraphAskCmd(io, g), newGraphImportCmd(io, g), newGraphExportCmd(io, g), newGraphStatsCmd(io, g),
		newGraphVerifyCmd(io, g), newGraphForgetCmd(io, g), newGraphSummaryCmd(io, g))
	return cmd
}

// maxInputBytes caps a document or result read from stdin or a file.
const maxInputBytes = 64 << 20

func readLimited(r io.Reader, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxInputBytes+1))
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "cannot read %s", what).WithErr(err)
	}
	if len(b) > maxInputBytes {
		return nil, retrieve.Errorf(retrieve.CodeTooLarge, "%s is larger than %d bytes", what, maxInputBytes)
	}
	return b, nil
}

func readArgFile(io *Streams, path, what string) ([]byte, error) {
	if path == "-" {
		return readLimited(io.In, what)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodePathNotFound, "cannot open %s %s", what, path).WithHint("check the path").WithErr(err)
	}
	defer f.Close()
	return readLimited(f, what+" "+path)
}
