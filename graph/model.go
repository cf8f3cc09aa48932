// Package graph is the knowledge graph of a workspace: documents cut into
// chunks, entities (nodes) and relations (edges) extracted from them by an
// agent, and queries that return the subgraph together with the source text
// that proves every hop. It follows the data model of mini-context-graph
// (seed 003) and stores it through the Store interface (store/sqlite now,
// PostgreSQL later; graph/graphtest is the conformance suite).
package graph

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve/intl"
)

// Constants of the upstream configuration (seed-origins §2).
const (
	MaxGraphDepth = 2
	MinConfidence = 0.6
	MaxNodes      = 50
	ChunkSize     = 500
	ChunkOverlap  = 100
	// UnverifiedCap is the confidence an unverified relation keeps at most
	// (below MinConfidence, so traversal never follows it by default).
	UnverifiedCap = 0.5
)

// The evidence chain strings of upstream for the empty cases.
const (
	NoMatchingNodes = "No matching nodes found."
	NoEdges         = "No edges in subgraph."
)

// NullString is a string that encodes "" as JSON null and decodes null as
// "", as the upstream files hold None.
type NullString string

// MarshalJSON implements json.Marshaler.
func (s NullString) MarshalJSON() ([]byte, error) {
	if s == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(s))
}

// UnmarshalJSON implements json.Unmarshaler.
func (s *NullString) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*s = ""
		return nil
	}
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = NullString(v)
	return nil
}

// Chunk is one window of a document.
type Chunk struct {
	ChunkID string `json:"chunk_id"`
	Index   int    `json:"index"`
	Text    string `json:"text"`
}

// Document is an ingested source document.
type Document struct {
	ID            string  `json:"id"`
	Title         string  `json:"title"`
	Source        string  `json:"source"`
	Content       string  `json:"content"`
	Chunks        []Chunk `json:"chunks"`
	IngestionDate string  `json:"ingestion_date"`
	// Reference and Hash are the citation of the retrieval the document came
	// from (retrieve get), empty when it came from stdin.
	Reference string `json:"reference,omitempty"`
	Hash      string `json:"hash,omitempty"`
	// RetrievalID is the ledger entry of that retrieval.
	RetrievalID string `json:"retrieval_id,omitempty"`
	// Version counts the texts ingested under this id (1 for the first);
	// RecordedAt is when this version was written (unix microseconds).
	// Neither is in the upstream files.
	Version    int   `json:"-"`
	RecordedAt int64 `json:"-"`
	// ForgottenAt is when graph forget tombstoned it (0: it is not).
	ForgottenAt int64 `json:"-"`
}

// Node is an entity.
type Node struct {
	ID             string     `json:"-"`
	Name           string     `json:"name"`
	Type           string     `json:"type"`
	SourceDocument NullString `json:"source_document"`
	SourceChunks   []string   `json:"source_chunks"`
	// RecordedAt is when the store first held the node (unix
	// microseconds, 0 for nodes older than transaction time); not in the
	// upstream files.
	RecordedAt int64 `json:"-"`
}

// Edge is a relation with the text that supports it.
type Edge struct {
	Source         string     `json:"source"`
	Target         string     `json:"target"`
	Type           string     `json:"type"`
	Confidence     float64    `json:"confidence"`
	SourceDocument NullString `json:"source_document"`
	SupportingText NullString `json:"supporting_text"`
	ChunkID        NullString `json:"chunk_id"`
	// Unverified marks a relation whose supporting text was not found in
	// its chunk, kept with --allow-unverified and its confidence capped.
	Unverified bool `json:"unverified,omitempty"`
	// Time (none of it is in the upstream files): ValidFrom and ValidTo
	// are when the fact held, as the evidence or the writer dated it
	// (RFC 3339 or YYYY-MM-DD, "" when unknown); RecordedAt and RetiredAt
	// are when the store learned the fact and when it stopped holding it
	// (unix microseconds; RetiredAt 0 while it holds). Retired says why a
	// retired version went (RetiredSuperseded, RetiredForgotten).
	ValidFrom  string `json:"-"`
	ValidTo    string `json:"-"`
	RecordedAt int64  `json:"-"`
	RetiredAt  int64  `json:"-"`
	Retired    string `json:"-"`
	// StaleAt is when graph verify found the edge's evidence changed in
	// its source (unix microseconds, 0 when fresh), StaleDiff what changed.
	StaleAt   int64  `json:"-"`
	StaleDiff string `json:"-"`
}

// Key is the identity of an edge: (source, target, type).
func (e *Edge) Key() string { return e.Source + "\x00" + e.Target + "\x00" + e.Type }

// Subgraph is the answer of a query, in the upstream shape.
type Subgraph struct {
	Nodes map[string]*Node `json:"nodes"`
	Edges []*Edge          `json:"edges"`
}

// Ontology counts the entity and relation types in use.
type Ontology struct {
	EntityTypes   map[string]int `json:"entity_types"`
	RelationTypes map[string]int `json:"relation_types"`
}

// NodeID is the deterministic id of an entity name: 12 hex digits of the
// sha256 of the normalised name (upstream uses 8 random ones; ids are opaque).
func NodeID(name string) string {
	h := sha256.Sum256([]byte("node\x00" + NormalizeName(name)))
	return hex.EncodeToString(h[:6])
}

// NormalizeName is the node-name normalisation of ingest and queries: NFKC
// (full-width letters and digits become ASCII, half-width katakana
// full-width), trimmed, lowercased. Imported names keep upstream's form
// (upstreamName).
func NormalizeName(name string) string { return strings.ToLower(strings.TrimSpace(intl.NFKC(name))) }

// upstreamName is upstream's normalisation (name.strip().lower()): imported
// names stay as they are in the files, so that export gives them back.
func upstreamName(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// ChunkID is "<doc_id>_chunk_NNN".
func ChunkID(docID string, i int) string { return fmt.Sprintf("%s_chunk_%03d", docID, i) }

// ChunkText cuts content into windows of ChunkSize characters (runes) with
// ChunkOverlap overlap, trimming each and dropping empty ones, as upstream.
func ChunkText(docID, content string) []Chunk {
	r := []rune(content)
	var texts []string
	for start := 0; start < len(r); start += ChunkSize - ChunkOverlap {
		end := min(start+ChunkSize, len(r))
		if t := strings.TrimSpace(string(r[start:end])); t != "" {
			texts = append(texts, t)
		}
		if end >= len(r) {
			break
		}
	}
	chunks := make([]Chunk, len(texts))
	for i, t := range texts {
		chunks[i] = Chunk{ChunkID: ChunkID(docID, i), Index: i, Text: t}
	}
	return chunks
}

// stopWords is built on first use (no table at init: cmd/retrieve
// TestColdStartInitIsLazy).
var stopWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the is are was were be been being have has had do does did will would could
		should may might shall can to of in on at by for with from and or but not it its this that these those i you he she
		we they what which who how why when where`) {
		m[w] = true
	}
	return m
})

var tokenRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[a-z0-9]+`) })

// Keywords returns the keywords the store indexes names by and queries
// look up, in any script (intl.Keywords: NFKC, case and Latin diacritics
// folded, CJK runs in bigrams, not stemmed), stop words and one-character
// tokens (but a one-character CJK word) removed, in order, with
// duplicates. On ASCII text they are Tokenize's.
func Keywords(text string) []string {
	var out []string
	for _, t := range intl.Keywords(text) {
		if stopWords()[t] {
			continue
		}
		if utf8.RuneCountInString(t) < 2 {
			if r, _ := utf8.DecodeRuneInString(t); !intl.IsCJK(r) {
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// Tokenize returns upstream's keywords of text (its index.json): [a-z0-9]+
// runs of the lowercased text, stop words and one-character tokens removed,
// in order, with duplicates.
func Tokenize(text string) []string {
	var out []string
	for _, t := range tokenRe().FindAllString(strings.ToLower(text), -1) {
		if len(t) > 1 && !stopWords()[t] {
			out = append(out, t)
		}
	}
	return out
}

// IsStopWord reports whether w is a stop word.
func IsStopWord(w string) bool { return stopWords()[w] }

func normKey(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer("-", " ", "_", " ").Replace(s)
	return s
}

// NormalizeType is the canonical entity type (lowercase, - and _ as spaces,
// the synonym map of upstream).
func NormalizeType(t string) string {
	k := normKey(t)
	if v, ok := entityTypeMap()[k]; ok {
		return v
	}
	return k
}

// NormalizeRelation is the canonical relation type.
func NormalizeRelation(t string) string {
	k := normKey(t)
	if v, ok := relationTypeMap()[k]; ok {
		return v
	}
	return k
}

var entityTypeMap = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"component": "component", "module": "component", "class": "component", "function": "component", "method": "component",
		"bug": "issue", "defect": "issue", "fault": "issue", "error": "issue", "failure": "issue", "problem": "issue", "crash": "issue",
		"server": "infrastructure", "host": "infrastructure", "machine": "infrastructure", "node": "infrastructure",
		"user": "actor", "person": "actor", "operator": "actor", "admin": "actor", "administrator": "actor", "actor": "actor",
		"app": "software", "application": "software", "service": "software", "program": "software", "software": "software",
		"database": "storage", "datastore": "storage", "db": "storage", "storage": "storage",
		"api": "interface", "endpoint": "interface", "interface": "interface", "connection": "interface",
		"event": "event", "incident": "event", "occurrence": "event", "trigger": "event",
		"concept": "concept", "idea": "concept", "principle": "concept", "theory": "concept",
		"process": "process", "thread": "process", "task": "process", "job": "process", "workflow": "process",
		"object": "component", "resource": "component", "memory": "resource", "cpu": "resource",
		"system": "system", "platform": "system", "framework": "system", "library": "software", "package": "software",
	}
})

var relationTypeMap = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"causes": "causes", "triggers": "causes", "leads to": "causes", "results in": "causes", "produces": "causes",
		"is part of": "contains", "belongs to": "contains", "lives in": "contains", "sits in": "contains", "contains": "contains",
		"depends on": "depends on", "requires": "depends on", "needs": "depends on",
		"uses": "uses", "calls": "uses", "invokes": "uses", "consumes": "uses",
		"affects": "affects", "impacts": "affects", "influences": "affects",
		"creates": "creates", "instantiates": "creates", "spawns": "creates",
		"connects to": "connects to", "links to": "connects to", "references": "connects to",
		"inherits from": "extends", "extends": "extends", "subclasses": "extends",
		"reads from": "reads from", "queries": "reads from", "fetches": "reads from",
		"writes to": "writes to", "stores in": "writes to", "persists to": "writes to",
		"contributes to": "contributes to", "allocated by": "allocated by", "released by": "released by",
		"not released": "not released",
	}
})

var spaceRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s+`) })

// normText is the evidence comparison form: lowercased, whitespace runs as
// one space, trimmed.
func normText(s string) string {
	return strings.TrimSpace(spaceRe().ReplaceAllString(strings.ToLower(s), " "))
}

// ContainsEvidence reports whether text occurs in chunk, case-insensitively
// and with whitespace normalised.
func ContainsEvidence(chunk, text string) bool {
	t := normText(text)
	return t != "" && strings.Contains(normText(chunk), t)
}
