package retrieve

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Fallback modes of a request.
const (
	// FallbackSnapshot serves the last snapshot of the target when the live
	// retrieval fails.
	FallbackSnapshot = "snapshot"
)

// RequestFormats are the values of Request.Format: parse as a structured
// format, keep text, return binary data as base64, or (web pages) return
// the HTML itself.
var RequestFormats = []string{"text", "json", "yaml", "toml", "csv", "binary", "html"}

// Check refuses request fields that no source would read correctly,
// instead of ignoring them: an unknown format or fallback, a negative cap.
// Retrieve checks every request; servers check before they set caps of
// their own.
func (req *Request) Check() error {
	if req.Format != "" && !slices.Contains(RequestFormats, req.Format) {
		return Errorf(CodeInputValidation, "format %q is not one of %s", req.Format, strings.Join(RequestFormats, ", ")).
			WithHint("leave format out to detect it, or use one of %s", strings.Join(RequestFormats, ", "))
	}
	if req.Fallback != "" && req.Fallback != FallbackSnapshot {
		return Errorf(CodeInputValidation, "fallback %q is not %q", req.Fallback, FallbackSnapshot).
			WithHint("use fallback snapshot, or leave it out")
	}
	c := req.Constraints
	for name, v := range map[string]int64{"max_bytes": c.MaxBytes, "max_rows": int64(c.MaxRows), "pages": int64(req.Web.Pages)} {
		if v < 0 {
			return Errorf(CodeInputValidation, "%s %d is negative", name, v).
				WithHint("give a positive number, or leave %s out for the default", name)
		}
	}
	return nil
}

// FailureResult builds the failure envelope for req.
func FailureResult(req Request, at time.Time, err *Error) *Result {
	kind := req.Source
	req.Target = ShownTarget(req.Target)
	res := &Result{
		Retrieved: Retrieved{
			Target:    req.Target,
			Source:    kind,
			Timestamp: Timestamp(at),
			Data:      nil,
			Format:    req.Format,
			Complete:  false,
		},
		Citation:        Citation{Reference: req.Target, Authority: AuthorityLow},
		Provenance:      Provenance{SourceType: kind, Freshness: FreshnessUnknown, Reliability: "not retrieved", RetrievedFrom: FromLive, Metadata: map[string]any{}},
		Extraction:      Extraction{AppliedFilters: AppliedFilters(req)},
		Confidence:      0,
		EvidenceAnchors: []string{},
		Assumptions:     []string{},
		Error:           err.Info(),
	}
	res.RedactSecrets()
	return res
}

// AppliedFilters reports the constraints that were applied, or nil.
func AppliedFilters(req Request) Filters {
	c := req.Constraints
	m := map[string]any{}
	if c.Lines != "" {
		m["lines"] = c.Lines
	}
	if c.Bytes != "" {
		m["bytes"] = c.Bytes
	}
	if c.Pages != "" {
		m["pages"] = c.Pages
	}
	if c.Pages == "" && req.Web.Pages > 0 {
		// The api source's count of Link pages, as --pages N shows it.
		m["pages"] = strconv.Itoa(req.Web.Pages)
	}
	if len(c.Sections) > 0 {
		m["sections"] = c.Sections
	}
	if c.Select != "" {
		m["select"] = c.Select
	}
	if c.Version != "" {
		m["version"] = c.Version
	}
	if c.MaxBytes > 0 {
		m["max_bytes"] = c.MaxBytes
	}
	if c.Query != "" {
		m["query"] = c.Query
	}
	if len(c.Params) > 0 {
		m["params"] = c.Params
	}
	if c.MaxRows > 0 {
		m["max_rows"] = c.MaxRows
	}
	if c.Raw {
		m["raw"] = true
	}
	if req.Format != "" {
		m["format"] = req.Format
	}
	if len(m) == 0 {
		return nil
	}
	return m
}
