package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
)

// VerifyResult re-retrieves what a result cites and compares the hashes.
func (e *Engine) VerifyResult(ctx context.Context, cited *retrieve.Result) *retrieve.Verification {
	return e.verify(ctx, "", cited, func() any { return cited.Retrieved.Data })
}

// VerifyEntry verifies the citation recorded in a ledger entry.
func (e *Engine) VerifyEntry(ctx context.Context, id string) (*retrieve.Verification, error) {
	if e.store == nil {
		return nil, retrieve.Errorf(retrieve.CodeStoreUnavailable, "no store: there is no ledger to verify from").
			WithHint("verify a result file instead, or turn recording on")
	}
	entry, err := e.store.Entry(ctx, id)
	if err != nil {
		return nil, err
	}
	return e.verifyEntry(ctx, entry)
}

func (e *Engine) verifyEntry(ctx context.Context, entry *store.Entry) (*retrieve.Verification, error) {
	var cited retrieve.Result
	if err := json.Unmarshal(entry.Result, &cited); err != nil {
		return nil, fmt.Errorf("decode entry %s: %w", entry.ID, err)
	}
	if cited.Error != nil {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "entry %s is a failed retrieval (%s): there is no citation to verify", entry.ID, cited.Error.Code).
			WithHint("verify a successful retrieval; `retrieve log --status ok` lists them")
	}
	// The cited data is needed only for the diff of a changed citation:
	// an entry recorded without it rebuilds it from its snapshot then.
	citedData := func() any {
		if !entry.DataInSnapshot {
			return cited.Retrieved.Data
		}
		full, err := e.RecordedResult(ctx, e.store, entry)
		if err != nil {
			return nil
		}
		return full.Retrieved.Data
	}
	return e.verify(ctx, entry.ID, &cited, citedData), nil
}

func (e *Engine) verify(ctx context.Context, id string, cited *retrieve.Result, citedData func() any) *retrieve.Verification {
	v := &retrieve.Verification{
		RetrievalID: id,
		Reference:   cited.Citation.Reference,
		Version:     deref(cited.Citation.Version),
		CitedHash:   deref(cited.Citation.Hash),
		Notes:       []string{},
	}
	if id == "" {
		v.RetrievalID = cited.RetrievalID
	}
	req := retrieve.CitationRequest(cited)
	if err := citationHeaders(id, cited, &req); err != nil {
		v.Status = retrieve.Unavailable
		v.Error = retrieve.AsError(err).Info()
		return v
	}
	if strings.HasSuffix(v.Version, "+dirty") {
		if e.store != nil && v.RetrievalID != "" {
			return e.verifySnapshot(ctx, v, cited, req, citedData)
		}
		v.Notes = append(v.Notes, "The citation was made from an uncommitted working copy: only its recorded snapshot proves it, and there is no ledger entry to read it from; this compares it with the file as it is now")
	}
	now, f, err := e.run(ctx, "verify", req)
	if f.CurrentOnly && v.Version != "" {
		v.Notes = append(v.Notes, "The source cannot read as of the cited version "+v.Version+": the document as it is now was compared")
	}
	v.VerificationID = now.RetrievalID
	if err != nil {
		v.Status = retrieve.Unavailable
		v.Error = retrieve.AsError(err).Info()
		return v
	}
	v.CurrentHash = deref(now.Citation.Hash)
	if v.CurrentHash == v.CitedHash && v.CitedHash != "" {
		v.Status = retrieve.Verified
		return v
	}
	v.Status = retrieve.Changed
	v.Diff = diffData(v.Reference, citedData(), now.Retrieved.Data)
	return v
}

// citationHeaders puts the request headers a citation records back on
// req, their ${env:NAME} references expanded when the request is sent.
// Only a ledger entry's (id) are: a result handed in by a caller could
// name any variable and any host, and a server must not send its
// environment where a client says.
func citationHeaders(id string, cited *retrieve.Result, req *retrieve.Request) error {
	hs, err := retrieve.CitationHeaders(cited)
	if err != nil || len(hs) == 0 {
		return err
	}
	if id == "" {
		return retrieve.Errorf(retrieve.CodeInputValidation, "the citation was made with request headers (%d), which are sent again only for a recorded retrieval", len(hs)).
			WithHint("verify it by its retrieval id: retrieve verify <retrieval_id>")
	}
	req.Web.Headers = hs
	return nil
}

// diffData is a unified diff of two returned data values: text as is,
// structured data as indented JSON.
func diffData(ref string, old, cur any) string {
	return udiff.Unified(ref+" (cited)", ref+" (now)", renderData(old), renderData(cur))
}

func renderData(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	default:
		b, err := json.MarshalIndent(x, "", "  ")
		if err != nil {
			return fmt.Sprint(x)
		}
		return string(b) + "\n"
	}
}

// VerifyFilter selects the ledger entries that VerifyAll checks.
type VerifyFilter struct {
	Since time.Time
	Limit int
}

// VerifiableEntries lists the successful retrievals recorded in the ledger,
// newest first.
func (e *Engine) VerifiableEntries(ctx context.Context, f VerifyFilter) ([]*store.Entry, error) {
	if e.store == nil {
		return nil, retrieve.Errorf(retrieve.CodeStoreUnavailable, "no store: there is no ledger to verify from").
			WithHint("turn recording on (record: true in .retrieve/config.yaml)")
	}
	return e.store.Entries(ctx, store.Filter{Op: "get", Status: store.StatusOK, Since: f.Since, Limit: f.Limit})
}

// VerifyEntries verifies entries with at most workers at a time, calling
// progress after each one. Results are in the order of entries.
func (e *Engine) VerifyEntries(ctx context.Context, entries []*store.Entry, workers int, progress func()) []*retrieve.Verification {
	if workers < 1 {
		workers = 1
	}
	out := make([]*retrieve.Verification, len(entries))
	jobs := make(chan int)
	done := make(chan struct{})
	for range workers {
		go func() {
			for i := range jobs {
				v, err := e.verifyEntry(ctx, entries[i])
				if err != nil {
					v = &retrieve.Verification{Status: retrieve.Unavailable, RetrievalID: entries[i].ID, Reference: entries[i].Reference, CitedHash: entries[i].Hash, Error: retrieve.AsError(err).Info(), Notes: []string{}}
				}
				out[i] = v
				if progress != nil {
					progress()
				}
			}
			done <- struct{}{}
		}()
	}
	for i := range entries {
		jobs <- i
	}
	close(jobs)
	for range workers {
		<-done
	}
	return out
}

// verifySnapshot verifies a citation of an uncommitted working copy
// (version git:<sha>+dirty): no revision can re-retrieve it, so the data is
// re-extracted from the snapshot recorded with the citation and its hash
// compared; the working copy as it is now is not consulted.
func (e *Engine) verifySnapshot(ctx context.Context, v *retrieve.Verification, cited *retrieve.Result, req retrieve.Request, citedData func() any) *retrieve.Verification {
	v.Notes = append(v.Notes, "The citation was made from an uncommitted working copy (version "+v.Version+"): it is verified against its recorded snapshot only, not against the file as it is now")
	fail := func(err error) *retrieve.Verification {
		v.Status = retrieve.Unavailable
		v.Error = retrieve.AsError(err).Info()
		return v
	}
	entry, err := e.store.Entry(ctx, v.RetrievalID)
	if err != nil {
		return fail(err)
	}
	if entry.Snapshot == "" {
		return fail(retrieve.Errorf(retrieve.CodeNotFound, "retrieval %s kept no snapshot of %s", entry.ID, v.Reference).
			WithHint("commit the file and cite it again: a committed revision verifies for as long as the commit exists"))
	}
	doc, err := e.snapshotDocument(ctx, entry)
	if err != nil {
		return fail(err)
	}
	defer doc.Body.Close()
	fetchReq := req
	if err := e.splitReferenceLines(&fetchReq); err != nil {
		return fail(err)
	}
	res, _, err := e.build(ctx, &req, &fetchReq, cited.Provenance.SourceType, doc, e.now(), nil, nil)
	if err != nil {
		return fail(err)
	}
	v.CurrentHash = deref(res.Citation.Hash)
	if cs := deref(cited.Citation.SourceHash); cs != "" && cs != deref(res.Citation.SourceHash) {
		v.Status = retrieve.Changed
		v.Notes = append(v.Notes, "The recorded snapshot does not hash to the cited source hash: the store is damaged")
		return v
	}
	if v.CurrentHash == v.CitedHash && v.CitedHash != "" {
		v.Status = retrieve.Verified
		return v
	}
	v.Status = retrieve.Changed
	v.Diff = diffData(v.Reference, citedData(), res.Retrieved.Data)
	return v
}
