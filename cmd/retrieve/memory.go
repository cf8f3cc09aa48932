package main

import (
	"context"
	"fmt"
	goio "io"
	"os"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/stores"
	"github.com/retrieve-dev/retrieve/workspace"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

// memoryApp is an open memory service and what it holds.
type memoryApp struct {
	svc   *memory.Service
	ws    *workspace.FS
	index stores.MemoryIndex
}

func (m *memoryApp) Close() {
	if m.index != nil {
		m.index.Close()
	}
	if m.ws != nil {
		m.ws.Close()
	}
}

// openMemory opens the memory service of the workspace with its index in
// the workspace store. Without a store it still works, by scanning files.
func openMemory(ctx context.Context, io *Streams, g *globalOptions, needIndex bool) (*memoryApp, error) {
	ws, _, err := openWorkspace(g)
	if err != nil {
		return nil, err
	}
	root := ws.Dir()
	m := &memoryApp{ws: ws}
	if needIndex {
		_ = config.EnsureDir(root)
		var idx stores.MemoryIndex
		t, err := resolveStore(g, "")
		if err == nil {
			idx, err = stores.OpenMemoryIndex(ctx, t)
		}
		if err != nil {
			e := retrieve.AsError(err)
			fmt.Fprintf(io.ErrOut, "retrieve: warning: the memory index is unavailable (%s); scanning the files instead\n", e.Message)
		} else {
			m.index = idx
		}
	}
	opts := memory.Options{FS: ws, Dir: g.MemoryDir}
	if m.index != nil {
		opts.Index = m.index
	}
	svc, err := memory.New(opts)
	if err != nil {
		m.Close()
		return nil, err
	}
	m.svc = svc
	return m, nil
}

// progress returns a progress callback that draws a bar on a terminal.
func progress(io *Streams, what string) (memory.Progress, func()) {
	if !io.ErrTTY {
		return nil, func() {}
	}
	var bar *progressbar.ProgressBar
	last := 0
	return func(done, total int) {
			if bar == nil {
				bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(io.ErrOut),
					progressbar.OptionSetDescription(what), progressbar.OptionShowCount(), progressbar.OptionShowIts(),
					progressbar.OptionClearOnFinish())
			}
			_ = bar.Add(done - last)
			last = done
		}, func() {
			if bar != nil {
				_ = bar.Finish()
			}
		}
}

// memoryFail prints a keeper error: the error object with --json/--yaml,
// a line on stderr always, and sets the exit code.
func memoryFail(io *Streams, g *globalOptions, err error) error {
	e := retrieve.AsError(err)
	if g.JSON || g.YAML {
		_ = writeResult(io.Out, g, map[string]any{"success": false, "error": e.Info()})
	}
	fmt.Fprintf(io.ErrOut, "retrieve: %s: %s\n", e.Code, e.Message)
	if e.Hint != "" {
		fmt.Fprintf(io.ErrOut, "hint: %s\n", e.Hint)
	}
	return &exitError{code: exitCode(e.Code)}
}

// memoryPrint prints a keeper result: JSON or YAML when asked (YAML when
// stdout is not a terminal), else the human line.
func memoryPrint(io *Streams, g *globalOptions, v any, human func()) error {
	if g.JSON || g.YAML || !io.OutTTY || human == nil {
		return writeResult(io.Out, g, v)
	}
	human()
	return nil
}

// runKeeper opens the service and runs fn.
func runKeeper(cmd *cobra.Command, io *Streams, g *globalOptions, fn func(ctx context.Context, s *memory.Service) error) error {
	ctx := cmd.Context()
	m, err := openMemory(ctx, io, g, false)
	if err != nil {
		return memoryFail(io, g, err)
	}
	defer m.Close()
	if err := fn(ctx, m.svc); err != nil {
		var ee *exitError
		if asExit(err, &ee) {
			return err
		}
		return memoryFail(io, g, err)
	}
	return nil
}

func asExit(err error, target **exitError) bool {
	e, ok := err.(*exitError)
	if ok {
		*target = e
	}
	return ok
}

func newMemoryCmd(io *Streams, g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "Agent memory: keep notes (create, update, promote…) and search them (overview, details)",
		Long: `Agent memory notes are Markdown files with YAML frontmatter in episodic/,
semantic/ and procedural/ folders of a memory folder (memory/ by default;
x-ipe-docs/memory/ when that exists; --memory-dir). The keeper commands
write notes atomically; overview and details (seed 004's extract_overview
and extract_details) only read, through a full-text index in the store.
Cite a note with: retrieve get memory:<tier>/<file>.md. See docs/memory.md.`,
	}
	cmd.AddCommand(newMemoryInitCmd(io, g), newMemoryCreateCmd(io, g), newMemoryReadCmd(io, g),
		newMemoryUpdateCmd(io, g), newMemoryDeleteCmd(io, g), newMemoryListCmd(io, g), newMemoryPromoteCmd(io, g),
		newMemoryOverviewCmd(io, g), newMemoryDetailsCmd(io, g), newMemoryExtractCmd(io, g), newMemoryReindexCmd(io, g))
	return cmd
}

func newMemoryInitCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Create the memory folder and its tiers (idempotent)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runKeeper(cmd, io, g, func(ctx context.Context, s *memory.Service) error {
				out, err := s.Init(ctx, memory.InitInput{})
				if err != nil {
					return err
				}
				return memoryPrint(io, g, out, func() {
					if len(out.Created) == 0 {
						fmt.Fprintf(io.Out, "%s/ is already set up\n", out.Dir)
						return
					}
					fmt.Fprintf(io.Out, "created %s\n", strings.Join(out.Created, ", "))
				})
			})
		},
	}
}

// noteFlags are the content flags of create and update.
type noteFlags struct {
	Title, Content, File string
	Tags, Meta           []string
}

// content returns the content from --content, --file or stdin (--file -).
func (f *noteFlags) content(io *Streams) (string, bool, error) {
	if f.File != "" {
		if f.Content != "" {
			return "", false, retrieve.Errorf(retrieve.CodeInputValidation, "give --content or --file, not both")
		}
		var data []byte
		var err error
		if f.File == "-" {
			data, err = goio.ReadAll(io.In)
		} else {
			data, err = os.ReadFile(f.File)
		}
		if err != nil {
			return "", false, retrieve.Errorf(retrieve.CodePathNotFound, "cannot read %s", f.File).WithErr(err)
		}
		return string(data), true, nil
	}
	return f.Content, f.Content != "", nil
}

// parseMeta parses key=value pairs; values are YAML scalars (true, 3, text).
func parseMeta(pairs []string) (map[string]any, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	out := map[string]any{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, retrieve.Errorf(retrieve.CodeInputValidation, "--meta %q is not key=value", p)
		}
		var val any
		if err := yaml.Unmarshal([]byte(v), &val); err != nil || val == nil {
			val = v
		}
		if _, isMap := val.(map[string]any); isMap {
			val = v
		}
		out[k] = val
	}
	return out, nil
}

func printWrite(io *Streams, g *globalOptions, verb string, out *memory.WriteOutput) error {
	return memoryPrint(io, g, out, func() {
		fmt.Fprintf(io.Out, "%s %s  %s\n", verb, out.ID, out.Path)
	})
}

func newMemoryCreateCmd(io *Streams, g *globalOptions) *cobra.Command {
	var f noteFlags
	var tier string
	cmd := &cobra.Command{
		Use:   "create --type TIER --title TITLE (--content TEXT | --file PATH|-)",
		Short: "Write a new note with the next id of its tier and day",
		Example: `  retrieve memory create --type semantic --title "Flask Jinja2 Templating" \
      --tag flask --tag python --meta source=https://flask.palletsprojects.com --file notes.md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runKeeper(cmd, io, g, func(ctx context.Context, s *memory.Service) error {
				content, _, err := f.content(io)
				if err != nil {
					return err
				}
				meta, err := parseMeta(f.Meta)
				if err != nil {
					return err
				}
				out, err := s.Create(ctx, memory.CreateInput{Type: tier, Title: f.Title, Content: content, Tags: f.Tags, Metadata: meta})
				if err != nil {
					return err
				}
				return printWrite(io, g, "created", out)
			})
		},
	}
	cmd.Flags().StringVar(&tier, "type", "", "memory tier: episodic, semantic or procedural")
	cmd.Flags().StringVar(&f.Title, "title", "", "note title")
	cmd.Flags().StringVar(&f.Content, "content", "", "note content (Markdown)")
	cmd.Flags().StringVar(&f.File, "file", "", "read the content from a file (- for stdin)")
	cmd.Flags().StringArrayVar(&f.Tags, "tag", nil, "tag (repeatable, or comma separated)")
	cmd.Flags().StringArrayVar(&f.Meta, "meta", nil, "metadata key=value (repeatable)")
	return cmd
}

func newMemoryReadCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "read ID|PATH",
		Short: "Print a note (frontmatter and content)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runKeeper(cmd, io, g, func(ctx context.Context, s *memory.Service) error {
				out, err := s.Read(ctx, memory.ReadInput{Target: args[0]})
				if err != nil {
					return err
				}
				return memoryPrint(io, g, out, func() {
					if out.Warning != "" {
						fmt.Fprintf(io.ErrOut, "warning: %s: %s\n", out.Path, out.Warning)
					}
					fmt.Fprintf(io.Out, "%s  %s\n%s  %s  tags: %s\n\n%s", out.ID, out.Note.Title, out.Path, out.Note.Type,
						strings.Join(out.Note.Tags, ", "), out.Note.Body)
				})
			})
		},
	}
}

func newMemoryUpdateCmd(io *Streams, g *globalOptions) *cobra.Command {
	var f noteFlags
	var addTags, unset []string
	cmd := &cobra.Command{
		Use:   "update ID|PATH [--title T] [--content C | --file F] [--tag T…] [--add-tag T…] [--meta k=v…] [--unset-meta k…]",
		Short: "Change a note; what is not named stays as it is; `updated` is bumped",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runKeeper(cmd, io, g, func(ctx context.Context, s *memory.Service) error {
				in := memory.UpdateInput{Target: args[0], AddTags: addTags}
				if cmd.Flags().Changed("title") {
					in.Title = &f.Title
				}
				content, has, err := f.content(io)
				if err != nil {
					return err
				}
				if has || cmd.Flags().Changed("content") {
					in.Content = &content
				}
				if cmd.Flags().Changed("tag") {
					in.Tags = &f.Tags
				}
				meta, err := parseMeta(f.Meta)
				if err != nil {
					return err
				}
				for _, k := range unset {
					if meta == nil {
						meta = map[string]any{}
					}
					meta[k] = nil
				}
				in.Metadata = meta
				out, err := s.Update(ctx, in)
				if err != nil {
					return err
				}
				return printWrite(io, g, "updated", out)
			})
		},
	}
	cmd.Flags().StringVar(&f.Title, "title", "", "new title (the file name stays, so citations stay valid)")
	cmd.Flags().StringVar(&f.Content, "content", "", "new content")
	cmd.Flags().StringVar(&f.File, "file", "", "read the new content from a file (- for stdin)")
	cmd.Flags().StringArrayVar(&f.Tags, "tag", nil, "replace the tags (repeatable)")
	cmd.Flags().StringArrayVar(&addTags, "add-tag", nil, "add a tag (repeatable)")
	cmd.Flags().StringArrayVar(&f.Meta, "meta", nil, "merge metadata key=value (repeatable)")
	cmd.Flags().StringArrayVar(&unset, "unset-meta", nil, "remove a metadata key (repeatable)")
	return cmd
}

func newMemoryDeleteCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "delete ID|PATH",
		Short: "Delete a note",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runKeeper(cmd, io, g, func(ctx context.Context, s *memory.Service) error {
				out, err := s.Delete(ctx, memory.DeleteInput{Target: args[0]})
				if err != nil {
					return err
				}
				return memoryPrint(io, g, out, func() { fmt.Fprintf(io.Out, "deleted %s  %s\n", out.ID, out.Path) })
			})
		},
	}
}

func newMemoryListCmd(io *Streams, g *globalOptions) *cobra.Command {
	var in memory.ListInput
	cmd := &cobra.Command{
		Use:   "list [--type TIER] [--tag T…]",
		Short: "List notes, by tier and tags",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runKeeper(cmd, io, g, func(ctx context.Context, s *memory.Service) error {
				out, err := s.List(ctx, in)
				if err != nil {
					return err
				}
				return memoryPrint(io, g, out, func() {
					for _, e := range out.Entries {
						fmt.Fprintf(io.Out, "%-18s %-10s %-40s %s\n", e.ID, e.Type, e.Title, e.Path)
						if e.Warning != "" {
							fmt.Fprintf(io.ErrOut, "warning: %s: %s\n", e.Path, e.Warning)
						}
					}
					fmt.Fprintf(io.Out, "%d notes\n", out.Total)
				})
			})
		},
	}
	cmd.Flags().StringVar(&in.Type, "type", "", "only this tier")
	cmd.Flags().StringArrayVar(&in.Tags, "tag", nil, "only notes with this tag (repeatable: all must match)")
	return cmd
}

func newMemoryPromoteCmd(io *Streams, g *globalOptions) *cobra.Command {
	var in memory.PromoteInput
	cmd := &cobra.Command{
		Use:   "promote DRAFT --type TIER [--title T] [--tag T…]",
		Short: "Turn a draft under .working/ into a note of a tier",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Source = args[0]
			return runKeeper(cmd, io, g, func(ctx context.Context, s *memory.Service) error {
				out, err := s.Promote(ctx, in)
				if err != nil {
					return err
				}
				return printWrite(io, g, "promoted to", out)
			})
		},
	}
	cmd.Flags().StringVar(&in.Type, "type", "", "memory tier: episodic, semantic or procedural")
	cmd.Flags().StringVar(&in.Title, "title", "", "title (default: the draft's title or first heading)")
	cmd.Flags().StringArrayVar(&in.Tags, "tag", nil, "tags (default: the draft's)")
	return cmd
}

// runExtract runs one extractor request and prints its envelope.
func runExtract(cmd *cobra.Command, io *Streams, g *globalOptions, req memory.Request, limit, hops int) error {
	ctx := cmd.Context()
	m, err := openMemory(ctx, io, g, true)
	if err != nil {
		return memoryFail(io, g, err)
	}
	defer m.Close()
	if fi, err := m.svc.FS().Stat(m.svc.Dir()); err == nil && fi.IsDir() {
		p, done := progress(io, "indexing memory")
		_, err := m.svc.Refresh(ctx, p)
		done()
		if err != nil {
			fmt.Fprintf(io.ErrOut, "retrieve: warning: the memory index could not be refreshed: %s\n", retrieve.AsError(err).Message)
		}
	}
	var out *memory.OperationOutput
	if req.Operation == memory.OpExtractOverview && (limit > 0 || hops > 0) {
		res, notices, err := m.svc.Overview(ctx, memory.OverviewInput{Target: req.Context.Target, Depth: req.Context.Depth,
			KnowledgeType: req.Context.KnowledgeType, Limit: limit, Hops: hops})
		out = memory.Envelope(req.Operation, res, notices, err)
	} else {
		out = m.svc.Execute(ctx, req)
	}
	if g.JSON || g.YAML || !io.OutTTY {
		if err := writeResult(io.Out, g, out); err != nil {
			return err
		}
	} else {
		renderEnvelope(io, out)
	}
	if !out.Success {
		e := out.Errors[len(out.Errors)-1]
		fmt.Fprintf(io.ErrOut, "retrieve: %s: %s\n", e.Code, e.Message)
		return &exitError{code: exitCode(e.Code)}
	}
	return nil
}

// renderEnvelope is the terminal rendering of an extractor envelope.
func renderEnvelope(io *Streams, out *memory.OperationOutput) {
	for _, e := range out.Errors {
		if out.Success {
			fmt.Fprintf(io.ErrOut, "note: %s: %s\n", e.Code, e.Message)
		}
	}
	switch r := out.Result.(type) {
	case *memory.OverviewOutput:
		fmt.Fprintln(io.Out, r.OverviewContent)
		if len(r.SourceMap) > 0 {
			fmt.Fprintln(io.Out)
		}
		for _, s := range r.SourceMap {
			fmt.Fprintf(io.Out, "%.2f  %-10s %s\n      %s\n", s.Relevance, s.MemoryTier, s.Path, s.Snippet)
		}
	case *memory.DetailsOutput:
		md := r.Metadata
		fmt.Fprintf(io.Out, "%s  %s  (%s, %d bytes, modified %s)\ntags: %s\n\n%s", md.Path, md.Title, md.MemoryTier, md.FileSize,
			md.LastModified, strings.Join(md.Tags, ", "), r.ExtractedContent)
		if !strings.HasSuffix(r.ExtractedContent, "\n") {
			fmt.Fprintln(io.Out)
		}
	}
}

func newMemoryOverviewCmd(io *Streams, g *globalOptions) *cobra.Command {
	var c memory.RequestContext
	var limit, hops int
	cmd := &cobra.Command{
		Use:   "overview QUERY [--depth shallow|medium] [--type TIER]",
		Short: "extract_overview: find the notes about QUERY (full-text search, plus the ontology at depth medium)",
		Example: `  retrieve memory overview "flask templates"
  retrieve memory overview jinja2 --depth shallow --type semantic --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c.Target = args[0]
			return runExtract(cmd, io, g, memory.Request{Operation: memory.OpExtractOverview, Context: c}, limit, hops)
		},
	}
	cmd.Flags().StringVar(&c.Depth, "depth", memory.DepthMedium, "shallow (text search) or medium (text search and ontology)")
	cmd.Flags().StringVar(&c.KnowledgeType, "type", "", "only this tier: episodic, semantic or procedural")
	cmd.Flags().IntVar(&limit, "limit", 0, fmt.Sprintf("at most this many entries (default %d)", memory.DefaultLimit))
	cmd.Flags().IntVar(&hops, "hops", 0, fmt.Sprintf("ontology relation hops at depth medium (default %d)", memory.DefaultHops))
	return cmd
}

func newMemoryDetailsCmd(io *Streams, g *globalOptions) *cobra.Command {
	var c memory.RequestContext
	cmd := &cobra.Command{
		Use:   "details PATH|QUERY [--scope full|section|specific] [--format-hints …]",
		Short: "extract_details: a note's content, whole, one section, or its code, tables, lists or links",
		Example: `  retrieve memory details memory/semantic/flask-jinja2-templating.md
  retrieve memory details semantic/flask-jinja2-templating.md --scope section --format-hints "Filters"
  retrieve memory details "jinja2 filters" --scope specific --format-hints code:python`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c.Target = args[0]
			return runExtract(cmd, io, g, memory.Request{Operation: memory.OpExtractDetails, Context: c}, 0, 0)
		},
	}
	cmd.Flags().StringVar(&c.Scope, "scope", memory.ScopeFull, "full, section (format hints name the heading) or specific")
	cmd.Flags().StringVar(&c.FormatHints, "format-hints", "", "section: the heading; specific: code, code:LANG, tables, lists, links, headings")
	return cmd
}

func newMemoryExtractCmd(io *Streams, g *globalOptions) *cobra.Command {
	var c memory.RequestContext
	cmd := &cobra.Command{
		Use:   "extract OPERATION TARGET",
		Short: "Run an extractor operation by name, as an orchestrator sends it (extract_overview, extract_details)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c.Target = args[1]
			return runExtract(cmd, io, g, memory.Request{Operation: args[0], Context: c}, 0, 0)
		},
	}
	cmd.Flags().StringVar(&c.Depth, "depth", "", "extract_overview: shallow or medium")
	cmd.Flags().StringVar(&c.KnowledgeType, "knowledge-type", "", "extract_overview: episodic, semantic or procedural")
	cmd.Flags().StringVar(&c.Scope, "scope", "", "extract_details: full, section or specific")
	cmd.Flags().StringVar(&c.FormatHints, "format-hints", "", "extract_details: format hints")
	return cmd
}

func newMemoryReindexCmd(io *Streams, g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "reindex",
		Short: "Rebuild the full-text index of the memory folder",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			m, err := openMemory(ctx, io, g, true)
			if err != nil {
				return memoryFail(io, g, err)
			}
			defer m.Close()
			if m.index == nil {
				return memoryFail(io, g, retrieve.Errorf(retrieve.CodeStoreUnavailable, "the store %s cannot be opened", storePath(g.Root)))
			}
			p, done := progress(io, "indexing memory")
			out, err := m.svc.Reindex(ctx, memory.ReindexInput{Progress: p})
			done()
			if err != nil {
				return memoryFail(io, g, err)
			}
			return memoryPrint(io, g, out, func() {
				fmt.Fprintf(io.Out, "indexed %d notes of %s/ in %s\n", out.Notes, out.Dir, out.Duration)
			})
		},
	}
}
