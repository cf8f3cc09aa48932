package retrieve

import (
	"fmt"
	"math"
	"time"

	"github.com/retrieve-dev/retrieve/extract"
)

func (e *Engine) cite(req, fetchReq *Request, kind string, doc *Document, out *outcome, started time.Time) (*Result, error) {
	res := &Result{
		Retrieved: Retrieved{
			Target:    ShownTarget(req.Target),
			Source:    doc.Label,
			Timestamp: Timestamp(started),
			Data:      out.data,
			Format:    out.format,
			Complete:  out.complete && !doc.Incomplete,
		},
		Provenance: Provenance{
			SourceType:    kind,
			Freshness:     FreshnessFresh,
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
	}
	if res.Provenance.RetrievedFrom == "" {
		res.Provenance.RetrievedFrom = FromLive
	}
	// Citation.
	authority := doc.Authority
	if authority == "" {
		authority = AuthorityMedium
	}
	res.Citation = Citation{Version: doc.Version, Authority: authority}
	if out.dataBytes != nil || out.data != nil {
		h := HashBytes(out.dataBytes)
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
	if doc.LastModified != nil {
		lm := Timestamp(*doc.LastModified)
		res.Provenance.LastModified = &lm
	}
	// Freshness.
	deductions := append(append([]Deduction{}, doc.Deductions...), out.deductions...)
	decay := 1.0
	if res.Provenance.RetrievedFrom == FromSnapshot {
		res.Provenance.AgeSeconds = math.Round(doc.Age.Seconds())
		switch {
		case !doc.Volatile:
			res.Provenance.Freshness = FreshnessUnknown
		case doc.Age > e.staleAfter:
			res.Provenance.Freshness = FreshnessStale
			decay = math.Pow(0.5, float64(doc.Age)/float64(StaleHalfLife))
			res.Assumptions = append(res.Assumptions, fmt.Sprintf("Served from a snapshot %s old, past the %s time-to-live of this source class: confidence decays with a 14-day half-life", doc.Age.Round(time.Second), e.staleAfter))
		}
	}
	res.Confidence = Confidence(deductions, decay)
	// Extraction.
	orig := out.origSize
	ret := int64(len(out.dataBytes))
	filters := appliedFilters(*fetchReq)
	for k, v := range doc.AppliedFilters {
		if filters == nil {
			filters = Filters{}
		}
		filters[k] = v
	}
	res.Extraction = Extraction{
		AppliedFilters: filters,
		OriginalSize:   &orig,
		ReturnedSize:   &ret,
		Truncated:      out.truncated || doc.Truncated,
		Next:           nextReference(doc, out),
	}
	return res, nil
}

// Confidence computes retrieval fidelity: 1 minus the deductions, times the
// staleness decay, clamped to [0, 1] and rounded to three decimals.
func Confidence(deductions []Deduction, decay float64) float64 {
	c := 1.0
	for _, d := range deductions {
		c -= d.Amount
	}
	c *= decay
	c = math.Max(0, math.Min(1, c))
	return math.Round(c*1000) / 1000
}

func references(doc *Document, out *outcome) (string, []string) {
	if out.reference != "" {
		return out.reference, nonNil(out.anchors)
	}
	if len(doc.Anchors) > 0 && doc.Body != nil {
		return doc.Locator, doc.Anchors
	}
	if !doc.Spans && len(out.spans) > 0 && out.anchors == nil && ParseReference(doc.Locator).Scheme == "web" {
		// A span of a web page: the anchor highlights it in a browser.
		if frag := MarkdownTextFragment(string(out.dataBytes)); frag != "" {
			return doc.Locator, []string{doc.Locator + "#:~:text=" + frag}
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
	anchors := make([]string, len(out.spans))
	for i, s := range out.spans {
		anchors[i] = fmt.Sprintf("%s:%d-%d", doc.Locator, s.Start, s.End)
	}
	return doc.Locator + ":" + extract.FormatRanges(out.spans), anchors
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
