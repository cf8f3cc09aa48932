package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/check"
	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/spf13/cobra"
)

// exportOptions are the flags of `retrieve export`.
type exportOptions struct {
	Global                            *globalOptions
	Session, Check, IDs, Since, Until string
	Format, Out, Key                  string
	// filter selects by the ledger page's filter (the review UI's export).
	filter *store.Filter
}

// Export formats.
const (
	exportBundle = "bundle"
	exportPROV   = "prov"
	exportWARC   = "warc"
)

func newExportCmd(io *Streams, g *globalOptions) *cobra.Command {
	opts := &exportOptions{Global: g}
	cmd := &cobra.Command{
		Use:   "export (--session ID | --check DOC.md | --ids A,B | --since T [--until T]) -o FILE",
		Short: "Write recorded results as an evidence bundle a reviewer verifies offline, or as W3C PROV-JSON or WARC",
		Long: `export writes the ledger entries of a session, of a document's citations, of a
list of retrieval ids or of a time range to one file.

--format bundle (the default) is a zip: the entries as recorded, the snapshots
they cite (once each, compressed when it pays), the inclusion proof of each
entry in the tamper-evident log, and the latest signed checkpoint (a new one
with --key). retrieve verify --bundle FILE checks it on any machine, with no
workspace and no store. --format prov writes W3C PROV-JSON; --format warc
writes the web snapshots as WARC 1.1. See docs/ledger.md, "Evidence bundles".`,
		Example: `  retrieve export --session 5f1c… -o evidence.zip
  retrieve export --check report.md --key ~/.config/retrieve/ledger.key -o report-evidence.zip
  retrieve export --since 24h --format prov -o provenance.json
  retrieve verify --bundle evidence.zip --key ledger.pub`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd.Context(), io, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Session, "session", "", "the entries of a recorded agent session (retrieve session list)")
	f.StringVar(&opts.Check, "check", "", "the entries a document's citations name (the input of retrieve check; - for stdin)")
	f.StringVar(&opts.IDs, "ids", "", "retrieval ids, comma-separated")
	f.StringVar(&opts.Since, "since", "", "entries newer than a duration (24h) or an RFC 3339 time")
	f.StringVar(&opts.Until, "until", "", "with --since: entries older than a duration ago or an RFC 3339 time")
	f.StringVar(&opts.Format, "format", exportBundle, "bundle, prov (W3C PROV-JSON) or warc (WARC 1.1 of the web snapshots)")
	f.StringVarP(&opts.Out, "output", "o", "", "the file to write (- for standard output)")
	f.StringVar(&opts.Key, "key", "", "sign a new checkpoint with this private key file (default: $"+ledgerKeyEnv+" when set; otherwise the latest saved checkpoint)")
	return cmd
}

// exportSummary is what export prints.
type exportSummary struct {
	File       string             `json:"file"`
	Format     string             `json:"format"`
	Selection  string             `json:"selection"`
	Entries    int                `json:"entries"`
	Snapshots  int                `json:"snapshots"`
	Bytes      int64              `json:"bytes"`
	Checkpoint *ledger.Checkpoint `json:"checkpoint"`
	Notes      []string           `json:"notes"`
}

func runExport(ctx context.Context, stdio *Streams, opts *exportOptions) error {
	if err := opts.validate(); err != nil {
		return failStartup(stdio, err)
	}
	var private string
	if opts.Key != "" || os.Getenv(ledgerKeyEnv) != "" {
		k, err := signingKey(opts.Key)
		if err != nil {
			return failStartup(stdio, err)
		}
		private = k
	}
	a, err := openApp(ctx, opts.Global, storeRequired)
	if err != nil {
		return failStartup(stdio, err)
	}
	defer a.Close()
	entries, selection, notes, err := selectEntries(ctx, a, stdio, opts)
	if err != nil {
		return failStartup(stdio, err)
	}
	sum := &exportSummary{File: opts.Out, Format: opts.Format, Selection: selection, Entries: len(entries), Notes: notes}
	var write func(w io.Writer) error
	switch opts.Format {
	case exportBundle:
		in, err := bundleInput(ctx, a, entries, private)
		if err != nil {
			return failStartup(stdio, err)
		}
		in.Selection = selection
		write = func(w io.Writer) error {
			m, err := ledger.WriteBundle(ctx, w, *in)
			if err != nil {
				return ledgerError(err)
			}
			sum.Snapshots, sum.Checkpoint, sum.Notes = len(m.Snapshots), m.Log.Checkpoint, append(sum.Notes, m.Notes...)
			return nil
		}
	case exportPROV:
		write = func(w io.Writer) error {
			doc, err := ledger.PROV(entries, ledger.PROVOptions{Producer: retrieve.Build().String(), Session: opts.Session})
			if err != nil {
				return retrieve.Errorf(retrieve.CodeInternal, "%v", err)
			}
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(doc)
		}
	case exportWARC:
		if !ledger.HasWeb(entries) {
			return failStartup(stdio, retrieve.Errorf(retrieve.CodeNotFound, "none of the %d entries of %s is a web retrieval with a snapshot: there is nothing to write as WARC", len(entries), selection).
				WithHint("--format bundle or prov export every kind of entry"))
		}
		write = func(w io.Writer) error {
			n, err := ledger.WriteWARC(ctx, w, entries, a.Store.OpenSnapshot)
			sum.Snapshots = n
			return err
		}
	}
	n, err := writeOutput(stdio, opts.Out, write)
	if err != nil {
		return failStartup(stdio, err)
	}
	sum.Bytes = n
	if opts.Out == "-" {
		return nil
	}
	if sum.Notes == nil {
		sum.Notes = []string{}
	}
	return writeResult(stdio.Out, opts.Global, sum)
}

func (o *exportOptions) validate() error {
	n := 0
	for _, s := range []string{o.Session, o.Check, o.IDs, o.Since} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return retrieve.Errorf(retrieve.CodeInputValidation, "export needs one of --session, --check, --ids or --since").
			WithHint("retrieve export --session ID -o evidence.zip")
	}
	if o.Until != "" && o.Since == "" {
		return retrieve.Errorf(retrieve.CodeInputValidation, "--until goes with --since")
	}
	switch o.Format {
	case exportBundle, exportPROV, exportWARC:
	default:
		return retrieve.Errorf(retrieve.CodeInputValidation, "unknown --format %q", o.Format).WithHint("use bundle, prov or warc")
	}
	if o.Out == "" {
		return retrieve.Errorf(retrieve.CodeInputValidation, "export needs -o FILE (or -o - for standard output)")
	}
	return nil
}

// selectEntries reads the entries the options select, oldest first, with a
// description of the selection and notes on what was not found.
func selectEntries(ctx context.Context, a *app, stdio *Streams, o *exportOptions) ([]*store.Entry, string, []string, error) {
	var ids []string
	var notes []string
	var selection string
	switch {
	case o.filter != nil:
		es, err := a.Store.Entries(ctx, *o.filter)
		if err != nil {
			return nil, "", nil, err
		}
		return finishSelection(es, "the ledger page's filter", notes)
	case o.Since != "":
		now := time.Now()
		since, err := ops.TimeBound("--since", o.Since, now)
		if err != nil {
			return nil, "", nil, err
		}
		until, err := ops.TimeBound("--until", o.Until, now)
		if err != nil {
			return nil, "", nil, err
		}
		es, err := a.Store.Entries(ctx, store.Filter{Since: since, Until: until})
		if err != nil {
			return nil, "", nil, err
		}
		selection = "since " + o.Since
		if o.Until != "" {
			selection += " until " + o.Until
		}
		return finishSelection(es, selection, notes)
	case o.IDs != "":
		for _, id := range strings.Split(o.IDs, ",") {
			if id = strings.TrimSpace(id); id != "" {
				ids = append(ids, id)
			}
		}
		selection = "ids " + strings.Join(ids, ",")
	case o.Session != "":
		s, err := a.sessions().Show(ctx, o.Session)
		if err != nil {
			return nil, "", nil, err
		}
		for _, src := range s.Sources {
			if src.RetrievalID != "" {
				ids = append(ids, src.RetrievalID)
			}
		}
		selection = "session " + o.Session
	case o.Check != "":
		var err error
		ids, notes, err = citedEntries(ctx, a, stdio, o.Check)
		if err != nil {
			return nil, "", nil, err
		}
		selection = "citations of " + o.Check
	}
	var es []*store.Entry
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		e, err := a.Store.Entry(ctx, id)
		if err != nil {
			var ce *retrieve.Error
			if errors.As(err, &ce) && ce.Code == retrieve.CodeNotFound {
				notes = append(notes, fmt.Sprintf("retrieval %s is not in the ledger", id))
				continue
			}
			return nil, "", nil, err
		}
		es = append(es, e)
	}
	return finishSelection(es, selection, notes)
}

func finishSelection(es []*store.Entry, selection string, notes []string) ([]*store.Entry, string, []string, error) {
	if len(es) == 0 {
		return nil, "", nil, retrieve.Errorf(retrieve.CodeNotFound, "no ledger entry for %s", selection).
			WithHint("list entries with `retrieve log`; %s", strings.Join(notes, "; "))
	}
	sort.Slice(es, func(i, j int) bool { return es[i].ID < es[j].ID })
	return es, selection, notes, nil
}

// citedEntries finds the ledger entry each citation of a document names:
// retrieval:<id> directly, otherwise the newest successful entry of the
// reference whose hash is the citation's.
func citedEntries(ctx context.Context, a *app, stdio *Streams, file string) ([]string, []string, error) {
	src, name, err := readDocument(stdio, file)
	if err != nil {
		return nil, nil, err
	}
	cits, err := (&check.Checker{Engine: a.Engine}).Forms().ParseLimited(name, src)
	if err != nil {
		return nil, nil, err
	}
	var ids, notes []string
	for _, c := range cits {
		if id, ok := strings.CutPrefix(c.Reference, "retrieval:"); ok {
			ids = append(ids, id)
			continue
		}
		es, err := a.Store.Entries(ctx, store.Filter{Target: c.Reference, Status: store.StatusOK})
		if err != nil {
			return nil, nil, err
		}
		found := false
		for _, e := range es { // newest first
			if c.Hash == "" || e.Hash == c.Hash {
				ids, found = append(ids, e.ID), true
				break
			}
		}
		if !found {
			notes = append(notes, fmt.Sprintf("%s:%d: no recorded retrieval of %s with hash %s", name, c.Line, c.Reference, c.Hash))
		}
	}
	return ids, notes, nil
}

// bundleInput gathers the log and the checkpoint a bundle carries: a new
// checkpoint signed with private, or the latest saved one.
func bundleInput(ctx context.Context, a *app, entries []*store.Entry, private string) (*ledger.BundleInput, error) {
	leaves, err := logLeaves(ctx, a.Store)
	if err != nil {
		return nil, err
	}
	in := &ledger.BundleInput{Entries: entries, Leaves: leaves, Snapshot: a.Store.OpenSnapshot,
		Producer: "retrieve " + retrieve.Build().String(), Now: time.Now()}
	if private != "" {
		public, err := ledger.PublicKey(private)
		if err != nil {
			return nil, ledgerError(err)
		}
		if in.Note, _, _, err = signCheckpoint(a.Root, leaves, private, public); err != nil {
			return nil, err
		}
		in.Key = public
	} else if in.Note, in.Key, _, err = latestNote(checkpointDir(a.Root), ""); err != nil {
		return nil, err
	}
	if ledger.HasWeb(entries) {
		in.WARC = func(w io.Writer) error {
			_, err := ledger.WriteWARC(ctx, w, entries, a.Store.OpenSnapshot)
			return err
		}
	}
	return in, nil
}

// writeOutput writes through write to file (atomically: a temp file beside
// it, renamed at the end) or to standard output for "-", and returns the
// bytes written.
func writeOutput(stdio *Streams, file string, write func(w io.Writer) error) (int64, error) {
	if file == "-" {
		cw := &countWriter{w: stdio.Out}
		err := write(cw)
		return cw.n, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*.tmp")
	if err != nil {
		return 0, retrieve.Errorf(retrieve.CodeWriteFailed, "cannot write %s", file).WithErr(err)
	}
	cw := &countWriter{w: tmp}
	err = write(cw)
	if cerr := tmp.Close(); err == nil && cerr != nil {
		err = retrieve.Errorf(retrieve.CodeWriteFailed, "cannot write %s", file).WithErr(cerr)
	}
	if err == nil {
		if rerr := os.Rename(tmp.Name(), file); rerr != nil {
			err = retrieve.Errorf(retrieve.CodeWriteFailed, "cannot write %s", file).WithErr(rerr)
		}
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return 0, err
	}
	return cw.n, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
