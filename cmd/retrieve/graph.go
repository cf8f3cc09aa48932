package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/store/stores"
	"github.com/retrieve-dev/retrieve/wiki"
	"github.com/spf13/cobra"
)

// wikiDir is the wiki folder of a workspace root.
func wikiDir(root string) string { return filepath.Join(root, "wiki") }

// openGraphTools opens the app with its store and the graph tools on it.
func openGraphTools(ctx context.Context, g *globalOptions) (*app, *graph.Tools, error) {
	a, err := openApp(ctx, g, storeRequired)
	if err != nil {
		return nil, nil, err
	}
	gs, err := stores.OpenGraph(ctx, a.StoreTarget, a.Store)
	if err != nil {
		a.Close()
		return nil, nil, err
	}
	a.closers = append(a.closers, gs.Close)
	return a, &graph.Tools{Store: gs, Wiki: &wiki.Wiki{Dir: wikiDir(a.Root), Index: gs, FS: a.WS}, Retriever: a.Engine}, nil
}

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
		newGraphAskCmd(io, g), newGraphImportCmd(io, g), newGraphExportCmd(io, g), newGraphStatsCmd(io, g))
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

// lazyGraph opens the graph tables of the workspace store on first use by
// the graph source (doc:, graph: references), so other commands never pay
// for it.
func lazyGraph(a *app) func(context.Context) (graph.Store, error) {
	var (
		mu sync.Mutex
		gs stores.Graph
	)
	a.closers = append(a.closers, func() error {
		mu.Lock()
		defer mu.Unlock()
		if gs == nil {
			return nil
		}
		return gs.Close()
	})
	return func(ctx context.Context) (graph.Store, error) {
		mu.Lock()
		defer mu.Unlock()
		if gs != nil {
			return gs, nil
		}
		if a.Store == nil && a.StoreTarget.Path != "" {
			if _, serr := os.Stat(a.StoreTarget.Path); serr != nil {
				return nil, retrieve.Errorf(retrieve.CodeNotFound, "this workspace has no graph store").
					WithHint("ingest documents with `retrieve graph ingest` first")
			}
		}
		var err error
		gs, err = stores.OpenGraph(ctx, a.StoreTarget, a.Store)
		if err != nil {
			gs = nil
			return nil, err
		}
		return gs, nil
	}
}
