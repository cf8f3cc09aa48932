package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
)

// record appends the ledger entry of one retrieval and stores its snapshot.
// A failure to record never fails the retrieval: the result says it was
// not recorded.
func (e *Engine) record(ctx context.Context, op string, req retrieve.Request, res *retrieve.Result, sp *spool, keep kept, started time.Time, took time.Duration) {
	// Nothing recorded holds a URL's credentials (docs/SECURITY.md).
	req = retrieve.RedactRequest(req)
	res.RedactSecrets()
	entry := &store.Entry{
		ID:       retrieve.NewID(),
		Time:     started.UTC(),
		Op:       op,
		Target:   req.Target,
		Source:   res.Provenance.SourceType,
		Status:   store.StatusOK,
		Duration: took,
	}
	if res.Error != nil {
		entry.Status = store.StatusError
		entry.Code = string(res.Error.Code)
	} else {
		entry.Reference = res.Citation.Reference
		entry.Hash = deref(res.Citation.Hash)
		entry.SourceHash = deref(res.Citation.SourceHash)
	}
	// Use contexts that outlive a canceled request: the entry of a
	// retrieval that happened must not be lost. The snapshot and the entry
	// each get their own deadline, the snapshot's growing with its size:
	// a large snapshot that a store takes at a sane speed is never cut by
	// a deadline, and never leaves the entry no time.
	if sp != nil && keep.snapshot != "" && res.Error == nil {
		var size int64
		if res.Extraction.OriginalSize != nil {
			size = *res.Extraction.OriginalSize
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), snapshotTimeout(size))
		err := e.putSnapshot(sctx, keep.snapshot, sp)
		cancel()
		if err != nil {
			res.Assumptions = append(res.Assumptions, "The source bytes were not kept as a snapshot: "+retrieve.AsError(err).Message)
		} else {
			entry.Snapshot = keep.snapshot
		}
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	entry.Request, _ = json.Marshal(req)
	res.RetrievalID = entry.ID
	recorded := res
	if res.Error == nil {
		// The document's facts go with the entry: a snapshot served later
		// is cited and aged as this document was.
		recorded = withFacts(res, keep.facts)
	}
	if keep.refused != "" {
		// The source forbids keeping the bytes: the entry records the
		// citation (hash, reference) without the data.
		// Nor its text inside a text fragment (#:~:text=…) of an anchor
		// or the reference (issue #32).
		elided := *recorded
		elided.Retrieved.Data = nil
		elided.EvidenceAnchors = make([]string, len(recorded.EvidenceAnchors))
		for i, a := range recorded.EvidenceAnchors {
			elided.EvidenceAnchors[i] = withoutTextFragment(a)
		}
		elided.Citation.Reference = withoutTextFragment(recorded.Citation.Reference)
		recorded = &elided
	} else if entry.Snapshot != "" && res.Retrieved.Data != nil {
		// The snapshot holds the bytes: the entry keeps the result without
		// a second copy of the data, and RecordedResult extracts it again.
		elided := *recorded
		elided.Retrieved.Data = nil
		recorded = &elided
		entry.DataInSnapshot = true
	}
	b, err := json.Marshal(recorded)
	if err == nil {
		entry.Result = b
		err = e.store.Append(wctx, entry)
	}
	if errors.Is(err, store.ErrSnapshotGone) {
		// A gc (of another replica) dropped the snapshot after this
		// retrieval found it: record the entry without it, with the data
		// the snapshot was to hold.
		res.Assumptions = append(res.Assumptions, "The source bytes were not kept as a snapshot: "+retrieve.AsError(err).Message)
		entry.Snapshot = ""
		err = nil
		if entry.DataInSnapshot {
			entry.DataInSnapshot = false
			entry.Result, err = json.Marshal(withFacts(res, keep.facts))
		}
		if err == nil {
			err = e.store.Append(wctx, entry)
		}
	}
	if err != nil {
		res.RetrievalID = ""
		res.Assumptions = append(res.Assumptions, "This retrieval was not recorded in the ledger: "+describe(err))
	}
}

// storeEarly stores the snapshot of a retrieval before it is cut and
// cited, and lets go of the spool's bytes: a retrieval that shares a
// message (retrieve_many) then waits for the others holding its data
// only. record reports the outcome as it does for a snapshot stored with
// the entry.
func (e *Engine) storeEarly(ctx context.Context, sp *spool, hash string, size int64) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), snapshotTimeout(size))
	defer cancel()
	sp.storedErr = e.putSnapshot(sctx, hash, sp)
	sp.stored = true
	sp.close()
}

// recordTimeout bounds the write of a ledger entry.
const recordTimeout = 30 * time.Second

// snapshotMinRate is the slowest a store is expected to take snapshot
// bytes, in bytes per second: a 1 GiB snapshot that PostgreSQL took in
// 22–33 s on the loaded 2-core machine (compressed, sent, committed) went
// past the single 30 s deadline the snapshot and the entry used to share,
// and lost both.
const snapshotMinRate = 4 << 20

// snapshotTimeout is the deadline of the write of a snapshot of size
// bytes: recordTimeout, plus the time its bytes take at snapshotMinRate.
func snapshotTimeout(size int64) time.Duration {
	return recordTimeout + time.Duration(float64(max(size, 0))/snapshotMinRate*float64(time.Second))
}

func (e *Engine) putSnapshot(ctx context.Context, hash string, sp *spool) error {
	if sp.stored {
		return sp.storedErr
	}
	if sp.known {
		// Not streamed: the store held the snapshot when the retrieval began.
		if has, err := e.store.HasSnapshot(ctx, hash); err != nil || !has {
			if err == nil {
				err = retrieve.Errorf(retrieve.CodeNotFound, "snapshot %s was dropped while the retrieval ran", hash)
			}
			return err
		}
		return nil
	}
	if sp.stage != nil {
		return sp.stage.Commit(ctx, hash)
	}
	has, err := e.store.HasSnapshot(ctx, hash)
	if err != nil {
		return err
	}
	if has {
		return nil
	}
	r, err := sp.reader()
	if err != nil {
		return err
	}
	if err := e.store.PutSnapshot(ctx, hash, r); err != nil {
		if retrieve.IsDiskFull(err) {
			return retrieve.DiskFullError("snapshot "+hash, err)
		}
		return err
	}
	return nil
}

// recordedResult decodes the result an entry recorded. An entry that
// records no retrieval (a forget, a memory write: its op's own report) is
// INVALID_OPERATION, not an empty result.
func recordedResult(entry *store.Entry) (*retrieve.Result, error) {
	var res retrieve.Result
	if err := json.Unmarshal(entry.Result, &res); err != nil {
		return nil, retrieve.Errorf(retrieve.CodeInternal, "ledger entry %s holds no readable result", entry.ID).WithErr(err)
	}
	if res.Retrieved.Target == "" && res.Citation.Reference == "" {
		return nil, retrieve.Errorf(retrieve.CodeInvalidOperation, "ledger entry %s records a %s, not a retrieval: it has no result to show", entry.ID, entry.Op).
			WithHint("its record is in the ledger's list: retrieve log --op %s --json", entry.Op)
	}
	return &res, nil
}

// RecordedResult returns the result recorded in entry, with its data
// rebuilt from the snapshot in st (the store entry comes from) when the
// entry was recorded without it: the
// recorded request is extracted again from the snapshot's bytes, and the
// data is returned only when its hash is the recorded citation hash.
// Otherwise the result has data null and an assumption that says why.
func (e *Engine) RecordedResult(ctx context.Context, st store.Snapshots, entry *store.Entry) (*retrieve.Result, error) {
	res, err := recordedResult(entry)
	if err != nil {
		return nil, err
	}
	recordedFacts(res) // the ledger's, not the result's
	if !entry.DataInSnapshot {
		return res, nil
	}
	data, err := e.rebuildData(ctx, st, entry, res)
	if err != nil {
		res.Assumptions = append(res.Assumptions, "The recorded data could not be rebuilt from snapshot "+entry.Snapshot+": "+describe(err))
		return res, nil
	}
	res.Retrieved.Data = data
	return res, nil
}

// RecordedData is RecordedResult that says why the data could not be
// extracted again (the snapshot is missing, or the extraction no longer
// hashes to the recorded citation) instead of noting it in an assumption:
// what an offline verifier (verify --bundle) needs to tell data it
// reproduced from data it could not.
func (e *Engine) RecordedData(ctx context.Context, st store.Snapshots, entry *store.Entry) (*retrieve.Result, error) {
	res, err := recordedResult(entry)
	if err != nil {
		return nil, err
	}
	recordedFacts(res)
	if !entry.DataInSnapshot {
		return res, nil
	}
	data, err := e.rebuildData(ctx, st, entry, res)
	if err != nil {
		return res, err
	}
	res.Retrieved.Data = data
	return res, nil
}

// rebuildData extracts the recorded request again from entry's snapshot.
func (e *Engine) rebuildData(ctx context.Context, st store.Snapshots, entry *store.Entry, recorded *retrieve.Result) (any, error) {
	if st == nil {
		return nil, retrieve.Errorf(retrieve.CodeStoreUnavailable, "no store to read the snapshot from")
	}
	var req retrieve.Request
	if err := json.Unmarshal(entry.Request, &req); err != nil {
		return nil, retrieve.Errorf(retrieve.CodeInternal, "the recorded request is not readable").WithErr(err)
	}
	doc, err := e.snapshotDocumentFrom(ctx, st, entry)
	if err != nil {
		return nil, err
	}
	defer doc.Body.Close()
	doc.Format = recorded.Retrieved.Format
	// A file or a git blob is kept as read, and was read with no format of
	// its own (detected from its name and bytes, or the request's); a
	// document a format extracted (HTML on disk, PDF, a notebook…) too: read
	// it again so, not as the text or JSON it returned. A web page is kept
	// as its source converted it, in the recorded format.
	kind := recorded.Provenance.SourceType
	if _, doc2 := recorded.Provenance.Metadata["document_format"].(string); (doc2 || kind == "file" || kind == "git") && doc.Format != "binary" {
		doc.Format = ""
	}
	doc.RetrievedFrom = recorded.Provenance.RetrievedFrom
	fetchReq := req
	if err := e.splitReferenceLines(&fetchReq); err != nil {
		return nil, err
	}
	// A fragment (#bytes=, #select=, #page=) selects as the live read did,
	// except a CSS selection: the web source made it before the snapshot
	// was kept (the snapshot is the selection).
	if err := splitReferenceFragment(&fetchReq); err != nil {
		return nil, err
	}
	if recorded.Extraction.AppliedFilters["select_kind"] == "css" {
		fetchReq.Constraints.Select = ""
	}
	res, _, err := e.build(ctx, &req, &fetchReq, recorded.Provenance.SourceType, doc, entry.Time, nil, nil)
	if err != nil {
		return nil, err
	}
	if got, want := deref(res.Citation.Hash), deref(recorded.Citation.Hash); got != want {
		return nil, retrieve.Errorf(retrieve.CodeChanged, "the data extracted again hashes to %s, not the recorded %s", got, want).
			WithHint("the snapshot or the extraction changed since the retrieval was recorded")
	}
	return res.Retrieved.Data, nil
}

// describe renders an error for an assumption: the message of a coded
// error, or the cause of an internal one (store errors are not secrets).
func describe(err error) string {
	var ce *retrieve.Error
	if errors.As(err, &ce) {
		if ce.Err != nil && ce.Code == retrieve.CodeInternal {
			return ce.Err.Error()
		}
		return ce.Message
	}
	return err.Error()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// lastGood returns the newest successful ledger entry for target that kept
// a snapshot.
func (e *Engine) lastGood(ctx context.Context, target string) (*store.Entry, error) {
	target = retrieve.RedactText(target) // as it was recorded
	for _, f := range []store.Filter{{Op: "get", Target: target, Status: store.StatusOK, Limit: 20}, {Op: "get", Reference: target, Status: store.StatusOK, Limit: 20}} {
		entries, err := e.store.Entries(ctx, f)
		if err != nil {
			return nil, err
		}
		for _, en := range entries {
			if en.Snapshot != "" {
				return en, nil
			}
		}
	}
	return nil, retrieve.Errorf(retrieve.CodeNotFound, "no snapshot of %s in the ledger", target).
		WithHint("a snapshot is kept for every recorded successful retrieval; this target has none")
}

// snapshotDocument rebuilds the document of a recorded retrieval from its
// snapshot.
func (e *Engine) snapshotDocument(ctx context.Context, entry *store.Entry) (*retrieve.Document, error) {
	return e.snapshotDocumentFrom(ctx, e.store, entry)
}

func (e *Engine) snapshotDocumentFrom(ctx context.Context, st store.Snapshots, entry *store.Entry) (*retrieve.Document, error) {
	var prev retrieve.Result
	if err := json.Unmarshal(entry.Result, &prev); err != nil {
		return nil, fmt.Errorf("decode recorded result %s: %w", entry.ID, err)
	}
	body, err := st.OpenSnapshot(ctx, entry.Snapshot)
	if err != nil {
		return nil, err
	}
	f := recordedFacts(&prev)
	ref := e.reg.ParseReference(prev.Citation.Reference)
	ref.Lines = ""
	ref.Path = withoutFragment(ref.Path) // the snapshot is the whole document
	doc := &retrieve.Document{
		Body:          body,
		Size:          -1,
		Name:          path.Base(ref.Path),
		Locator:       ref.String(),
		Label:         prev.Retrieved.Source,
		Version:       prev.Citation.Version,
		Authority:     prev.Citation.Authority,
		Reliability:   prev.Provenance.Reliability,
		RetrievedFrom: retrieve.FromSnapshot,
		Age:           e.now().Sub(entry.Time),
		Metadata:      prev.Provenance.Metadata,
	}
	f.apply(doc)
	if prev.Retrieved.Format == "binary" {
		doc.Format = "binary"
	}
	if prev.Provenance.LastModified != nil {
		if t, err := time.Parse(time.RFC3339Nano, *prev.Provenance.LastModified); err == nil {
			doc.LastModified = &t
		}
	}
	return doc, nil
}

// withoutTextFragment cuts a URL text fragment (#:~:text=…), which quotes
// the page, from a reference or an anchor.
func withoutTextFragment(ref string) string {
	if i := strings.Index(ref, ":~:text="); i >= 0 {
		return strings.TrimSuffix(ref[:i], "#")
	}
	return ref
}
