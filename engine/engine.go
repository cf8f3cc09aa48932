// Package engine runs retrievals: resolve a target to its source (by
// scheme) → fetch (the source applies roots and the deny list) → hash while
// extracting → cite → record in the ledger, with the snapshot fallback,
// verification, quotes, outlines and observations built on the same
// pipeline. It stands on the contract (package retrieve), the extractors
// and the store interface; sources, the code parser and the store are
// injected through Options. The public Go API is New(Options) and the
// methods of *Engine (docs/ARCHITECTURE.md, Decisions).
package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/store"
)

// Defaults of an Engine.
const (
	// DefaultMaxBytes caps the returned data when the request sets no max_bytes.
	DefaultMaxBytes = 10 << 20
	// DefaultParseLimit caps the part of a document held in memory for
	// whole-document work (markdown sections, structured parsing, jq).
	DefaultParseLimit = 256 << 20
	// DefaultSelectLimit caps the structured text a jq expression other
	// than a plain path runs on (a plain path, .[1000] or .a.b, is
	// streamed whatever the size).
	DefaultSelectLimit = 16 << 20
	// DefaultStaleAfter is the time-to-live of volatile documents
	// (Document.Volatile): the seed's 24 h rule.
	DefaultStaleAfter = 24 * time.Hour
	// StaleHalfLife is the confidence half-life of stale data (14 days, the
	// trust model of the seed's repository).
	StaleHalfLife = 14 * 24 * time.Hour
)

// Options configure an Engine.
type Options struct {
	// Sources are registered in order; the first Matcher that matches a
	// target without an explicit source wins, then "file".
	Sources []retrieve.Source
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
	// MaxBytes is the default cap on returned data (DefaultMaxBytes when 0).
	MaxBytes int64
	// ParseLimit caps whole-document extraction (DefaultParseLimit when 0).
	ParseLimit int64
	// StaleAfter is the TTL of volatile documents (DefaultStaleAfter when 0).
	StaleAfter time.Duration
	// SelectLimit caps the text a jq expression that is not a plain path
	// parses and runs on (DefaultSelectLimit when 0; select_max_input in
	// the workspace configuration).
	SelectLimit int64
	// Store, when set, records every retrieval in the ledger and keeps the
	// source bytes as content-addressed snapshots.
	Store store.Store
	// SpoolDir holds the temporary copies of large documents on their way
	// to the snapshot store (the workspace's .retrieve/tmp).
	SpoolDir string
	// Code parses source files for --section on code and Outline; nil
	// leaves both UNSUPPORTED_FORMAT (extract/codeparser provides one).
	Code retrieve.CodeParser
	// Formats is the registry of document formats (format/formats.Default()
	// in cmd/retrieve): a document whose format extracts text (PDF, office
	// files, notebooks, HTML files) is read whole and its text returned;
	// nil leaves such documents binary.
	Formats *format.Registry
	// FormatLimits bound one document's extraction (format.DefaultLimits
	// for zero fields).
	FormatLimits format.Limits
	// StoreError, when set, says why the store could not be opened: the
	// engine still retrieves, and every result says it was not recorded.
	StoreError error
}

// Engine runs retrievals: resolve (by scheme) → fetch (the source applies
// roots and the deny list) → hash → extract → cite → record.
// It is safe for concurrent use.
type Engine struct {
	reg         *retrieve.Registry
	now         func() time.Time
	maxBytes    int64
	parseLimit  int64
	selectLimit int64
	staleAfter  time.Duration
	store       store.Store
	spoolDir    string
	storeErr    error
	code        retrieve.CodeParser
	formats     *format.Registry
	// formatLimits bound document extraction.
	formatLimits format.Limits
}

var _ retrieve.Retriever = (*Engine)(nil)

// New returns an Engine with the given options.
func New(opts Options) (*Engine, error) {
	e := &Engine{
		reg:         retrieve.NewRegistry(opts.Sources...),
		now:         opts.Now,
		maxBytes:    opts.MaxBytes,
		parseLimit:  opts.ParseLimit,
		selectLimit: opts.SelectLimit,
		staleAfter:  opts.StaleAfter,
		store:       opts.Store,
		spoolDir:    opts.SpoolDir,
		storeErr:    opts.StoreError,
		code:        opts.Code,
		formats:     opts.Formats,

		formatLimits: opts.FormatLimits.WithDefaults(),
	}
	if e.now == nil {
		e.now = time.Now
	}
	if e.maxBytes <= 0 {
		e.maxBytes = DefaultMaxBytes
	}
	if e.parseLimit <= 0 {
		e.parseLimit = DefaultParseLimit
	}
	if e.staleAfter <= 0 {
		e.staleAfter = DefaultStaleAfter
	}
	if e.selectLimit <= 0 {
		e.selectLimit = DefaultSelectLimit
	}
	return e, nil
}

// Registry returns the engine's sources.
func (e *Engine) Registry() *retrieve.Registry { return e.reg }

// Store returns the engine's store, nil when it records nothing.
func (e *Engine) Store() store.Store { return e.store }

// Retrieve runs one retrieval. It always returns a Result: on failure the
// failure envelope (complete false, data null, error set) together with the
// *Error, so that callers can both print the envelope and branch on the code.
// With a store, the retrieval is recorded (unless req.NoRecord) and its
// source bytes kept as a snapshot; with req.Fallback "snapshot", a failed
// live retrieval is answered from the last snapshot of the target.
func (e *Engine) Retrieve(ctx context.Context, req retrieve.Request) (*retrieve.Result, error) {
	res, _, err := e.run(ctx, "get", req)
	return res, err
}

// run runs one retrieval, recorded as op, and returns the facts of the
// document it read (zero on failure).
func (e *Engine) run(ctx context.Context, op string, req retrieve.Request) (*retrieve.Result, facts, error) {
	return e.runFit(ctx, op, req, nil)
}

// runFit is run with the data held to a message budget (nil: none).
func (e *Engine) runFit(ctx context.Context, op string, req retrieve.Request, fit *Fit) (*retrieve.Result, facts, error) {
	started := e.now()
	t0 := time.Now()
	recording := e.store != nil && !req.NoRecord
	var sp *spool
	if recording {
		sp = e.newSpool(ctx)
		defer sp.close()
	}
	res, keep, err := e.retrieve(ctx, &req, started, sp, fit)
	if err != nil && req.Fallback == retrieve.FallbackSnapshot && e.store != nil && !refusedByRule(err) {
		if fres, ff, ferr := e.fallback(ctx, &req, started, err, fit); ferr == nil {
			res, err, keep, sp = fres, nil, kept{facts: ff}, nil
		}
	}
	var ae *retrieve.Error
	if err != nil {
		ae = retrieve.AsError(err)
		res = retrieve.FailureResult(req, started, ae)
	}
	// No credential of a URL leaves the engine, returned or recorded.
	res.RedactSecrets()
	if ae != nil {
		ae.Message, ae.Hint = retrieve.RedactText(ae.Message), retrieve.RedactText(ae.Hint)
	}
	if recording {
		e.record(ctx, op, req, res, sp, keep, started, time.Since(t0))
	} else if e.storeErr != nil && !req.NoRecord {
		res.Assumptions = append(res.Assumptions, "This retrieval was not recorded in the ledger: "+describe(e.storeErr))
	}
	if ae != nil {
		return res, facts{}, ae
	}
	return res, keep.facts, nil
}

func (e *Engine) retrieve(ctx context.Context, req *retrieve.Request, started time.Time, sp *spool, fit *Fit) (*retrieve.Result, kept, error) {
	if req.Target == "" {
		return nil, kept{}, retrieve.Errorf(retrieve.CodeInputValidation, "target is required").
			WithHint("pass a path, a URL or a reference such as README.md:1-20")
	}
	if err := req.Check(); err != nil {
		return nil, kept{}, err
	}
	if scheme, _ := e.reg.SchemeOf(req.Target); req.Source == "" && req.Constraints.Version != "" && scheme == "" {
		if src, ok := e.reg.PathVersions(); ok {
			req.Source = src.Kind() // a path at a revision: `get README.md --version v1.2`
		}
	}
	src, err := e.reg.Resolve(req)
	if err != nil {
		return nil, kept{}, err
	}
	fetchReq := *req
	if err := e.splitReference(&fetchReq); err != nil {
		return nil, kept{}, err
	}
	from := e.recordedQuery(ctx, &fetchReq)
	doc, err := src.Fetch(ctx, &fetchReq)
	if err != nil {
		return nil, kept{}, fmt.Errorf("fetch %s: %w", req.Target, err)
	}
	if doc.Body != nil {
		defer doc.Body.Close()
	}
	res, keep, err := e.build(ctx, req, &fetchReq, src.Kind(), doc, started, sp, fit)
	if res != nil && from != "" {
		res.Assumptions = append(res.Assumptions, "The query and its parameters were taken from retrieval "+from+", which cited this query (this reference or another part of it); the query hash checks that they are the same")
	}
	return res, keep, err
}

// recordedQuery fills the query of a stored-query reference (sql:pg#<sha256
// of the query>) from the newest recorded retrieval that cited it, so that
// such a reference is a target; it returns that retrieval's id, or "" when
// nothing was filled. Only a reference with a fragment, of a source other
// than files, git and the web, asked without a query, costs a ledger
// look-up; the source still checks the query against the hash.
func (e *Engine) recordedQuery(ctx context.Context, req *retrieve.Request) string {
	if e.store == nil || req.Constraints.Query != "" || !strings.Contains(req.Target, "#") {
		return ""
	}
	switch retrieve.ParseReference(req.Target).Scheme {
	case "file", "git", "web":
		return ""
	}
	entries, err := e.store.Entries(ctx, store.Filter{Op: "get", Reference: req.Target, Status: store.StatusOK, Limit: 1})
	if base, _, paged := strings.Cut(req.Target, "#rows="); err == nil && len(entries) == 0 && paged {
		// A part of a paged query (sql:pg#<hash>#rows=101-): any recorded
		// part, or the whole, cited the same query.
		entries, err = e.store.Entries(ctx, store.Filter{Op: "get", ReferencePrefix: base + "#rows=", Status: store.StatusOK, Limit: 1})
		if err == nil && len(entries) == 0 {
			entries, err = e.store.Entries(ctx, store.Filter{Op: "get", Reference: base, Status: store.StatusOK, Limit: 1})
		}
	}
	if err != nil || len(entries) == 0 {
		return ""
	}
	var prev retrieve.Result
	if json.Unmarshal(entries[0].Result, &prev) != nil {
		return ""
	}
	cited := retrieve.CitationRequest(&prev)
	if cited.Constraints.Query == "" {
		return ""
	}
	req.Constraints.Query = cited.Constraints.Query
	if len(req.Constraints.Params) == 0 {
		req.Constraints.Params = cited.Constraints.Params
	}
	if req.Constraints.MaxRows == 0 {
		req.Constraints.MaxRows = cited.Constraints.MaxRows
	}
	return entries[0].ID
}

// refusedByRule reports a live read that a workspace rule refused (a path
// denied, a link out of the root): no snapshot is served for it either, so
// a path denied since it was recorded, or a file swapped for a link, stays
// refused.
func refusedByRule(err error) bool {
	c := retrieve.AsError(err).Code
	return c == retrieve.CodeSensitivePath || c == retrieve.CodeOutsideRoot
}

// fallback answers req from the last snapshot of its target.
func (e *Engine) fallback(ctx context.Context, req *retrieve.Request, started time.Time, liveErr error, fit *Fit) (*retrieve.Result, facts, error) {
	entry, err := e.lastGood(ctx, req.Target)
	if err != nil {
		return nil, facts{}, err
	}
	doc, err := e.snapshotDocument(ctx, entry)
	if err != nil {
		return nil, facts{}, err
	}
	defer doc.Body.Close()
	le := retrieve.AsError(liveErr)
	// Bytes that were true when recorded are not bytes read now: a
	// fallback scores below a live read of the same bytes (docs/CONTRACT.md).
	doc.Deductions = append(doc.Deductions, fallbackDeduction)
	doc.Assumptions = append(doc.Assumptions, fmt.Sprintf(fallbackNote+" (%s: %s); this is the snapshot recorded at %s by retrieval %s", le.Code, le.Message, retrieve.Timestamp(entry.Time), entry.ID))
	fetchReq := *req
	if err := e.splitReference(&fetchReq); err != nil {
		return nil, facts{}, err
	}
	kind := ""
	var prev retrieve.Result
	if json.Unmarshal(entry.Result, &prev) == nil {
		kind = prev.Provenance.SourceType
	}
	res, keep, err := e.build(ctx, req, &fetchReq, kind, doc, started, nil, fit)
	if err != nil || res == nil || kind == "" {
		return res, keep.facts, err
	}
	// A snapshot is no more faithful than the read that recorded it (a
	// heuristic conversion, a cut): it scores at most that read's
	// confidence, decayed further when stale, and says why with that read's
	// notes (docs/CONTRACT.md).
	decay := 1.0
	if res.Provenance.Freshness == retrieve.FreshnessStale {
		decay = math.Pow(0.5, res.Provenance.AgeSeconds/StaleHalfLife.Seconds())
	}
	limit := retrieve.Confidence([]retrieve.Deduction{{Reason: "the recording retrieval's", Amount: 1 - prev.Confidence}, fallbackDeduction}, decay)
	note := fmt.Sprintf(fallbackCapNote+" %s (%.3g)", entry.ID, prev.Confidence)
	var notes []string
	for _, a := range prev.Assumptions {
		if !strings.HasPrefix(a, fallbackNote) && !strings.HasPrefix(a, fallbackCapNote) && !slices.Contains(res.Assumptions, a) {
			notes = append(notes, a)
		}
	}
	if len(notes) > 0 {
		note += "; it noted: " + strings.Join(notes, "; ")
	}
	res.Assumptions = append(res.Assumptions, note)
	if res.Confidence > limit {
		res.Confidence = limit
	}
	return res, keep.facts, nil
}

// fallbackDeduction is what a result served from a snapshot after a failed
// live read loses: the source may have changed or gone since.
var fallbackDeduction = retrieve.Deduction{Reason: "served from a snapshot, the live read failed", Amount: 0.05}

// The notes of a result served by --fallback snapshot.
const (
	fallbackNote    = "The live retrieval failed"
	fallbackCapNote = "Scored at most as the retrieval that recorded this snapshot,"
)

// splitReference moves what a reference names besides its document —
// lines, a document fragment, and lines before a byte fragment
// (big.log:40-#bytes=0-999) — into the request's constraints.
//
// Fragments follow one another (report.pdf#page=3:10-12#bytes=0-99): they
// are taken off from the end until the target is the document's.
func (e *Engine) splitReference(req *retrieve.Request) error {
	for range 4 {
		before := req.Target
		if err := e.splitReferenceLines(req); err != nil {
			return err
		}
		if err := splitReferenceFragment(req); err != nil {
			return err
		}
		if req.Target == before {
			return nil
		}
	}
	return nil
}

// splitReferenceLines moves a reference's line suffix (README.md:1-20) into
// the line constraint, so that every citation reference round-trips. The
// registry parses the reference: a registered source's form decides
// whether it has a line suffix (kv:b/a:2-3 has; wiki:topic/x:2 has not; a
// URL, web or s3://, is whole).
func (e *Engine) splitReferenceLines(req *retrieve.Request) error {
	ref := e.reg.ParseReference(req.Target)
	if ref.Lines == "" {
		return nil
	}
	if req.Constraints.Lines != "" && req.Constraints.Lines != ref.Lines {
		return retrieve.Errorf(retrieve.CodeInputValidation, "target %q already names lines %s, and --lines %s was given too", req.Target, ref.Lines, req.Constraints.Lines).
			WithHint("give the line range once, either in the reference or with --lines")
	}
	req.Constraints.Lines = ref.Lines
	ref.Lines = ""
	req.Target = ref.String()
	return nil
}
