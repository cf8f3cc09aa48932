package graph

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
)

// ForgetInput names what to forget: the documents that came from a
// source (Source: a reference as ingest recorded it, its path without the
// line span, or the document's source), or one document (DocID).
type ForgetInput struct {
	Source string `json:"source,omitempty"`
	DocID  string `json:"doc_id,omitempty"`
	// DryRun lists what would be forgotten and changes nothing.
	DryRun bool `json:"dry_run,omitempty"`
	// By names who forgets, for the ledger.
	By string `json:"by,omitempty"`
	// Batch is how many edges one transaction tombstones (ForgetBatch
	// when 0): each commits, so an interrupted forget keeps what it did
	// and the same command resumes it.
	Batch int `json:"-"`
	// Progress is called after each batch with the edges done and the
	// total.
	Progress func(done, total int) `json:"-"`
}

// ForgetBatch is the default batch of ForgetInput.
const ForgetBatch = 2000

// maxForgetListed caps the edges a dry run lists per document.
const maxForgetListed = 20

// ForgetDoc is one document of a forget.
type ForgetDoc struct {
	DocID     string `json:"doc_id"`
	Title     string `json:"title,omitempty"`
	Reference string `json:"reference,omitempty"`
	Source    string `json:"source,omitempty"`
	// Counts is what was (or, in a dry run, would be) tombstoned.
	Counts ForgetCounts `json:"counts"`
	// Edges (dry run) are the first of its live edges, as graph:edge/<id>
	// with their chain.
	Edges []ForgetEdge `json:"edges,omitempty"`
	// Already is set when the document was forgotten before.
	Already bool `json:"already_forgotten,omitempty"`
}

// ForgetEdge is an edge a dry run lists.
type ForgetEdge struct {
	Edge  string `json:"edge"`
	Chain string `json:"chain"`
}

// ForgetOutput is what a forget did (or would do).
type ForgetOutput struct {
	DryRun    bool         `json:"dry_run"`
	Documents []ForgetDoc  `json:"documents"`
	Total     ForgetCounts `json:"total"`
	// By, At and LedgerID say who forgot, when, and the ledger entry that
	// records it ("" in a dry run or without a ledger).
	By       string `json:"by,omitempty"`
	At       string `json:"at,omitempty"`
	LedgerID string `json:"ledger_id,omitempty"`
	// Assumptions say what was not done (no ledger).
	Assumptions []string `json:"assumptions,omitempty"`
}

// Forget tombstones what the graph took from a source: the edges whose
// evidence came from its documents (retired as RetiredForgotten, their
// text erased, never shown again, not even as of a past time), the
// entities only they supported, the documents' chunks, texts and old
// versions; the documents stay as tombstones (id, reference, when). The
// ledger records who forgot what and when (op "forget"). Edges go in
// batches, each its own transaction, with progress: an interrupted forget
// is resumed by running it again. With DryRun it only counts and lists.
func (t *Tools) Forget(ctx context.Context, in ForgetInput) (*ForgetOutput, error) {
	docs, err := t.forgetTargets(ctx, in)
	if err != nil {
		return nil, err
	}
	out := &ForgetOutput{DryRun: in.DryRun, Documents: []ForgetDoc{}}
	total := 0
	for _, d := range docs {
		fd := ForgetDoc{DocID: d.ID, Title: d.Title, Reference: d.Reference, Source: d.Source, Already: d.ForgottenAt != 0}
		c, edges, err := t.Store.ForgetPreview(ctx, d.ID, maxForgetListed)
		if err != nil {
			return nil, err
		}
		fd.Counts = *c
		total += c.Edges
		if in.DryRun {
			names, err := edgeNames(ctx, t.Store, edges)
			if err != nil {
				return nil, err
			}
			for _, e := range edges {
				fd.Edges = append(fd.Edges, ForgetEdge{Edge: EdgeReference(e), Chain: names[e.Source] + " --[" + e.Type + "]--> " + names[e.Target]})
			}
		}
		out.Documents = append(out.Documents, fd)
	}
	if in.DryRun {
		out.Total = sumCounts(out.Documents)
		return out, nil
	}
	now := t.now()
	out.By, out.At = in.By, now.UTC().Format(time.RFC3339Nano)
	batch := in.Batch
	if batch <= 0 {
		batch = ForgetBatch
	}
	done := 0
	for i := range out.Documents {
		fd := &out.Documents[i]
		fd.Title = ""
		for {
			n, err := t.Store.ForgetEdges(ctx, fd.DocID, Micros(now), batch)
			if err != nil {
				return nil, err
			}
			done += n
			if in.Progress != nil && n > 0 {
				in.Progress(done, total)
			}
			if n < batch {
				break
			}
		}
		c, err := t.Store.ForgetDocument(ctx, fd.DocID, Micros(now))
		if err != nil {
			return nil, err
		}
		c.Edges, c.EdgesKept = fd.Counts.Edges, fd.Counts.EdgesKept
		fd.Counts = *c
	}
	out.Total = sumCounts(out.Documents)
	t.recordForget(ctx, in, out, now)
	return out, nil
}

// forgetTargets are the documents a forget names, by id.
func (t *Tools) forgetTargets(ctx context.Context, in ForgetInput) ([]*Document, error) {
	if (in.Source == "") == (in.DocID == "") {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "forget needs a source or a document id, one of them").
			WithHint("retrieve graph forget --source notes/incident.md, or --doc doc_001; add --dry-run to see what goes")
	}
	if in.DocID != "" {
		docs, err := t.Store.GraphDocumentInfo(ctx, []string{in.DocID})
		if err != nil {
			return nil, err
		}
		if d := docs[in.DocID]; d != nil {
			return []*Document{d}, nil
		}
		return nil, retrieve.Errorf(retrieve.CodeNotFound, "no graph document %q", in.DocID).
			WithHint("the doc ids are in graph ingest results and graph evidence; or forget by --source")
	}
	ids, err := t.Store.GraphDocumentIDs(ctx)
	if err != nil {
		return nil, err
	}
	all, err := t.Store.GraphDocumentInfo(ctx, ids)
	if err != nil {
		return nil, err
	}
	var out []*Document
	for _, id := range ids {
		if d := all[id]; d != nil && SourceMatches(d, in.Source) {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return nil, retrieve.Errorf(retrieve.CodeNotFound, "no graph document came from %q", in.Source).
			WithHint("give the path or URL the document was ingested from (its reference in the ingest result), or --doc ID")
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// SourceMatches reports whether a document came from ref: its reference
// (notes/a.md:1-20), that reference without its line span or fragment
// (notes/a.md), or its source.
func SourceMatches(d *Document, ref string) bool {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return false
	}
	return d.Reference == ref || d.Source == ref || referencePath(d.Reference) == ref
}

// referencePath is a reference without a line span (:N-M) or fragment.
func referencePath(ref string) string {
	if i := strings.IndexByte(ref, '#'); i >= 0 {
		ref = ref[:i]
	}
	if i := strings.LastIndexByte(ref, ':'); i >= 0 && strings.Trim(ref[i+1:], "0123456789-") == "" && i+1 < len(ref) {
		ref = ref[:i]
	}
	return ref
}

func sumCounts(docs []ForgetDoc) ForgetCounts {
	var c ForgetCounts
	for _, d := range docs {
		c.Edges += d.Counts.Edges
		c.EdgesKept += d.Counts.EdgesKept
		c.RetiredVersions += d.Counts.RetiredVersions
		c.Nodes += d.Counts.Nodes
		c.Chunks += d.Counts.Chunks
		c.Versions += d.Counts.Versions
	}
	return c
}

// recordForget writes the ledger entry of a forget: op "forget", the
// source (or doc:<id>) as its target, who in the request, the counts in
// the result. Without a ledger the output says so.
func (t *Tools) recordForget(ctx context.Context, in ForgetInput, out *ForgetOutput, at time.Time) {
	if t.Ledger == nil {
		out.Assumptions = append(out.Assumptions, "no ledger: this forget is not recorded")
		return
	}
	target := in.Source
	if target == "" {
		target = DocReference(in.DocID, "")
	}
	req, _ := json.Marshal(map[string]any{"op": "forget", "source": in.Source, "doc_id": in.DocID, "by": in.By})
	res, _ := json.Marshal(out)
	e := &store.Entry{ID: retrieve.NewID(), Time: at, Op: "forget", Target: target, Source: "graph", Status: store.StatusOK,
		Duration: time.Since(at), Request: req, Result: res}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := t.Ledger.Append(wctx, e); err != nil {
		out.Assumptions = append(out.Assumptions, "this forget was not recorded in the ledger: "+retrieve.AsError(err).Message)
		return
	}
	out.LedgerID = e.ID
}
