package ops

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/session"
	"github.com/retrieve-dev/retrieve/store"
)

// NoteEvidence resolves, re-checks and audits the evidence of memory notes
// with the engine (a reference is retrieved and recorded; a retrieval id is
// read from the ledger; verification reuses the snapshots and the hash
// cache) and the session journal. It implements memory.EvidenceResolver
// and memory.Auditor.
type NoteEvidence struct {
	Engine *engine.Engine
	// Sessions reads the recorded agent sessions (nil: a session_id is
	// refused).
	Sessions *session.Service
	Now      func() time.Time
}

var (
	_ memory.EvidenceResolver = (*NoteEvidence)(nil)
	_ memory.Auditor          = (*NoteEvidence)(nil)
)

func (n *NoteEvidence) now() time.Time {
	if n.Now == nil {
		return time.Now()
	}
	return n.Now()
}

// unresolved is the error of evidence that does not resolve: its code is
// EVIDENCE_NOT_FOUND, its message says which and why.
func unresolved(item string, err error) error {
	e := retrieve.AsError(err)
	out := retrieve.Errorf(retrieve.CodeEvidenceNotFound, "evidence %q does not resolve: %s: %s", item, e.Code, e.Message).WithErr(err)
	if e.Hint != "" {
		return out.WithHint("%s", e.Hint)
	}
	return out.WithHint("cite something that exists: a path (docs/a.md:1-20), a reference (git:<rev>:<path>, memory:…) or a retrieval id from retrieve log")
}

// ResolveEvidence implements memory.EvidenceResolver.
func (n *NoteEvidence) ResolveEvidence(ctx context.Context, items []string, sess string) ([]memory.Evidence, error) {
	var reads []session.Source
	if sess != "" {
		if n.Sessions == nil {
			return nil, retrieve.Errorf(retrieve.CodeStoreUnavailable, "sessions cannot be read here")
		}
		s, err := n.Sessions.Show(ctx, sess)
		if err != nil {
			return nil, unresolved("session "+sess, err)
		}
		for _, src := range s.Sources {
			if (src.Kind == "file" || src.Kind == "retrieval") && (src.RetrievalID != "" || src.Hash != "") && src.Seen != session.SeenRefused && src.Seen != session.SeenMissing {
				reads = append(reads, src)
			}
		}
		if len(items) == 0 {
			out := make([]memory.Evidence, 0, len(reads))
			seen := map[string]bool{}
			for _, src := range reads {
				e := readEvidence(src)
				e.Via = "session"
				if !seen[e.Reference+e.Hash] {
					seen[e.Reference+e.Hash] = true
					out = append(out, e)
				}
			}
			return out, nil
		}
	}
	out := make([]memory.Evidence, 0, len(items))
	for _, item := range items {
		e, err := n.resolveOne(ctx, item, reads)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// readEvidence is the evidence of a session's read.
func readEvidence(src session.Source) memory.Evidence {
	kind := src.Kind
	if kind == "retrieval" {
		kind = ""
	}
	return memory.Evidence{Reference: src.Reference, RetrievalID: src.RetrievalID, Source: kind, Hash: src.Hash,
		RetrievedAt: src.Time.UTC().Format(time.RFC3339)}
}

func (n *NoteEvidence) resolveOne(ctx context.Context, item string, reads []session.Source) (memory.Evidence, error) {
	item = strings.TrimSpace(item)
	if st := n.Engine.Store(); st != nil && memory.IsLedgerID(item) {
		entry, err := st.Entry(ctx, item)
		if err != nil {
			return memory.Evidence{}, unresolved(item, err)
		}
		if entry.Status != store.StatusOK || entry.Reference == "" {
			return memory.Evidence{}, unresolved(item, retrieve.Errorf(retrieve.CodeInputValidation, "retrieval %s failed (%s): it cites nothing", item, entry.Code))
		}
		e := memory.Evidence{Reference: entry.Reference, RetrievalID: entry.ID, Source: entry.Source, Hash: entry.Hash, RetrievedAt: entry.Time.UTC().Format(time.RFC3339)}
		var res retrieve.Result
		if json.Unmarshal(entry.Result, &res) == nil && res.Citation.Version != nil {
			e.Version = *res.Citation.Version
		}
		return e, nil
	}
	// In a session, what the agent read of that source is the evidence:
	// the same reference, else the same source when the item names no span.
	key := memory.SourceKey(item)
	spanless := retrieve.ParseReference(item).Lines == ""
	for _, exact := range []bool{true, false} {
		for i := len(reads) - 1; i >= 0; i-- {
			r := reads[i]
			if exact && r.Reference == item || !exact && spanless && memory.SourceKey(r.Reference) == key {
				return readEvidence(r), nil
			}
		}
	}
	res, err := n.Engine.Retrieve(ctx, retrieve.Request{Target: item})
	if err != nil {
		return memory.Evidence{}, unresolved(item, err)
	}
	e := memory.Evidence{Reference: res.Citation.Reference, RetrievalID: res.RetrievalID, Source: res.Provenance.SourceType,
		RetrievedAt: n.now().UTC().Format(time.RFC3339)}
	if res.Citation.Hash != nil {
		e.Hash = *res.Citation.Hash
	}
	if res.Citation.Version != nil {
		e.Version = *res.Citation.Version
	}
	return e, nil
}

// VerifyEvidence implements memory.EvidenceResolver: a ledger entry is
// verified as `retrieve verify ID` does (its snapshot gives the diff);
// evidence without one is re-retrieved and its hash compared.
func (n *NoteEvidence) VerifyEvidence(ctx context.Context, e memory.Evidence) *retrieve.Verification {
	if e.RetrievalID != "" && n.Engine.Store() != nil {
		v, err := n.Engine.VerifyEntry(ctx, e.RetrievalID)
		if err == nil {
			return v
		}
		if retrieve.ErrorCode(err) != retrieve.CodeNotFound {
			return &retrieve.Verification{Status: retrieve.Unavailable, RetrievalID: e.RetrievalID, Reference: e.Reference, CitedHash: e.Hash, Error: retrieve.AsError(err).Info(), Notes: []string{}}
		}
		// The entry was pruned from the ledger: compare the hash.
	}
	hash, version := e.Hash, e.Version
	cited := &retrieve.Result{Citation: retrieve.Citation{Reference: e.Reference, Hash: &hash, Version: &version}}
	cited.Provenance.SourceType = e.Source
	v := n.Engine.VerifyResult(ctx, cited)
	if v.Status == retrieve.Changed {
		v.Notes = append(v.Notes, "The cited bytes are not in the ledger: the hashes differ, the diff shows the source as it is now")
	}
	return v
}

// Audit implements memory.Auditor: a ledger entry of op (memory_forget,
// memory_outdated) with the request and what it did.
func (n *NoteEvidence) Audit(ctx context.Context, op, target string, request, result any) (string, error) {
	st := n.Engine.Store()
	if st == nil {
		return "", nil
	}
	e := &store.Entry{ID: retrieve.NewID(), Time: n.now().UTC(), Op: op, Target: target, Status: store.StatusOK}
	e.Request, _ = json.Marshal(request)
	e.Result, _ = json.Marshal(result)
	if err := st.Append(ctx, e); err != nil {
		return "", err
	}
	return e.ID, nil
}
