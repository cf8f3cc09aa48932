package engine

import (
	"fmt"
	"maps"
	"math"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/extract"
)

func (e *Engine) cite(req, fetchReq *retrieve.Request, kind string, doc *retrieve.Document, out *outcome, started time.Time) (*retrieve.Result, error) {
	res := &retrieve.Result{
		Retrieved: retrieve.Retrieved{
			Target:    retrieve.ShownTarget(req.Target),
			Source:    doc.Label,
			Timestamp: retrieve.Timestamp(started),
			Data:      out.data,
			Format:    out.format,
			Complete:  out.complete && !doc.Incomplete,
		},
		Provenance: retrieve.Provenance{
			SourceType:    kind,
			Freshness:     retrieve.FreshnessFresh,
			Reliability:   doc.Reliability,
			RetrievedFrom: doc.RetrievedFrom,
			Metadata:      doc.Metadata,
		},
		EvidenceAnchors: []string{},
		Assumptions:     append(append([]string{}, doc.Assumptions...), out.assumptions...),
	}
	if res.Retrieved.Source == "" {
		res.Retrieved.Source = kind + ":" + doc.Locator
	}
	if res.Provenance.Metadata == nil {
		res.Provenance.Metadata = map[string]any{}
	} else if _, ok := res.Provenance.Metadata[factsKey]; ok {
		// A source that hands back a recorded result's metadata (the web
		// source revalidating from the ledger) hands back the ledger's
		// facts too: they are recorded, never returned.
		res.Provenance.Metadata = maps.Clone(res.Provenance.Metadata)
		delete(res.Provenance.Metadata, factsKey)
	}
	for k, v := range out.metadata {
		res.Provenance.Metadata[k] = v
	}
	if res.Provenance.RetrievedFrom == "" {
		res.Provenance.RetrievedFrom = retrieve.FromLive
	}
	// Citation.
	authority := doc.Authority
	if authority == "" {
		authority = retrieve.AuthorityMedium
	}
	res.Citation = retrieve.Citation{Version: doc.Version, Authority: authority}
	if out.dataBytes != nil || out.data != nil {
		h := retrieve.HashBytes(out.dataBytes)
		res.Citation.Hash = &h
	} else if out.sourceHash != "" {
		h := out.sourceHash
		res.Citation.Hash = &h
	}
	if out.sourceHash != "" {
		sh := out.sourceHash
		res.Citation.SourceHash = &sh
	}
	res.Citation.Reference, res.EvidenceAnchors = references(doc, out)
	if ref, ok := sourceSelectReference(fetchReq, doc, out); ok {
		res.Citation.Reference = ref
	}
	if doc.LastModified != nil {
		lm := retrieve.Timestamp(*doc.LastModified)
		res.Provenance.LastModified = &lm
	}
	// Freshness.
	deductions := append(append([]retrieve.Deduction{}, doc.Deductions...), out.deductions...)
	decay := 1.0
	if res.Provenance.RetrievedFrom == retrieve.FromSnapshot {
		res.Provenance.AgeSeconds = math.Round(doc.Age.Seconds())
		switch {
		case !doc.Volatile:
			res.Provenance.Freshness = retrieve.FreshnessUnknown
		case doc.Age > e.staleAfter:
			res.Provenance.Freshness = retrieve.FreshnessStale
			decay = math.Pow(0.5, float64(doc.Age)/float64(StaleHalfLife))
			res.Assumptions = append(res.Assumptions, fmt.Sprintf("Served from a snapshot %s old, past the %s time-to-live of this source class: confidence decays with a 14-day half-life", doc.Age.Round(time.Second), e.staleAfter))
		}
	}
	res.Confidence = retrieve.Confidence(deductions, decay)
	// Extraction.
	orig := out.origSize
	ret := int64(len(out.dataBytes))
	filters := retrieve.AppliedFilters(*fetchReq)
	for k, v := range doc.AppliedFilters {
		if filters == nil {
			filters = retrieve.Filters{}
		}
		filters[k] = v
	}
	res.Extraction = retrieve.Extraction{
		AppliedFilters: filters,
		OriginalSize:   &orig,
		ReturnedSize:   &ret,
		Truncated:      out.truncated || doc.Truncated || (doc.Incomplete && doc.Next != ""),
		Next:           nextReference(doc, out),
		Budget:         out.budget,
	}
	return res, nil
}

func references(doc *retrieve.Document, out *outcome) (string, []string) {
	if out.reference != "" {
		return out.reference, nonNil(out.anchors)
	}
	if out.selected != "" && byteReferences(doc) {
		return selectReference(doc, out)
	}
	if out.byteSpans && len(out.spans) > 0 && !out.complete && byteReferences(doc) {
		// A byte span, cut or asked for, is cited as the fragment that
		// re-retrieves exactly those bytes.
		base := out.byteBase(doc)
		anchors := make([]string, len(out.spans))
		for i, s := range out.spans {
			anchors[i] = fmt.Sprintf("%s#bytes=%d-%d", base, s.Start, s.End)
		}
		return base + "#bytes=" + extract.FormatRanges(out.spans), anchors
	}
	if len(doc.Anchors) > 0 && doc.Body != nil {
		return doc.Locator, doc.Anchors
	}
	if doc.TextFragments && out.complete && extract.IsStructured(out.format) {
		// JSON (YAML, CSV…) from the web is anchored by a target that gives
		// the same data again, not by a text fragment of its body: the URL
		// for its text, the select form of the whole value for parsed data.
		if _, text := out.data.(string); text {
			return doc.Locator, []string{doc.Locator}
		}
		return doc.Locator, []string{doc.Locator + "#select=."}
	}
	if !doc.Spans && len(out.spans) > 0 && out.anchors == nil && doc.TextFragments {
		// A span of a web page: the anchor highlights it in a browser.
		if frag := retrieve.MarkdownTextFragment(string(out.dataBytes)); frag != "" {
			return linesFragment(doc, out.spans, out), []string{doc.Locator + "#:~:text=" + frag}
		}
		if ref := linesFragment(doc, out.spans, out); ref != doc.Locator {
			return ref, []string{ref}
		}
	}
	if !doc.Spans || len(out.spans) == 0 {
		anchors := out.anchors
		if anchors == nil && out.dataBytes != nil {
			anchors = []string{doc.Locator}
		}
		return doc.Locator, nonNil(anchors)
	}
	if out.byteSpans {
		anchors := make([]string, len(out.spans))
		for i, s := range out.spans {
			anchors[i] = fmt.Sprintf("%s#bytes=%d-%d", doc.Locator, s.Start, s.End)
		}
		return doc.Locator, anchors
	}
	base := doc.Locator
	if out.partBase != "" {
		base = out.partBase // the lines of a document's parts
	}
	anchors := make([]string, len(out.spans))
	for i, s := range out.spans {
		anchors[i] = fmt.Sprintf("%s:%d-%d", base, s.Start, s.End)
	}
	return base + ":" + extract.FormatRanges(out.spans), anchors
}

// selectReference cites data selected with jq as the fragment that
// selects it again; structured data anchors on its path (or on the
// source's own anchors: an api response's pages), web and API data on
// the selection itself, a target.
func selectReference(doc *retrieve.Document, out *outcome) (string, []string) {
	ref := doc.Locator + "#select=" + escapeSelect(out.selected)
	if out.selectedLines != "" {
		ref += ":" + out.selectedLines
	}
	switch {
	case len(out.anchors) > 0:
		return ref, out.anchors
	case doc.TextFragments:
		return ref, []string{ref}
	}
	return ref, []string{doc.Locator}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// sourceSelectReference is the reference of a whole selection that the
// source made itself (the web source's CSS selector, reported in its
// applied filters): URL#select=<selector>, a target that selects it again.
// Lines, sections or a cut of the selection keep the reference references
// gave.
func sourceSelectReference(req *retrieve.Request, doc *retrieve.Document, out *outcome) (string, bool) {
	sel, _ := doc.AppliedFilters["select"].(string)
	c := req.Constraints
	if sel == "" || out.selected != "" || out.truncated || c.Lines != "" || len(c.Sections) > 0 || !byteReferences(doc) {
		return "", false
	}
	return doc.Locator + "#select=" + escapeSelect(sel), true
}

// linesFragment is the reference of lines of a document whose references
// have no line suffix — a web page's Markdown, an API response read as text
// (a port would read as one): the URL with a lines fragment,
// https://h/p#lines=3-9, a target that returns those lines again. A read
// of the whole text is the URL; so are lines of a selection the source
// made (a CSS selector: they count in the selection, not in the page).
func linesFragment(doc *retrieve.Document, spans []extract.Range, out *outcome) string {
	if (out.wanted == nil && !out.truncated) || len(spans) == 0 || doc.AppliedFilters["select"] != nil || !byteReferences(doc) {
		return doc.Locator
	}
	return doc.Locator + "#lines=" + extract.FormatRanges(spans)
}
