package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

// verifyOptions are the flags of `retrieve verify`.
type verifyOptions struct {
	Global  *globalOptions
	Arg     string
	All     bool
	Since   string
	Limit   int
	Cursor  string
	Workers int
	Session string
	// Bundle, Key and Live: verify an evidence bundle (retrieve export).
	Bundle string
	Key    string
	Live   bool
}

func newVerifyCmd(io *Streams, g *globalOptions) *cobra.Command {
	opts := &verifyOptions{Global: g}
	cmd := &cobra.Command{
		Use:   "verify (RETRIEVAL_ID | RESULT_FILE | --all | --since DURATION | --bundle FILE)",
		Short: "Re-retrieve cited data and report verified, changed (with a diff) or unavailable",
		Long: `verify re-retrieves what a citation names — same reference, version and filters —
and compares the hash. It takes a ledger id (from retrieve log), a result file
as printed by retrieve get (YAML or JSON), or --all / --since for the whole
ledger. It exits 0 only when every citation is verified, 7 when one changed.
--bundle FILE checks an evidence bundle (retrieve export) with no workspace
and no store: each snapshot's hash, the data extracted again from it, each
entry against its leaf, the inclusion proofs, and the checkpoint's signature
(--key PUB); --live also re-retrieves each citation from its source.`,
		Example: `  retrieve verify 0192f0c4-7a3e-7b61-9d2a-5b1e8f0c3d21
  retrieve get README.md --lines 1-20 --json > cite.json && retrieve verify cite.json
  retrieve verify --all
  retrieve verify --bundle evidence.zip --key ledger.pub`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Arg = args[0]
			}
			return runVerify(cmd.Context(), io, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.All, "all", false, "verify every successful retrieval in the ledger")
	f.StringVar(&opts.Since, "since", "", "verify the retrievals newer than a duration (24h) or an RFC 3339 time")
	f.IntVar(&opts.Limit, "limit", 0, "with --all/--since: at most this many, newest first; the next page's cursor is printed on stderr")
	f.StringVar(&opts.Cursor, "cursor", "", "with --all/--since: the cursor printed by the previous page")
	f.IntVar(&opts.Workers, "workers", 0, "parallel verifications (default: 4 per core)")
	addSessionFlag(f, &opts.Session)
	f.StringVar(&opts.Bundle, "bundle", "", "verify an evidence bundle written by retrieve export, offline: no workspace, no store")
	f.StringVar(&opts.Key, "key", "", "with --bundle: the log's public key file, to check the checkpoint's signature (default: the key the bundle carries)")
	f.BoolVar(&opts.Live, "live", false, "with --bundle: also re-retrieve each citation from its source where reachable")
	return cmd
}

func runVerify(ctx context.Context, io *Streams, opts *verifyOptions) error {
	if opts.Bundle != "" {
		return runVerifyBundle(ctx, io, opts)
	}
	bulk := opts.All || opts.Since != ""
	if bulk == (opts.Arg != "") {
		return failStartup(io, retrieve.Errorf(retrieve.CodeInputValidation, "give one retrieval id or result file, or --all / --since").
			WithHint("retrieve verify ID, retrieve verify result.json, or retrieve verify --all"))
	}
	need := storeOptional
	if bulk || !isFile(opts.Arg) {
		need = storeRequired
	}
	app, err := openApp(ctx, opts.Global, need)
	if err != nil {
		return failStartup(io, err)
	}
	defer app.Close()
	var results []*retrieve.Verification
	switch {
	case bulk:
		since, err := ops.TimeBound("--since", opts.Since, time.Now())
		if err != nil {
			return failStartup(io, err)
		}
		entries, next, err := verifiablePage(ctx, app, since, opts)
		if err != nil {
			return failStartup(io, err)
		}
		printNextCursor(io, next)
		workers := opts.Workers
		if workers <= 0 {
			workers = 4 * runtime.NumCPU()
		}
		var bar *progressbar.ProgressBar
		if io.ErrTTY {
			bar = progressbar.NewOptions(len(entries), progressbar.OptionSetWriter(io.ErrOut),
				progressbar.OptionSetDescription("verifying"), progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
		}
		results = app.Engine.VerifyEntries(ctx, entries, workers, func() {
			if bar != nil {
				_ = bar.Add(1)
			}
		})
		if bar != nil {
			_ = bar.Finish()
		}
	case isFile(opts.Arg):
		cited, err := readResultFile(opts.Arg)
		if err != nil {
			return failStartup(io, err)
		}
		results = []*retrieve.Verification{app.Engine.VerifyResult(ctx, cited)}
	default:
		v, err := app.Engine.VerifyEntry(ctx, opts.Arg)
		if err != nil {
			return failStartup(io, err)
		}
		results = []*retrieve.Verification{v}
	}
	// --all re-checks the memory notes' evidence too (the first page only,
	// when paging: the notes are not paged).
	var notes *memory.VerifyOutput
	if opts.All && opts.Cursor == "" {
		if notes, err = verifyMemoryNotes(ctx, io, app); err != nil {
			return failStartup(io, err)
		}
	}
	joinSession(io, opts.Session, func(id string) error { return app.sessions().Verified(id, "verify", results) })
	if err := writeVerifications(io, opts, results, bulk, notes); err != nil {
		return err
	}
	if err := verifyExit(results); err != nil {
		return err
	}
	if notes != nil && notes.Stale > 0 {
		return &exitError{code: ExitChanged}
	}
	return nil
}

// verifyMemoryNotes runs `memory verify` for `verify --all` when the
// workspace has a memory folder (nil when it has none).
func verifyMemoryNotes(ctx context.Context, io *Streams, app *app) (*memory.VerifyOutput, error) {
	m, err := app.memory(ctx, io, true, cliFullCheckInterval)
	if err != nil {
		return nil, err
	}
	if fi, err := m.FS().Stat(m.Dir()); err != nil || !fi.IsDir() || app.memIndex == nil {
		return nil, nil
	}
	return verifyNotes(ctx, io, m, memory.VerifyInput{})
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// readResultFile reads a result as printed by `retrieve get` (JSON or YAML).
func readResultFile(p string) (*retrieve.Result, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodePathNotFound, "cannot read %s", p).WithErr(err)
	}
	var res retrieve.Result
	trimmed := strings.TrimSpace(string(b))
	if strings.HasPrefix(trimmed, "{") {
		err = json.Unmarshal(b, &res)
	} else {
		err = yaml.Unmarshal(b, &res)
	}
	if err != nil || res.Citation.Reference == "" {
		return nil, retrieve.Errorf(retrieve.CodeParseFailed, "%s is not a retrieve result", p).
			WithHint("pass a file written by `retrieve get` (YAML or --json)")
	}
	if res.Error != nil {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "%s is a failed retrieval (%s): there is no citation to verify", p, res.Error.Code)
	}
	return &res, nil
}

func writeVerifications(io *Streams, opts *verifyOptions, results []*retrieve.Verification, bulk bool, notes *memory.VerifyOutput) error {
	counts := map[string]int{}
	for _, v := range results {
		counts[v.Status]++
	}
	if opts.Global.JSON {
		if !bulk {
			return writeJSON(io.Out, results[0])
		}
		return writeJSON(io.Out, bulkVerification(results, counts, notes))
	}
	pal, err := colorOn(opts.Global.Color, io, os.Getenv)
	if err != nil {
		return err
	}
	if !bulk && readable(io, opts.Global) {
		return writeReadableVerification(io.Out, pal, results[0])
	}
	if !bulk {
		return writeYAML(io.Out, results[0])
	}
	if opts.Global.YAML {
		return writeYAML(io.Out, bulkVerification(results, counts, notes))
	}
	tw := newTable(io.Out, 2, 2)
	fmt.Fprintln(tw, "STATUS\tREFERENCE\tRETRIEVAL\tDETAIL")
	for _, v := range results {
		detail := ""
		switch v.Status {
		case retrieve.Changed:
			detail = "now " + v.CurrentHash
		case retrieve.Unavailable:
			if v.Error != nil {
				detail = string(v.Error.Code) + ": " + v.Error.Message
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", pal.status(v.Status), trim(v.Reference, 50), v.RetrievalID, trim(detail, 60))
	}
	tw.Flush()
	fmt.Fprintf(io.Out, "\n%d verified, %d changed, %d unavailable (of %d)\n", counts[retrieve.Verified], counts[retrieve.Changed], counts[retrieve.Unavailable], len(results))
	if notes != nil {
		fmt.Fprintln(io.Out, "\nmemory notes:")
		printNoteVerify(io, notes)
	}
	return nil
}

// bulkVerification is the structured output of verify --all / --since:
// the ledger's verifications, their counts, and the memory notes' check.
func bulkVerification(results []*retrieve.Verification, counts map[string]int, notes *memory.VerifyOutput) map[string]any {
	out := map[string]any{"verifications": results, "summary": counts}
	if notes != nil {
		out["memory"] = notes
	}
	return out
}

// verifyExit is 0 when all are verified, ExitChanged when one changed, and
// the exit code of the first unavailability otherwise.
func verifyExit(results []*retrieve.Verification) error {
	code := ExitOK
	for _, v := range results {
		switch v.Status {
		case retrieve.Changed:
			code = max(code, ExitChanged)
		case retrieve.Unavailable:
			c := ExitUpstream
			if v.Error != nil {
				c = exitCode(v.Error.Code)
			}
			if code == ExitOK {
				code = c
			}
		}
	}
	if code != ExitOK {
		return &exitError{code: code}
	}
	return nil
}

// verifiablePage is the page of verifiable retrievals that --limit and
// --cursor name, newest first, with the cursor of the next page. The
// first page pins the ledger: retrievals recorded later are not in the
// following pages.
func verifiablePage(ctx context.Context, app *app, since time.Time, opts *verifyOptions) ([]*store.Entry, string, error) {
	if opts.Cursor == "" && opts.Limit <= 0 {
		entries, err := app.Engine.VerifiableEntries(ctx, engine.VerifyFilter{Since: since})
		return entries, "", err
	}
	spec := ops.PageSpec{List: "verify_all", Filter: ops.Fingerprint(opts.Since), Cursor: opts.Cursor, Limit: opts.Limit,
		Default: 100, Until: time.Now().UTC().Format(time.RFC3339Nano)}
	c, err := ops.DecodeCursor(opts.Cursor, spec.List, spec.Filter)
	if err != nil {
		return nil, "", err
	}
	until := spec.Until
	if opts.Cursor != "" {
		until = c.Until
	}
	pin, err := time.Parse(time.RFC3339Nano, until)
	if err != nil {
		return nil, "", retrieve.Errorf(retrieve.CodeInputValidation, "the cursor is not valid for verify --all").WithHint("start again without --cursor")
	}
	all, err := app.Engine.VerifiableEntries(ctx, engine.VerifyFilter{Since: since})
	if err != nil {
		return nil, "", err
	}
	kept := all[:0:0]
	for _, e := range all {
		if !e.Time.After(pin) {
			kept = append(kept, e)
		}
	}
	p, err := ops.Paginate(ctx, spec, kept)
	if err != nil {
		return nil, "", err
	}
	return p.Items, p.Next, nil
}

// writeReadableVerification prints one verification for a person: the
// status and the reference, the diff of what was cited against now in
// colour, the reason when unavailable, and the notes.
func writeReadableVerification(w io.Writer, p palette, v *retrieve.Verification) error {
	fmt.Fprintf(w, "%s %s", p.bold(p.status(v.Status)), v.Reference)
	if v.RetrievalID != "" {
		fmt.Fprintf(w, " %s", p.dim("("+v.RetrievalID+")"))
	}
	fmt.Fprintln(w)
	switch {
	case v.Status == retrieve.Changed:
		fmt.Fprintf(w, "%s %s → %s\n", p.dim("hash:"), shortHash(v.CitedHash), shortHash(v.CurrentHash))
		if v.Diff != "" {
			d := p.diff(v.Diff)
			if _, err := io.WriteString(w, d); err != nil {
				return err
			}
			if !strings.HasSuffix(d, "\n") {
				fmt.Fprintln(w)
			}
		}
	case v.Error != nil:
		fmt.Fprintf(w, "%s: %s\n", v.Error.Code, v.Error.Message)
		if v.Error.Hint != "" {
			fmt.Fprintf(w, "%s %s\n", p.dim("hint:"), ops.HintFor("cli", v.Error.Hint))
		}
	}
	for _, n := range v.Notes {
		fmt.Fprintln(w, p.dim("# "+n))
	}
	return nil
}
