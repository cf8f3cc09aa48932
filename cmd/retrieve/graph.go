package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/store/stores"
	"github.com/retrieve-dev/retrieve/wiki"
	"github.com/schollz/progressbar/v3"
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
	gs, err := stores.OpenGraph(ctx, a.Store)
	if err != nil {
		a.Close()
		return nil, nil, err
	}
	a.closers = append(a.closers, gs.Close)
	return a, &graph.Tools{Store: gs, Wiki: &wiki.Wiki{Dir: wikiDir(a.Root), Index: gs, FS: a.WS}, Engine: a.Engine}, nil
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
evidence query cites doc:<doc_id>#<chunk_id>, which retrieve get re-retrieves.
See docs/graph.md.`,
	}
	cmd.AddCommand(newGraphIngestCmd(io, g), newGraphQueryCmd(io, g, "query"), newGraphQueryCmd(io, g, "evidence"),
		newGraphAskCmd(io, g), newGraphImportCmd(io, g), newGraphExportCmd(io, g), newGraphStatsCmd(io, g))
	return cmd
}

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
   "relations": [{"source", "target", "type", "confidence", "supporting_text"?, "chunk_hint"?}]}

A relation's supporting_text must occur in its chunk (case-insensitive,
whitespace-normalised), else the ingest fails with EVIDENCE_NOT_FOUND (or,
with --allow-unverified, keeps it flagged with confidence capped at 0.5).
Relations below confidence 0.6 or with an unknown endpoint are listed under
skipped. --file and --url go through retrieve get, so the document keeps its
citation; --result takes a saved retrieve get --json result.`,
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
	_ = cmd.MarkFlagRequired("doc-id")
	_ = cmd.MarkFlagRequired("extraction")
	cmd.MarkFlagsMutuallyExclusive("file", "url", "stdin", "result")
	cmd.MarkFlagsOneRequired("file", "url", "stdin", "result")
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

func newGraphQueryCmd(io *Streams, g *globalOptions, name string) *cobra.Command {
	in := &graph.QueryInput{}
	short := "Return the subgraph around a question: {nodes, edges}"
	if name == "evidence" {
		short = "Return the subgraph with the source text and a cited path for every hop"
	}
	cmd := &cobra.Command{
		Use:     name + " QUESTION",
		Short:   short,
		Example: fmt.Sprintf(`  retrieve graph %s "Why does the system crash?" --json`, name),
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Query = args[0]
			return runTool(cmd.Context(), io, g, func(t *graph.Tools) (any, error) {
				if name == "evidence" {
					return t.Evidence(cmd.Context(), *in)
				}
				return t.Query(cmd.Context(), *in)
			})
		},
	}
	addQueryFlags(cmd, in)
	return cmd
}

func addQueryFlags(cmd *cobra.Command, in *graph.QueryInput) {
	f := cmd.Flags()
	f.IntVar(&in.MaxNodes, "max-nodes", graph.MaxNodes, "at most this many nodes")
	f.IntVar(&in.Depth, "depth", graph.MaxGraphDepth, "BFS depth (at most 2)")
	f.Float64Var(&in.MinConfidence, "min-confidence", graph.MinConfidence, "follow edges with at least this confidence")
	f.BoolVar(&in.IncludeUnverified, "include-unverified", false, "also follow edges whose supporting text was not found")
}

func newGraphAskCmd(io *Streams, g *globalOptions) *cobra.Command {
	in := &graph.AskInput{}
	cmd := &cobra.Command{
		Use:   "ask QUESTION",
		Short: "Answer wiki-first: wiki pages above the score threshold, else the evidence query",
		Long: fmt.Sprintf(`Search the wiki first: pages scoring at least %.2f (the share of the question's
keywords they hold, title words counting double) answer, each cited as
wiki:<category>/<slug> with its hash. Otherwise run the evidence query.
--file-back writes a graph answer as a topic page with its evidence chain and
citations, so the next ask finds it in the wiki.`, graph.AskWikiScore),
		Example: `  retrieve graph ask "Why does the system crash?" --file-back`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Query = args[0]
			return runTool(cmd.Context(), io, g, func(t *graph.Tools) (any, error) { return t.Ask(cmd.Context(), *in) })
		},
	}
	addQueryFlags(cmd, &in.QueryInput)
	cmd.Flags().Float64Var(&in.MinWikiScore, "min-wiki-score", graph.AskWikiScore, "wiki score at which pages answer")
	cmd.Flags().BoolVar(&in.FileBack, "file-back", false, "file a graph answer as a wiki topic page")
	return cmd
}

func newGraphImportCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "import DIR",
		Short: "Import a mini-context-graph folder (data/*.json and wiki/), merging with what is here",
		Long: `Read data/graph.json, documents.json, ontology.json (and index.json, which is
rebuilt) and the wiki/ folder of a mini-context-graph project. Importing
merges: documents already here are kept, entities merge by name, edges by
(source, target, type) keeping the higher confidence, so importing twice adds
nothing. Edges whose supporting text is not in their chunk are flagged
unverified.`,
		Example: `  retrieve graph import ../old-project`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var bar *progressbar.ProgressBar
			in := graph.ImportInput{Dir: args[0]}
			if io.ErrTTY {
				in.Progress = func(done, total int) {
					if bar == nil {
						bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(io.ErrOut), progressbar.OptionSetDescription("importing"),
							progressbar.OptionShowCount(), progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100_000_000))
					}
					_ = bar.Set(done)
				}
			}
			return runTool(cmd.Context(), io, g, func(t *graph.Tools) (any, error) {
				out, err := t.Import(cmd.Context(), in)
				if bar != nil {
					_ = bar.Finish()
				}
				if an, ok := t.Store.(interface{ Analyze(context.Context) error }); ok && err == nil {
					_ = an.Analyze(cmd.Context()) // planner statistics for the new rows; autovacuum would catch up later
				}
				return out, err
			})
		},
	}
}

func newGraphExportCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:     "export DIR",
		Short:   "Write the graph and wiki as mini-context-graph files (data/*.json, wiki/)",
		Example: `  retrieve graph export ./mcg-export`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTool(cmd.Context(), io, g, func(t *graph.Tools) (any, error) {
				return t.Export(cmd.Context(), graph.ExportInput{Dir: args[0]})
			})
		},
	}
}

func newGraphStatsCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "stats",
		Short: "Count documents, chunks, entities and relations, with the type ontology",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTool(cmd.Context(), io, g, func(t *graph.Tools) (any, error) { return t.Stats(cmd.Context()) })
		},
	}
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
		var err error
		if a.Store != nil {
			gs, err = stores.OpenGraph(ctx, a.Store)
		} else {
			if a.StoreTarget.Kind == stores.KindSQLite {
				if _, serr := os.Stat(a.StoreTarget.Path); serr != nil {
					return nil, retrieve.Errorf(retrieve.CodeNotFound, "this workspace has no graph store").
						WithHint("ingest documents with `retrieve graph ingest` first")
				}
			}
			gs, err = stores.OpenGraphTarget(ctx, a.StoreTarget)
		}
		if err != nil {
			gs = nil
			return nil, err
		}
		return gs, nil
	}
}
