package graph

import (
	"context"
	"fmt"
	"strings"
	"time"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/retrieve-dev/retrieve"
)

// VerifyReport is what Verify found: per document, whether its source
// still gives the text it was ingested from, and the edges whose evidence
// is no longer in it (stale, each with the diff that made it so).
type VerifyReport struct {
	// Documents counts the documents checked; Unchanged those whose source
	// gives the same bytes (same hash), Changed those whose source gives
	// another text, Gone those whose source is no longer there,
	// Unavailable those whose source could not be read now (left as they
	// were), Unverifiable those ingested without a reference (stdin).
	Documents    int `json:"documents"`
	Unchanged    int `json:"unchanged"`
	Changed      int `json:"changed"`
	Gone         int `json:"gone"`
	Unavailable  int `json:"unavailable"`
	Unverifiable int `json:"unverifiable"`
	// Edges counts the edges checked; Stale those whose evidence is no
	// longer in their source, Fresh the others; Marked how many edges
	// changed mark (newly stale, a new diff, or fresh again).
	Edges  int `json:"edges"`
	Stale  int `json:"stale"`
	Fresh  int `json:"fresh"`
	Marked int `json:"marked"`
	// StaleEdges are the stale edges, at most MaxReportedStale; Problems
	// the documents that could not be checked and why.
	StaleEdges []StaleEdge  `json:"stale_edges"`
	Problems   []VerifyNote `json:"problems"`
}

// StaleEdge is an edge whose evidence changed in its source.
type StaleEdge struct {
	// Edge is graph:edge/<id>.
	Edge           string `json:"edge"`
	From           string `json:"from"`
	Type           string `json:"type"`
	To             string `json:"to"`
	DocID          string `json:"doc_id"`
	Reference      string `json:"reference"`
	SupportingText string `json:"supporting_text"`
	// StaleSince is when verify first found it stale (RFC 3339).
	StaleSince string `json:"stale_since"`
	// Diff is the part of the source's diff that touches the evidence.
	Diff string `json:"diff"`
}

// VerifyNote is a document verify could not check.
type VerifyNote struct {
	DocID     string `json:"doc_id"`
	Reference string `json:"reference,omitempty"`
	Status    string `json:"status"` // "unavailable" or "unverifiable"
	Reason    string `json:"reason"`
}

// MaxReportedStale caps the stale edges a report lists (all are marked).
const MaxReportedStale = 200

// maxDiff caps the diff kept with a stale edge.
const maxDiff = 4 << 10

// VerifyOptions tune Verify; the zero value checks every document.
type VerifyOptions struct {
	// Docs, when set, checks only these documents.
	Docs []string
	// Progress is called after each document with the count done and the
	// total.
	Progress func(done, total int)
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Verify re-checks the evidence of every live edge against its source:
// each document ingested from a reference (retrieve get) is retrieved
// again through r (the engine, whose snapshots and hash cache make an
// unchanged file cheap); when the bytes are the same its edges are fresh,
// when they changed each edge whose supporting text is no longer in the
// new text is marked stale with the part of the diff that touches it, and
// an edge whose text is still there stays (or becomes again) fresh. A
// source that is gone (NOT_FOUND) makes its edges stale; one that cannot
// be read now is reported and left as it was. `retrieve graph verify` and
// `retrieve memory verify` call it.
func Verify(ctx context.Context, st Store, r retrieve.Retriever) (*VerifyReport, error) {
	return VerifyWith(ctx, st, r, VerifyOptions{})
}

// VerifyWith is Verify with options.
func VerifyWith(ctx context.Context, st Store, r retrieve.Retriever, opts VerifyOptions) (*VerifyReport, error) {
	if r == nil {
		return nil, retrieve.Errorf(retrieve.CodeInvalidOperation, "no engine to re-retrieve the graph's sources").
			WithHint("run graph verify in a workspace")
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	ids := opts.Docs
	if ids == nil {
		var err error
		if ids, err = st.GraphDocumentIDs(ctx); err != nil {
			return nil, err
		}
	}
	rep := &VerifyReport{StaleEdges: []StaleEdge{}, Problems: []VerifyNote{}}
	for i, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, retrieve.AsError(err)
		}
		if err := verifyDocument(ctx, st, r, id, Micros(now()), rep); err != nil {
			return nil, err
		}
		if opts.Progress != nil {
			opts.Progress(i+1, len(ids))
		}
	}
	return rep, nil
}

func verifyDocument(ctx context.Context, st Store, r retrieve.Retriever, id string, now int64, rep *VerifyReport) error {
	doc, err := st.GraphDocument(ctx, id)
	if err != nil {
		return err
	}
	rep.Documents++
	if doc.Reference == "" {
		rep.Unverifiable++
		rep.Problems = append(rep.Problems, VerifyNote{DocID: id, Status: "unverifiable", Reason: "ingested without a reference (from stdin or content): nothing to re-retrieve"})
		return nil
	}
	edges, err := st.DocumentEdges(ctx, id)
	if err != nil {
		return err
	}
	res, rerr := r.Retrieve(ctx, retrieve.Request{Target: doc.Reference, Format: "text"})
	var current string
	gone := false
	switch {
	case rerr != nil && isGone(rerr):
		rep.Gone++
		gone = true
	case rerr != nil:
		rep.Unavailable++
		rep.Problems = append(rep.Problems, VerifyNote{DocID: id, Reference: doc.Reference, Status: "unavailable", Reason: retrieve.AsError(rerr).Error()})
		return nil
	case res.Citation.Hash != nil && *res.Citation.Hash == doc.Hash && doc.Hash != "":
		rep.Unchanged++
		current = doc.Content
	default:
		rep.Changed++
		current, _ = res.Retrieved.Data.(string)
	}
	var diff *udiff.UnifiedDiff
	if !gone && current != doc.Content {
		u, err := udiff.ToUnifiedDiff(DocReference(id, "")+" (ingested)", doc.Reference+" (now)", doc.Content, udiff.Strings(doc.Content, current), 2)
		if err == nil {
			diff = &u
		}
	}
	names, err := edgeNames(ctx, st, edges)
	if err != nil {
		return err
	}
	marks := make([]StaleMark, 0, len(edges))
	for _, e := range edges {
		rep.Edges++
		m := StaleMark{Source: e.Source, Target: e.Target, Type: e.Type, Doc: id, RecordedAt: e.RecordedAt}
		if gone || !ContainsEvidence(current, string(e.SupportingText)) {
			m.StaleAt = e.StaleAt
			if m.StaleAt == 0 {
				m.StaleAt = now
			}
			m.Diff = "the source " + doc.Reference + " is gone"
			if !gone {
				m.Diff = evidenceDiff(diff, string(e.SupportingText))
			}
			rep.Stale++
			if len(rep.StaleEdges) < MaxReportedStale {
				rep.StaleEdges = append(rep.StaleEdges, StaleEdge{Edge: EdgeReference(e), From: names[e.Source], Type: e.Type, To: names[e.Target],
					DocID: id, Reference: doc.Reference, SupportingText: string(e.SupportingText), StaleSince: FromMicros(m.StaleAt), Diff: m.Diff})
			}
		} else {
			rep.Fresh++
		}
		marks = append(marks, m)
	}
	n, err := st.MarkStale(ctx, marks)
	rep.Marked += n
	return err
}

// isGone reports whether a retrieval failed because its target is no
// longer there.
func isGone(err error) bool {
	switch retrieve.ErrorCode(err) {
	case retrieve.CodeNotFound, retrieve.CodePathNotFound:
		return true
	}
	return false
}

// edgeNames maps the ends of edges to their names.
func edgeNames(ctx context.Context, st Store, edges []*Edge) (map[string]string, error) {
	var ids []string
	for _, e := range edges {
		ids = append(ids, e.Source, e.Target)
	}
	nodes, err := st.GraphNodes(ctx, uniq(ids))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for id, n := range nodes {
		out[id] = n.Name
	}
	return out, nil
}

// evidenceDiff is the part of a document's diff that touches an edge's
// supporting text: the hunks whose removed lines hold part of it (all the
// hunks when none does), at most maxDiff bytes.
func evidenceDiff(u *udiff.UnifiedDiff, text string) string {
	if u == nil {
		return ""
	}
	want := normText(text)
	var keep []*udiff.Hunk
	for _, h := range u.Hunks {
		for _, l := range h.Lines {
			if t := normText(l.Content); l.Kind == udiff.Delete && t != "" && (strings.Contains(want, t) || strings.Contains(t, want)) {
				keep = append(keep, h)
				break
			}
		}
	}
	if len(keep) > 0 {
		u = &udiff.UnifiedDiff{From: u.From, To: u.To, Hunks: keep}
	}
	d := u.String()
	if len(d) > maxDiff {
		d = d[:maxDiff] + fmt.Sprintf("\n… (%d more bytes)\n", len(d)-maxDiff)
	}
	return d
}

// Verify is VerifyWith on the tools' store and engine.
func (t *Tools) Verify(ctx context.Context, opts VerifyOptions) (*VerifyReport, error) {
	if opts.Now == nil {
		opts.Now = t.now
	}
	return VerifyWith(ctx, t.Store, t.Retriever, opts)
}
