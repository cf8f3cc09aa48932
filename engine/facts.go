package engine

import (
	"encoding/json"

	"github.com/retrieve-dev/retrieve"
)

// factsKey is the key of provenance.metadata under which the recorded copy
// of a result keeps its document's facts. Results returned to a caller
// never carry it (RecordedResult and snapshot documents drop it).
const factsKey = "document_facts"

// facts are what a source stated about a document (the Document fields
// Volatile, Spans, TextFragments and CurrentOnly), in the form the ledger
// records them: a later fallback, rebuild or verification reads them from
// the entry instead of guessing from the source's kind.
type facts struct {
	Volatile      bool `json:"volatile,omitempty"`
	Spans         bool `json:"spans,omitempty"`
	TextFragments bool `json:"text_fragments,omitempty"`
	CurrentOnly   bool `json:"current_only,omitempty"`
}

// factsOf returns the facts doc states.
func factsOf(doc *retrieve.Document) facts {
	return facts{Volatile: doc.Volatile, Spans: doc.Spans, TextFragments: doc.TextFragments, CurrentOnly: doc.CurrentOnly}
}

// apply sets the facts on doc.
func (f facts) apply(doc *retrieve.Document) {
	doc.Volatile, doc.Spans, doc.TextFragments, doc.CurrentOnly = f.Volatile, f.Spans, f.TextFragments, f.CurrentOnly
}

// withFacts returns res as it is recorded: a copy whose
// provenance.metadata holds f (res itself, returned to the caller, is left
// as it is).
func withFacts(res *retrieve.Result, f facts) *retrieve.Result {
	rec := *res
	md := make(map[string]any, len(res.Provenance.Metadata)+1)
	for k, v := range res.Provenance.Metadata {
		md[k] = v
	}
	md[factsKey] = f
	rec.Provenance.Metadata = md
	return &rec
}

// recordedFacts returns the facts an entry's recorded result holds, and
// drops them from its metadata. Entries recorded before the facts were
// recorded hold none: their facts are those their source kind had then
// (legacyFacts).
func recordedFacts(res *retrieve.Result) facts {
	raw, ok := res.Provenance.Metadata[factsKey]
	if !ok {
		return legacyFacts(res)
	}
	delete(res.Provenance.Metadata, factsKey)
	var f facts
	if b, err := json.Marshal(raw); err == nil && json.Unmarshal(b, &f) == nil {
		return f
	}
	return legacyFacts(res)
}

// legacyFacts are the facts of an entry recorded before they were
// recorded, which names only its source kind and reference: what the engine
// then decided by those names. Nothing else in the engine reads a kind's
// name; a source added since records its facts.
func legacyFacts(res *retrieve.Result) facts {
	kind, scheme := res.Provenance.SourceType, retrieve.ParseReference(res.Citation.Reference).Scheme
	return facts{
		Volatile:      kind == "web" || kind == "api" || kind == "database",
		Spans:         scheme == "file" || scheme == "git" || scheme == "memory",
		TextFragments: scheme == "web",
		CurrentOnly:   kind == "database",
	}
}
