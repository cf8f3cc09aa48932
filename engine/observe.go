package engine

import (
	"context"
	"time"

	"github.com/retrieve-dev/retrieve"
)

// Observe cites what a host agent's own tool read — Claude Code's Read, a
// page its WebFetch returned — from doc, which holds the bytes as the host
// saw them (not as the source is now). It runs the same pipeline as
// Retrieve on req (a reference such as notes.txt:3-9 and its constraints),
// so the citation re-retrieves the same span and verifies like any other.
// With a store the observation is recorded as a ledger entry of op
// "observe", and doc's bytes are kept as its snapshot; without one nothing
// is recorded (the session hook computes hashes this way). The caller
// closes doc.Body.
func (e *Engine) Observe(ctx context.Context, req retrieve.Request, kind string, doc *retrieve.Document, at time.Time) (*retrieve.Result, error) {
	t0 := time.Now()
	recording := e.store != nil && !req.NoRecord
	var sp *spool
	if recording {
		sp = &spool{dir: e.spoolDir}
		defer sp.close()
	}
	if req.Source == "" {
		req.Source = kind
	}
	fetchReq := req
	var (
		res  *retrieve.Result
		keep kept
	)
	err := e.splitReferenceLines(&fetchReq)
	if err == nil {
		res, keep, err = e.build(ctx, &req, &fetchReq, kind, doc, at, sp, nil)
	}
	var ae *retrieve.Error
	if err != nil {
		ae = retrieve.AsError(err)
		res = retrieve.FailureResult(req, at, ae)
	}
	if recording {
		e.record(ctx, "observe", req, res, sp, keep, at, time.Since(t0))
	}
	if ae != nil {
		return res, ae
	}
	return res, nil
}
