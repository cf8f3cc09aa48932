package retrieve

import (
	"fmt"
	"strconv"
	"strings"
)

// Verification statuses.
const (
	Verified    = "verified"
	Changed     = "changed"
	Unavailable = "unavailable"
)

// Verification is the outcome of re-checking one citation.
type Verification struct {
	// Status is verified, changed or unavailable.
	Status string `json:"status" yaml:"status"`
	// RetrievalID is the ledger entry that was verified, when there is one.
	RetrievalID string `json:"retrieval_id" yaml:"retrieval_id"`
	// VerificationID is the ledger entry of this verification ("" when not recorded).
	VerificationID string `json:"verification_id" yaml:"verification_id"`
	Reference      string `json:"reference" yaml:"reference"`
	Version        string `json:"version" yaml:"version"`
	// CitedHash is the hash in the citation; CurrentHash what the source
	// gives now ("" when unavailable).
	CitedHash   string `json:"cited_hash" yaml:"cited_hash"`
	CurrentHash string `json:"current_hash" yaml:"current_hash"`
	// Diff is a unified diff of the cited data (recorded) against the data
	// now, when changed.
	Diff string `json:"diff" yaml:"diff"`
	// Error is why the citation could not be re-retrieved, when unavailable.
	Error *ErrorInfo `json:"error" yaml:"error"`
	// Notes explain what the verification could and could not check.
	Notes []string `json:"notes" yaml:"notes"`
}

// CitationRequest returns the request that re-retrieves what res cites:
// its reference (which carries the line span), its source, and the filters
// that are not spans (select, bytes, format…).
func CitationRequest(res *Result) Request {
	req := Request{Target: res.Citation.Reference, Source: res.Provenance.SourceType}
	f := res.Extraction.AppliedFilters
	str := func(k string) string {
		if v, ok := f[k].(string); ok {
			return v
		}
		return ""
	}
	req.Format = str("format")
	// A reference that names its bytes or its selection in a fragment
	// (a.txt#bytes=0-99, config.json#select=.a) carries what was returned:
	// the filter asked for (bytes 0-, a cut) must not be given again.
	frag := ""
	if i := strings.LastIndexByte(res.Citation.Reference, '#'); i >= 0 {
		frag = res.Citation.Reference[i+1:]
	}
	if !strings.HasPrefix(frag, "select=") {
		req.Constraints.Select = str("select")
	}
	if !strings.HasPrefix(frag, "bytes=") {
		req.Constraints.Bytes = str("bytes")
	}
	req.Constraints.Version = str("version")
	req.Constraints.Query = str("query")
	if n, ok := f["max_bytes"].(float64); ok {
		req.Constraints.MaxBytes = int64(n)
	}
	if n, ok := f["max_bytes"].(int64); ok {
		req.Constraints.MaxBytes = n
	}
	// A result cut by a server's message budget (extraction.budget) is
	// re-read to the same size: the budget is no filter, but the returned
	// bytes are what the citation covers, a line cut short included.
	// A reference that names its bytes needs no cap: they are the bytes.
	if b := res.Extraction.Budget; b != nil && b.Cut && req.Constraints.MaxBytes == 0 && !strings.HasPrefix(frag, "bytes=") && res.Extraction.ReturnedSize != nil && *res.Extraction.ReturnedSize > 0 {
		req.Constraints.MaxBytes = *res.Extraction.ReturnedSize
	}
	// The api source's Link pages: the same count is fetched again
	// (applied_filters.pages, set from web.pages or --pages N).
	if res.Provenance.SourceType == "api" {
		if n, err := strconv.Atoi(str("pages")); err == nil && n > 0 {
			req.Web.Pages = n
		}
	}
	if p, ok := f["params"].([]any); ok {
		for _, v := range p {
			req.Constraints.Params = append(req.Constraints.Params, fmt.Sprint(v))
		}
	}
	if p, ok := f["params"].([]string); ok { // a result not yet through JSON
		req.Constraints.Params = append(req.Constraints.Params, p...)
	}
	if n, ok := f["max_rows"].(float64); ok {
		req.Constraints.MaxRows = int(n)
	}
	if n, ok := f["max_rows"].(int); ok {
		req.Constraints.MaxRows = n
	}
	if r, ok := f["raw"].(bool); ok {
		req.Constraints.Raw = r
	}
	// A reference without a line span whose retrieval used lines or
	// sections (a select over a part, say) keeps them.
	// A byte fragment after a line span (big.log:40-#bytes=0-99) counts in
	// the text of those lines: the span is the reference's.
	base := res.Citation.Reference
	if strings.HasPrefix(frag, "bytes=") {
		base = base[:len(base)-len(frag)-1]
	}
	if ParseReference(base).Lines == "" {
		req.Constraints.Lines = str("lines")
		if s, ok := f["sections"].([]any); ok {
			for _, v := range s {
				req.Constraints.Sections = append(req.Constraints.Sections, fmt.Sprint(v))
			}
		}
	}
	// A URL's lines fragment (https://h/p#lines=3-9) names the lines
	// returned: the lines or section asked for are not asked again.
	if strings.HasPrefix(frag, "lines=") {
		req.Constraints.Lines, req.Constraints.Sections = "", nil
	}
	return req
}

// MetaRequestHeaders is the provenance.metadata key under which a source
// records the request headers it sent: a list of {name, from, value},
// from "flag" (--header, web.headers) or "config", value the header's
// ${env:NAME} template ("Bearer ${env:TOKEN}") or null when it was given
// literally — never a value itself. Verify sends the templated headers
// again, expanded then.
const MetaRequestHeaders = "request_headers"

// CitationHeaders are the "Name: template" request headers that res
// records (MetaRequestHeaders), to send again expanded; an error when a
// header was given literally, which is never recorded, so that the
// request cannot be repeated as it was.
func CitationHeaders(res *Result) ([]string, error) {
	recs, _ := res.Provenance.Metadata[MetaRequestHeaders].([]any)
	var headers, literal []string
	for _, r := range recs {
		m, _ := r.(map[string]any)
		name, _ := m["name"].(string)
		if from, _ := m["from"].(string); name == "" || from != "flag" {
			continue
		}
		if v, ok := m["value"].(string); ok {
			headers = append(headers, name+": "+v)
		} else {
			literal = append(literal, name)
		}
	}
	if len(literal) > 0 {
		return nil, Errorf(CodeInputValidation, "the citation was made with header %s given as a literal value, which is never recorded: the request cannot be sent again", strings.Join(literal, ", ")).
			WithHint("cite it again with the value in an environment variable: --header '%s: ${env:NAME}'", literal[0])
	}
	return headers, nil
}
