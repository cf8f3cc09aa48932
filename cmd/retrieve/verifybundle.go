package main

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/retrieve-dev/retrieve/store"
)

// Statuses of a bundle's citation.
const (
	bundleVerified = "verified"
	bundleFailed   = "failed"
	// bundleUnproven: the entry, its snapshot and the log check, but the
	// cited data could not be extracted again from the snapshot here.
	bundleUnproven = "unproven"
	// dataUnreproduced is the data check of an unproven citation.
	dataUnreproduced = "not_reproduced"
)

// citationCheck is one entry of `verify --bundle`: the ledger's checks
// (snapshot, leaf, inclusion, anchor), the data extracted again from the
// snapshot, and with --live the source now.
type citationCheck struct {
	Status string `json:"status"`
	*ledger.EntryCheck
	// Data: the data extracted again from the snapshot (or kept in the
	// entry) hashes to the citation's hash (ok), there is none (none), or
	// not (failed).
	Data string `json:"data"`
	// Unproven says why the data was not reproduced.
	Unproven string                 `json:"unproven,omitempty"`
	Live     *retrieve.Verification `json:"live,omitempty"`
}

// bundleReport is what `verify --bundle` prints.
type bundleReport struct {
	Bundle     string                 `json:"bundle"`
	Selection  string                 `json:"selection"`
	Created    string                 `json:"created"`
	Log        ledger.BundleLog       `json:"log"`
	Checkpoint ledger.CheckpointCheck `json:"checkpoint"`
	Citations  []*citationCheck       `json:"citations"`
	WARC       ledger.WARCCheck       `json:"warc"`
	Notes      []string               `json:"notes"`
	Summary    map[string]int         `json:"summary"`
}

func runVerifyBundle(ctx context.Context, stdio *Streams, opts *verifyOptions) error {
	if opts.Arg != "" || opts.All || opts.Since != "" {
		return failStartup(stdio, retrieve.Errorf(retrieve.CodeInputValidation, "--bundle takes no retrieval id, --all or --since"))
	}
	var key string
	if opts.Key != "" {
		b, err := os.ReadFile(opts.Key)
		if err != nil {
			return failStartup(stdio, retrieve.Errorf(retrieve.CodeInputValidation, "cannot read the public key %s", opts.Key).WithErr(err))
		}
		key = strings.TrimSpace(string(b))
	}
	b, closeBundle, err := openBundleFile(opts.Bundle)
	if err != nil {
		return failStartup(stdio, err)
	}
	defer closeBundle()
	a, cleanup, err := bundleApp(ctx, opts.Global, opts.Live)
	if err != nil {
		return failStartup(stdio, err)
	}
	defer cleanup()
	v := b.Verify(ctx, key)
	if key != "" && !v.Checkpoint.Present {
		// The reviewer asked for a signature: a bundle without one does not
		// prove what was asked.
		v.Checkpoint.Problem = &ledger.BundleError{Kind: ledger.BundleMalformed, Name: ledger.BundleCheckpoint,
			Detail: "--key was given, but the bundle carries no signed checkpoint: nothing in it is signed"}
	}
	rep := &bundleReport{Bundle: opts.Bundle, Selection: b.Manifest.Selection, Created: retrieve.Timestamp(b.Manifest.Created),
		Log: v.Log, Checkpoint: v.Checkpoint, Citations: []*citationCheck{}, WARC: v.WARC, Notes: append([]string{}, v.Notes...), Summary: map[string]int{}}
	if v.Checkpoint.Present && v.Checkpoint.KeySource == "bundle" && v.Checkpoint.Signature == ledger.CheckOK {
		rep.Notes = append(rep.Notes, "the checkpoint was checked with the key the bundle carries: give the log's public key with --key to check who signed it")
	}
	var lives []*retrieve.Verification
	for _, c := range v.Entries {
		cc := &citationCheck{EntryCheck: c, Data: ledger.CheckNone}
		rep.Citations = append(rep.Citations, cc)
		e := b.Entries[c.ID]
		if e.Status != store.StatusOK || c.Snapshot == ledger.CheckFail {
			finishCitation(cc, v.Checkpoint.Problem)
			rep.Summary[cc.Status]++
			continue
		}
		res := checkData(ctx, a, b, e, cc)
		if opts.Live && res != nil {
			cc.Live = a.Engine.VerifyResult(ctx, res)
			lives = append(lives, cc.Live)
			rep.Summary["live_"+cc.Live.Status]++
		}
		finishCitation(cc, v.Checkpoint.Problem)
		rep.Summary[cc.Status]++
	}
	if err := writeBundleReport(stdio, opts.Global, rep); err != nil {
		return err
	}
	if rep.Summary[bundleFailed] > 0 || v.Checkpoint.Problem != nil || v.WARC.Status == ledger.CheckFail {
		return &exitError{code: ExitChanged}
	}
	if rep.Summary[bundleUnproven] > 0 {
		return &exitError{code: exitCode(retrieve.CodeEvidenceNotFound)}
	}
	if len(lives) > 0 {
		return verifyExit(lives)
	}
	return nil
}

// checkData extracts the entry's data again from the bundle's snapshot
// (or reads it from the entry) and checks its hash; it returns the result
// with its data when that holds. The entry and the snapshot are proved
// by then, so data that does not come out the same is not reproduced here
// (an extraction this build does differently), not tampering.
func checkData(ctx context.Context, a *app, b *ledger.Bundle, e *store.Entry, cc *citationCheck) *retrieve.Result {
	res, err := a.Engine.RecordedData(ctx, b, e)
	if res == nil {
		cc.Data = ledger.CheckFail
		cc.Fail(ledger.BundleTampered, "entries/"+e.ID+".json", "the recorded result cannot be read: %v", err)
		return nil
	}
	if err != nil {
		cc.Data, cc.Unproven = dataUnreproduced, "the data could not be extracted again from the snapshot: "+retrieve.AsError(err).Message
		return nil
	}
	if e.DataInSnapshot { // the engine compared the hashes
		cc.Data = ledger.CheckOK
		return res
	}
	h, ok := dataHash(res)
	switch {
	case !ok:
		return res // no data in the entry: nothing to hash (a binary file's hash is its bytes')
	case h != e.Hash:
		cc.Data, cc.Unproven = dataUnreproduced, fmt.Sprintf("the recorded data hashes to %s, its citation says %s", h, e.Hash)
		return nil
	}
	cc.Data = ledger.CheckOK
	return res
}

// dataHash is the contract hash of a result's data: the bytes of base64
// binary data, else retrieve.HashData; ok is false when there is none.
func dataHash(res *retrieve.Result) (string, bool) {
	d := res.Retrieved.Data
	if d == nil {
		return "", false
	}
	if s, isStr := d.(string); isStr && res.Retrieved.Format == "binary" {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return "", false
		}
		return retrieve.HashBytes(b), true
	}
	h, err := retrieve.HashData(d)
	return h, err == nil
}

func finishCitation(cc *citationCheck, checkpointProblem *ledger.BundleError) {
	switch {
	case cc.Failed() || checkpointProblem != nil:
		cc.Status = bundleFailed
	case cc.Unproven != "":
		cc.Status = bundleUnproven
	default:
		cc.Status = bundleVerified
	}
}

// openBundleFile opens and checks the shape of a bundle file; the file
// stays open for the snapshots, read when checked, until close.
func openBundleFile(name string) (_ *ledger.Bundle, close func(), err error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, retrieve.Errorf(retrieve.CodePathNotFound, "cannot open the bundle %s", name).WithErr(err)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, retrieve.Errorf(retrieve.CodeNotAFile, "%s is not a regular file", name).WithHint("pass a file written by `retrieve export`")
	}
	b, err := ledger.OpenBundle(f, fi.Size(), ledger.DefaultLimits())
	if err != nil {
		f.Close()
		return nil, nil, bundleError(err)
	}
	return b, func() { f.Close() }, nil
}

// bundleError translates a ledger.BundleError into the error classes.
func bundleError(err error) error {
	var be *ledger.BundleError
	if !errors.As(err, &be) {
		return err
	}
	code, hint := retrieve.CodeParseFailed, "the file is not a whole bundle written by `retrieve export`: ask for it again"
	switch be.Kind {
	case ledger.BundleTooLarge:
		code, hint = retrieve.CodeTooLarge, "the bundle is over the reader's caps (a zip bomb, or an export too large to check here)"
	case ledger.BundleUnsafe:
		code, hint = retrieve.CodeInputValidation, "the bundle holds a file a bundle never has: it was not written by retrieve export, or was altered"
	case ledger.BundleTampered:
		code, hint = retrieve.CodeChanged, "the bundle was altered after export"
	}
	return retrieve.Errorf(code, "%s", be.Error()).WithHint("%s", hint)
}

// bundleApp opens an engine that records nothing: on an empty temporary
// workspace, or with live on the workspace given (whose sources --live
// reads).
func bundleApp(ctx context.Context, g *globalOptions, live bool) (*app, func(), error) {
	gg := *g
	gg.Store = ""
	cleanup := func() {}
	if !live {
		tmp, err := os.MkdirTemp("", "retrieve-verify-")
		if err != nil {
			return nil, nil, retrieve.Errorf(retrieve.CodeWriteFailed, "cannot make a temporary directory").WithErr(err)
		}
		gg.Root = tmp
		cleanup = func() { _ = os.RemoveAll(tmp) }
	}
	a, err := openWorkspaceApp(&gg)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	off := false
	a.Config.Record = &off
	if err := a.openEngine(ctx, storeOptional); err != nil {
		a.Close()
		cleanup()
		return nil, nil, err
	}
	return a, func() { a.Close(); cleanup() }, nil
}

func writeBundleReport(stdio *Streams, g *globalOptions, rep *bundleReport) error {
	if g.JSON || g.YAML {
		return writeResult(stdio.Out, g, rep)
	}
	pal, err := colorOn(g.Color, stdio, os.Getenv)
	if err != nil {
		return err
	}
	tw := newTable(stdio.Out, 2, 2)
	fmt.Fprintln(tw, "STATUS\tREFERENCE\tRETRIEVAL\tANCHOR\tDETAIL")
	for _, c := range rep.Citations {
		detail := ""
		if len(c.Problems) > 0 {
			detail = c.Problems[0].Error()
		} else if c.Unproven != "" {
			detail = c.Unproven
		} else if c.Live != nil {
			detail = "live: " + c.Live.Status
		}
		st := pal.status(c.Status)
		switch c.Status {
		case bundleFailed:
			st = pal.red(c.Status)
		case bundleUnproven:
			st = pal.yellow(c.Status)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", st, trim(c.Reference, 50), c.ID, c.Anchor, trim(detail, 90))
	}
	tw.Flush()
	cp := rep.Checkpoint
	switch {
	case cp.Problem != nil:
		fmt.Fprintf(stdio.Out, "\ncheckpoint: FAILED: %s\n", cp.Problem.Error())
	case cp.Checkpoint != nil:
		fmt.Fprintf(stdio.Out, "\ncheckpoint: %d leaves, signed by %s at %s (key: %s); the bundle's tree: %d leaves\n",
			cp.Checkpoint.Size, cp.Checkpoint.Origin, retrieve.Timestamp(cp.Checkpoint.Time), cp.KeySource, rep.Log.Size)
	default:
		fmt.Fprintf(stdio.Out, "\ncheckpoint: none — the bundle's tree head (%d leaves) is not signed\n", rep.Log.Size)
	}
	switch w := rep.WARC; w.Status {
	case ledger.CheckFail:
		for _, p := range w.Problems {
			fmt.Fprintf(stdio.Out, "web part: FAILED: %s\n", p.Error())
		}
	case ledger.CheckOK:
		fmt.Fprintf(stdio.Out, "web part: %d WARC records, %d captures match the snapshots and entries\n", w.Records, w.Captures)
	}
	for _, n := range rep.Notes {
		fmt.Fprintln(stdio.Out, "note:", n)
	}
	fmt.Fprintf(stdio.Out, "%d verified, %d unproven, %d failed (of %d)\n", rep.Summary[bundleVerified], rep.Summary[bundleUnproven], rep.Summary[bundleFailed], len(rep.Citations))
	return nil
}
