package retrieve

import "time"

// Request is one retrieval: what to fetch (Target), from where (Source,
// inferred from the target when empty), in which form (Format, detected when
// empty) and which part of it (Constraints).
type Request struct {
	Target      string      `json:"target" yaml:"target"`
	Source      string      `json:"source,omitempty" yaml:"source,omitempty"`
	Format      string      `json:"format,omitempty" yaml:"format,omitempty"`
	Constraints Constraints `json:"constraints,omitzero" yaml:"constraints,omitempty"`
	// NoRecord keeps this retrieval out of the ledger.
	NoRecord bool `json:"no_record,omitempty" yaml:"no_record,omitempty"`
	// Fallback "snapshot" serves the last snapshot when the live read fails.
	Fallback string `json:"fallback,omitempty" yaml:"fallback,omitempty"`
	// Web holds the options of the web and api sources.
	Web WebOptions `json:"web,omitzero" yaml:"web,omitempty"`
}

// WebOptions are per-request options of the web and api sources.
type WebOptions struct {
	// MaxAge serves a snapshot younger than this Go duration without any
	// request ("10m", "24h").
	MaxAge string `json:"max_age,omitempty" yaml:"max_age,omitempty"`
	// IgnoreRobots skips robots.txt; the result says so.
	IgnoreRobots bool `json:"ignore_robots,omitempty" yaml:"ignore_robots,omitempty"`
	// AllowHosts lets the address guard through to these hosts or prefixes.
	AllowHosts []string `json:"allow_hosts,omitempty" yaml:"allow_hosts,omitempty"`
	// Headers are "Name: value" request headers of the api source; values
	// may hold ${env:NAME}. They are never recorded.
	Headers []string `json:"-" yaml:"-"`
	// Method is GET (default) or HEAD for the api source.
	Method string `json:"method,omitempty" yaml:"method,omitempty"`
	// Pages follows Link rel="next" up to this many pages (api source).
	Pages int `json:"pages,omitempty" yaml:"pages,omitempty"`
}

// Constraints narrow a retrieval to part of the target. Every field is
// optional; the zero value returns the whole target.
type Constraints struct {
	// Lines selects line ranges: "1-50", "10-", "-20", "1-5,20-30".
	Lines string `json:"lines,omitempty" yaml:"lines,omitempty" jsonschema:"Line ranges: 1-50, 10-, 1-5,20-30."`
	// Bytes selects byte ranges with the same syntax as Lines, 0-based offsets
	// inclusive on both ends ("0-1023"); with Lines, offsets in the text of
	// those lines.
	Bytes string `json:"bytes,omitempty" yaml:"bytes,omitempty" jsonschema:"Byte ranges, 0-based: 0-1023 (in lines if set)."`
	// Sections selects markdown headings by title or path ("Install > Linux"),
	// or code symbols by name or kind.
	Sections []string `json:"sections,omitempty" yaml:"sections,omitempty" jsonschema:"Markdown headings (Install > Linux) or code symbols (class, User.save)."`
	// Select is a jq expression over structured data (JSON, YAML, TOML) or a
	// CSS selector over HTML.
	Select string `json:"select,omitempty" yaml:"select,omitempty" jsonschema:"jq (.deps) over JSON/YAML/TOML/CSV; CSS over HTML."`
	// Version pins a version: a git revision, an expected ETag or hash.
	Version string `json:"version,omitempty" yaml:"version,omitempty" jsonschema:"A git revision (HEAD~1, v1.2)."`
	// MaxBytes truncates the returned data at a line boundary. Zero means the
	// engine's default (10 MiB).
	MaxBytes int64 `json:"max_bytes,omitempty" yaml:"max_bytes,omitempty" jsonschema:"Cap on the data in bytes."`
	// Query and Params are a SQL query and its positional parameters.
	Query  string   `json:"query,omitempty" yaml:"query,omitempty" jsonschema:"SQL for sql:<conn>; values in params."`
	Params []string `json:"params,omitempty" yaml:"params,omitempty" jsonschema:"Parameters of query ($1 or ?)."`
	// MaxRows caps the rows of a SQL result (default 1,000).
	MaxRows int `json:"max_rows,omitempty" yaml:"max_rows,omitempty" jsonschema:"SQL row cap (1000)."`
	// Pages selects parts of a document by their 1-based index: "3", "3-4",
	// "1,5-7" — the pages of a PDF, the slides of a deck, the cells of a
	// notebook, the records of JSON Lines (the document's main kind of part),
	// or "slide=2" naming the kind, as a reference's fragment does
	// (deck.pptx#slide=2). It applies to documents that a format of the
	// registry extracts (docs/documents.md); the api source's count of Link
	// pages is Web.Pages (--pages N sets both).
	Pages string `json:"pages,omitempty" yaml:"pages,omitempty" jsonschema:"Document pages: 3-4."`
	// Raw asks for the whole HTML page (web pages, HTML files) instead of its
	// main content.
	Raw bool `json:"raw,omitempty" yaml:"raw,omitempty" jsonschema:"HTML: whole page, not main content."`
}

// IsZero reports whether no constraint is set.
func (c Constraints) IsZero() bool {
	return c.Lines == "" && c.Bytes == "" && len(c.Sections) == 0 && c.Select == "" && c.Pages == "" &&
		c.Version == "" && c.MaxBytes == 0 && c.Query == "" && len(c.Params) == 0 && c.MaxRows == 0 && !c.Raw
}

// Result is the output contract of seed 002 plus the extras of DESIGN.md §1.
// Every field is always present in its JSON and YAML encodings.
type Result struct {
	Retrieved       Retrieved  `json:"retrieved" yaml:"retrieved"`
	Citation        Citation   `json:"citation" yaml:"citation"`
	Provenance      Provenance `json:"provenance" yaml:"provenance"`
	Extraction      Extraction `json:"extraction" yaml:"extraction"`
	Confidence      float64    `json:"confidence" yaml:"confidence"`
	EvidenceAnchors []string   `json:"evidence_anchors" yaml:"evidence_anchors"`
	Assumptions     []string   `json:"assumptions" yaml:"assumptions"`
	// RetrievalID is the ledger entry that recorded this result, empty when
	// it was not recorded.
	RetrievalID string `json:"retrieval_id" yaml:"retrieval_id"`
	// Error is null on success.
	Error *ErrorInfo `json:"error" yaml:"error"`
}

// Retrieved says what was asked, where it came from and what came back.
type Retrieved struct {
	Target    string `json:"target" yaml:"target"`
	Source    string `json:"source" yaml:"source"`
	Timestamp string `json:"timestamp" yaml:"timestamp"`
	Data      any    `json:"data" yaml:"data"`
	Format    string `json:"format" yaml:"format"`
	Complete  bool   `json:"complete" yaml:"complete"`
}

// Authority is how much the source is to be trusted as a source of record.
type Authority string

// The authority levels.
const (
	AuthorityLow    Authority = "low"
	AuthorityMedium Authority = "medium"
	AuthorityHigh   Authority = "high"
)

// Citation lets anyone fetch the same bytes again and check them.
type Citation struct {
	// Reference is accepted by `retrieve get` and re-retrieves the same span.
	Reference string `json:"reference" yaml:"reference"`
	// Version is the source's version (git:<sha>, an ETag…) or null.
	Version *string `json:"version" yaml:"version"`
	// Hash is sha256:<hex> of exactly the returned data (canonical JSON for
	// structured data); null only when no data was returned.
	Hash *string `json:"hash" yaml:"hash"`
	// SourceHash is sha256:<hex> of the whole source document before extraction.
	SourceHash *string   `json:"source_hash" yaml:"source_hash"`
	Authority  Authority `json:"authority" yaml:"authority"`
}

// Freshness says how current the data is.
type Freshness string

// The freshness values.
const (
	FreshnessFresh   Freshness = "fresh"
	FreshnessStale   Freshness = "stale"
	FreshnessUnknown Freshness = "unknown"
)

// How the data was obtained.
const (
	FromLive        = "live"
	FromRevalidated = "revalidated"
	FromSnapshot    = "snapshot"
)

// Provenance describes the source and how current the data is.
type Provenance struct {
	SourceType   string    `json:"source_type" yaml:"source_type"`
	LastModified *string   `json:"last_modified" yaml:"last_modified"`
	Freshness    Freshness `json:"freshness" yaml:"freshness"`
	Reliability  string    `json:"reliability" yaml:"reliability"`
	// RetrievedFrom is live, revalidated or snapshot.
	RetrievedFrom string `json:"retrieved_from" yaml:"retrieved_from"`
	// AgeSeconds is how old the data is: 0 for a live read.
	AgeSeconds float64 `json:"age_seconds" yaml:"age_seconds"`
	// Metadata holds source-specific facts (a page's title, the final URL
	// after redirects, a SQL row count…); an empty object when none.
	Metadata map[string]any `json:"metadata" yaml:"metadata"`
}

// Extraction reports what was cut out.
type Extraction struct {
	AppliedFilters Filters `json:"applied_filters" yaml:"applied_filters"`
	OriginalSize   *int64  `json:"original_size" yaml:"original_size"`
	ReturnedSize   *int64  `json:"returned_size" yaml:"returned_size"`
	Truncated      bool    `json:"truncated" yaml:"truncated"`
	// Next is the reference of the next part when max_bytes (or a server's
	// message budget) cut the data: pass it as the target of the next call
	// to page through the source, each part with its own citation. Null
	// when nothing was cut or the cut cannot be named by a reference.
	Next *string `json:"next" yaml:"next"`
	// Budget is what a server's message budget did to the data; null
	// outside a server (the CLI, the library). It is not a filter: the
	// caller's own max_bytes is in AppliedFilters.
	Budget *BudgetReport `json:"budget" yaml:"budget"`
}

// BudgetReport is extraction.budget: the message budget a server held a
// result to, the share of it the data could take, and what it cut. Three
// sizes have three names: the user's max_bytes (a filter), the server's
// message budget (this), a source's transfer cap (how much a web or API
// body may be downloaded; docs/web.md).
type BudgetReport struct {
	// MessageBytes is the call's message budget: the most the whole
	// message may weigh as the transport sends it.
	MessageBytes int `json:"message_bytes" yaml:"message_bytes"`
	// DataBytes is the data's share of it, counted as the transport
	// encodes the data (JSON-escaped, twice over MCP: structuredContent
	// and the text block).
	DataBytes int64 `json:"data_bytes" yaml:"data_bytes"`
	// Cut says the budget cut the data: extraction.truncated is set and
	// extraction.next names the rest when a reference can.
	Cut bool `json:"cut" yaml:"cut"`
}

// Timestamp formats t as the contract does: RFC 3339 in UTC.
func Timestamp(t time.Time) string {
	return t.UTC().Format(time.RFC3339Nano)
}

// OK reports whether the result is a success.
func (r *Result) OK() bool { return r.Error == nil }

// Filters are the constraints that were applied; empty encodes as null in
// both JSON and YAML.
type Filters map[string]any

// MarshalYAML encodes empty filters as null, as JSON does.
func (f Filters) MarshalYAML() (any, error) {
	if len(f) == 0 {
		return nil, nil
	}
	return map[string]any(f), nil
}
