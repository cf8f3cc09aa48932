package main

import (
	"context"
	"fmt"
	goio "io"
	"os"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

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
		fmt.Fprintf(io.ErrOut, "hint: %s\n", ops.HintFor("cli", e.Hint))
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
	return runMemory(cmd, io, g, false, fn)
}

// runMemory opens the service and runs fn; withEngine opens the engine,
// the store and the memory index too (evidence, why, verify, forget).
func runMemory(cmd *cobra.Command, io *Streams, g *globalOptions, withEngine bool, fn func(ctx context.Context, s *memory.Service) error) error {
	ctx := cmd.Context()
	open := openMemory
	if withEngine {
		open = openMemoryEngine
	}
	a, m, err := open(ctx, io, g, withEngine)
	if err != nil {
		return memoryFail(io, g, err)
	}
	defer a.Close()
	if err := fn(ctx, m); err != nil {
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
		newMemoryOverviewCmd(io, g), newMemoryDetailsCmd(io, g), newMemoryExtractCmd(io, g), newMemoryReindexCmd(io, g),
		newMemoryWhyCmd(io, g), newMemoryHistoryCmd(io, g), newMemoryVerifyCmd(io, g), newMemoryForgetCmd(io, g), newMemoryOutdatedCmd(io, g))
	return cmd
}

// noteFlags are the content flags of create and update.
type noteFlags struct {
	Title, Content, File string
	Tags, Meta           []string
	// Evidence, Session, ValidFrom and ValidTo are the note's provenance.
	Evidence                    []string
	Session, ValidFrom, ValidTo string
}

// provenanceFlags adds --evidence, --session, --valid-from and, with
// validTo, --valid-to.
func (f *noteFlags) provenanceFlags(cmd *cobra.Command, validTo bool) {
	cmd.Flags().StringArrayVar(&f.Evidence, "evidence", nil, "a citation the note is written from: a path with lines, a reference or a retrieval id (repeatable; each must resolve)")
	cmd.Flags().StringVar(&f.Session, "session", "", "the recorded agent session the note is written in (its reads are the evidence when no --evidence is given)")
	cmd.Flags().StringVar(&f.ValidFrom, "valid-from", "", "when what the note says began to hold (YYYY-MM-DD or RFC 3339; default: when its evidence was read)")
	if validTo {
		cmd.Flags().StringVar(&f.ValidTo, "valid-to", "", "when it stopped holding (- clears it)")
	}
}

// needsEngine reports whether the flags name evidence: the write then
// resolves it with the engine and the ledger.
func (f *noteFlags) needsEngine() bool { return len(f.Evidence) > 0 || f.Session != "" }

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

// runExtract runs one extractor request and prints its envelope.
func runExtract(cmd *cobra.Command, io *Streams, g *globalOptions, req memory.Request, limit, hops int) error {
	ctx := cmd.Context()
	a, m, err := openMemory(ctx, io, g, true)
	if err != nil {
		return memoryFail(io, g, err)
	}
	defer a.Close()
	if fi, err := m.FS().Stat(m.Dir()); err == nil && fi.IsDir() {
		p, done := progress(io, "indexing memory")
		_, err := m.Refresh(ctx, p)
		done()
		if err != nil {
			fmt.Fprintf(io.ErrOut, "retrieve: warning: the memory index could not be refreshed: %s\n", retrieve.AsError(err).Message)
		}
	}
	var out *memory.OperationOutput
	if req.Operation == memory.OpExtractOverview && (limit > 0 || hops > 0) {
		res, notices, err := m.Overview(ctx, memory.OverviewInput{Target: req.Context.Target, Depth: req.Context.Depth,
			KnowledgeType: req.Context.KnowledgeType, Limit: limit, Hops: hops, Stale: req.Context.Stale, AsOf: req.Context.AsOf})
		out = memory.Envelope(req.Operation, res, notices, err)
	} else {
		out = m.Execute(ctx, req)
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
			mark := ""
			if s.Status != "" {
				mark = "  [" + s.Status + " since " + s.StaleSince + "]"
			}
			fmt.Fprintf(io.Out, "%.2f  %-10s %s%s\n      %s\n", s.Relevance, s.MemoryTier, s.Path, mark, s.Snippet)
		}
		for _, a := range r.Assumptions {
			fmt.Fprintf(io.Out, "note: %s\n", a)
		}
	case *memory.DetailsOutput:
		md := r.Metadata
		fmt.Fprintf(io.Out, "%s  %s  (%s, %d bytes, modified %s)\ntags: %s\n", md.Path, md.Title, md.MemoryTier, md.FileSize,
			md.LastModified, strings.Join(md.Tags, ", "))
		if r.State != nil {
			fmt.Fprintf(io.Out, "status: %s since %s\n", r.State.Status, r.State.Since)
		}
		for _, e := range r.Evidence {
			fmt.Fprintf(io.Out, "evidence: %s  %s\n", e.Reference, e.Hash)
		}
		fmt.Fprintf(io.Out, "\n%s", r.ExtractedContent)
		if !strings.HasSuffix(r.ExtractedContent, "\n") {
			fmt.Fprintln(io.Out)
		}
	}
}
