package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/intl"
)

// Extraction is the agent-produced extraction of the upstream ingestion
// format.
type Extraction struct {
	Entities  []ExtractedEntity   `json:"entities"`
	Relations []ExtractedRelation `json:"relations"`
}

// ExtractedEntity is one entity of an extraction.
type ExtractedEntity struct {
	Name           string `json:"name"`
	Type           string `json:"type"`
	SupportingText string `json:"supporting_text,omitempty"`
}

// ExtractedRelation is one relation of an extraction.
type ExtractedRelation struct {
	Source         string  `json:"source"`
	Target         string  `json:"target"`
	Type           string  `json:"type"`
	Confidence     float64 `json:"confidence"`
	SupportingText string  `json:"supporting_text,omitempty"`
	ChunkHint      string  `json:"chunk_hint,omitempty"`
	// ValidFrom and ValidTo are when the relation held, as the evidence
	// dates it (a date or an RFC 3339 time; absent when unknown).
	ValidFrom string `json:"valid_from,omitempty"`
	ValidTo   string `json:"valid_to,omitempty"`
}

// MaxExtractionBytes caps an extraction file.
const MaxExtractionBytes = 32 << 20

// MaxExtractionItems caps the entities, and separately the relations, of
// one extraction: each costs a write and an evidence check, so the time
// of one ingest stays within seconds (docs/SECURITY.md, "Bounded cost").
const MaxExtractionItems = 10_000

// ParseExtraction parses and validates an extraction JSON document.
func ParseExtraction(data []byte) (*Extraction, error) {
	if len(data) > MaxExtractionBytes {
		return nil, retrieve.Errorf(retrieve.CodeTooLarge, "the extraction is larger than %d bytes", MaxExtractionBytes)
	}
	var x Extraction
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&x); err != nil {
		return nil, retrieve.Errorf(retrieve.CodeParseFailed, "the extraction is not valid JSON: %v", err).
			WithHint(`expected {"entities": [{"name", "type", "supporting_text"?}], "relations": [{"source", "target", "type", "confidence", "supporting_text"?, "chunk_hint"?}]}`).WithErr(err)
	}
	if err := x.checkSize(); err != nil {
		return nil, err
	}
	for i, e := range x.Entities {
		if NormalizeName(e.Name) == "" || strings.TrimSpace(e.Type) == "" {
			return nil, retrieve.Errorf(retrieve.CodeInputValidation, "entity %d has an empty name or type", i).
				WithHint("every entity needs a name and a type")
		}
	}
	for i, r := range x.Relations {
		if NormalizeName(r.Source) == "" || NormalizeName(r.Target) == "" || strings.TrimSpace(r.Type) == "" {
			return nil, retrieve.Errorf(retrieve.CodeInputValidation, "relation %d has an empty source, target or type", i).
				WithHint("every relation needs a source, a target, a type and a confidence")
		}
		if math.IsNaN(r.Confidence) || r.Confidence < 0 || r.Confidence > 1 {
			return nil, retrieve.Errorf(retrieve.CodeInputValidation, "relation %d has confidence %v outside 0..1", i, r.Confidence).
				WithHint("confidence is 1.0 explicit, 0.8 strongly implied, 0.6 weakly implied")
		}
	}
	if err := x.checkTimes(); err != nil {
		return nil, err
	}
	return &x, nil
}

// IngestInput is one document to ingest with its extraction.
type IngestInput struct {
	DocID string `json:"doc_id"`
	Title string `json:"title"`
	// Target, when Content is empty, is retrieved through the engine (a
	// workspace path, a URL…) so the document keeps its citation.
	Target string `json:"target,omitempty"`
	// Content is the raw text; Source names where it came from.
	Content string `json:"content,omitempty"`
	Source  string `json:"source,omitempty"`
	// Reference, Hash and RetrievalID are the citation of the retrieval
	// the content came from, when the caller retrieved it.
	Reference   string     `json:"reference,omitempty"`
	Hash        string     `json:"hash,omitempty"`
	RetrievalID string     `json:"retrieval_id,omitempty"`
	Extraction  Extraction `json:"extraction"`
	// AllowUnverified keeps relations whose supporting text is not in their
	// chunk, with confidence capped at UnverifiedCap and flagged.
	AllowUnverified bool `json:"allow_unverified,omitempty"`
	// ValidFrom and ValidTo date the document's relations that carry no
	// valid time of their own (the writer's; a date or RFC 3339 time):
	// `graph ingest --valid-from/--valid-to`. Over MCP each relation
	// carries its own.
	ValidFrom string `json:"-"`
	ValidTo   string `json:"-"`
}

// Skipped is a relation or entity that ingest did not keep, and why.
type Skipped struct {
	Kind       string  `json:"kind"` // "relation" or "entity"
	Source     string  `json:"source,omitempty"`
	Target     string  `json:"target,omitempty"`
	Name       string  `json:"name,omitempty"`
	Type       string  `json:"type"`
	Confidence float64 `json:"confidence,omitempty"`
	Reason     string  `json:"reason"`
}

// Skip reasons.
const (
	ReasonLowConfidence   = "confidence_below_min"
	ReasonUnknownEndpoint = "unknown_endpoint"
	ReasonUnverified      = "evidence_not_found_kept_unverified"
)

// IngestOutput is the ingest result: the upstream fields, then the skipped
// relations and the citation.
type IngestOutput struct {
	DocID      string    `json:"doc_id"`
	ChunkCount int       `json:"chunk_count"`
	NodesAdded int       `json:"nodes_added"`
	EdgesAdded int       `json:"edges_added"`
	Skipped    []Skipped `json:"skipped"`
	Reference  string    `json:"reference,omitempty"`
	Hash       string    `json:"hash,omitempty"`
	// Version is the document's version (1, then one more each time its
	// text changes); EdgesRetired counts the edges of the previous version
	// that this one retired.
	Version      int `json:"version"`
	EdgesRetired int `json:"edges_retired"`
}

var docIDOK = func(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-:", r)) {
			return false
		}
	}
	return true
}

// Ingest stores a document, chunks it, and adds the entities and the
// relations whose evidence checks out. It is idempotent.
func (t *Tools) Ingest(ctx context.Context, in IngestInput) (*IngestOutput, error) {
	if err := in.Extraction.checkSize(); err != nil {
		return nil, err
	}
	if err := in.Extraction.checkTimes(); err != nil {
		return nil, err
	}
	if err := CheckValidTime("valid_from", in.ValidFrom); err != nil {
		return nil, err
	}
	if err := CheckValidTime("valid_to", in.ValidTo); err != nil {
		return nil, err
	}
	if !docIDOK(in.DocID) {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "bad doc_id %q", in.DocID).
			WithHint("use letters, digits, '.', '_', '-' or ':' (at most 200), e.g. doc_001")
	}
	if in.Content == "" && in.Target != "" {
		if err := t.fetch(ctx, &in); err != nil {
			return nil, err
		}
	}
	if strings.TrimSpace(in.Content) == "" {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "document %s has no text", in.DocID).
			WithHint("pass the document's text as content, or a reference to read it from (in the CLI: --file, --url or --stdin)")
	}
	if in.Title == "" {
		in.Title = in.DocID
	}
	// A source URL keeps no credential: the store and every result would show it.
	doc := &Document{ID: in.DocID, Title: in.Title, Source: retrieve.RedactURL(in.Source), Content: in.Content,
		IngestionDate: t.now().UTC().Format("2006-01-02T15:04:05.000000+00:00"),
		Reference:     in.Reference, Hash: in.Hash, RetrievalID: in.RetrievalID}
	// A changed text becomes a new version of the document (the store
	// retires what the old one supported); the same text keeps the stored
	// document as it is.
	if existing, err := t.Store.GraphDocument(ctx, in.DocID); err == nil && existing.Content == in.Content {
		doc = existing
	} else if err != nil && retrieve.ErrorCode(err) != retrieve.CodeNotFound {
		return nil, err
	} else {
		doc.Chunks = ChunkText(doc.ID, doc.Content)
	}
	out, batch, err := BuildBatch(doc, &in.Extraction, in.AllowUnverified)
	if err != nil {
		return nil, err
	}
	batch.Now = Micros(t.now())
	for _, e := range batch.Edges {
		if e.ValidFrom == "" {
			e.ValidFrom = in.ValidFrom
		}
		if e.ValidTo == "" {
			e.ValidTo = in.ValidTo
		}
	}
	if err := t.adoptIDs(ctx, batch); err != nil {
		return nil, err
	}
	applied, err := t.Store.ApplyGraph(ctx, batch)
	if err != nil {
		return nil, err
	}
	out.NodesAdded, out.EdgesAdded = applied.NodesAdded, applied.EdgesAdded
	out.Version, out.EdgesRetired = applied.Version, applied.EdgesRetired
	out.Reference, out.Hash = doc.Reference, doc.Hash
	return out, nil
}

// BuildBatch turns a chunked document and its extraction into a batch,
// checking the evidence of every relation. It is pure: no store access.
func BuildBatch(doc *Document, x *Extraction, allowUnverified bool) (*IngestOutput, *Batch, error) {
	out := &IngestOutput{DocID: doc.ID, ChunkCount: len(doc.Chunks), Skipped: []Skipped{}}
	chunkByID := map[string]*Chunk{}
	normed := make([]Chunk, len(doc.Chunks)) // chunk texts normalised once for the evidence checks
	for i := range doc.Chunks {
		normed[i] = Chunk{ChunkID: doc.Chunks[i].ChunkID, Index: i, Text: normText(doc.Chunks[i].Text)}
		chunkByID[doc.Chunks[i].ChunkID] = &normed[i]
	}
	nodes := map[string]*Node{}
	var order []string
	for _, e := range x.Entities {
		name := NormalizeName(e.Name)
		id := NodeID(name)
		n, ok := nodes[id]
		if !ok {
			n = &Node{ID: id, Name: name, Type: NormalizeType(e.Type), SourceDocument: NullString(doc.ID), SourceChunks: []string{}}
			nodes[id] = n
			order = append(order, id)
		}
		if c := bestChunk(normed, e.SupportingText); c != "" && !contains(n.SourceChunks, c) {
			n.SourceChunks = append(n.SourceChunks, c)
		}
	}
	edges := map[string]*Edge{}
	var eorder []string
	for _, r := range x.Relations {
		typ := NormalizeRelation(r.Type)
		skip := Skipped{Kind: "relation", Source: NormalizeName(r.Source), Target: NormalizeName(r.Target), Type: strings.TrimSpace(r.Type), Confidence: r.Confidence}
		if r.Confidence < MinConfidence {
			skip.Reason = ReasonLowConfidence
			out.Skipped = append(out.Skipped, skip)
			continue
		}
		src, tgt := NodeID(r.Source), NodeID(r.Target)
		if nodes[src] == nil || nodes[tgt] == nil {
			skip.Reason = ReasonUnknownEndpoint
			out.Skipped = append(out.Skipped, skip)
			continue
		}
		e := &Edge{Source: src, Target: tgt, Type: typ, Confidence: r.Confidence, SourceDocument: NullString(doc.ID), ValidFrom: r.ValidFrom, ValidTo: r.ValidTo}
		chunk, verified := locateEvidence(normed, chunkByID, r)
		if !verified {
			if !allowUnverified {
				what := "no supporting_text"
				if strings.TrimSpace(r.SupportingText) != "" {
					what = fmt.Sprintf("supporting text %q", clip(r.SupportingText, 80))
				}
				return nil, nil, retrieve.Errorf(retrieve.CodeEvidenceNotFound, "relation %s --[%s]--> %s: %s does not occur in %s",
					skip.Source, typ, skip.Target, what, where(chunk, doc.ID)).
					WithHint("quote the document exactly in supporting_text, or pass --allow-unverified to keep it flagged with confidence capped at %.1f", UnverifiedCap)
			}
			e.Unverified = true
			e.Confidence = math.Min(e.Confidence, UnverifiedCap)
			skip.Reason = ReasonUnverified
			out.Skipped = append(out.Skipped, skip)
		}
		e.SupportingText = NullString(r.SupportingText)
		e.ChunkID = NullString(chunk)
		if prev, ok := edges[e.Key()]; ok {
			if e.Confidence > prev.Confidence {
				*prev = *e
			}
			continue
		}
		edges[e.Key()] = e
		eorder = append(eorder, e.Key())
	}
	b := &Batch{Document: doc, CountNewTypes: true}
	for _, id := range order {
		sort.Strings(nodes[id].SourceChunks)
		b.Nodes = append(b.Nodes, nodes[id])
	}
	for _, k := range eorder {
		b.Edges = append(b.Edges, edges[k])
	}
	return out, b, nil
}

func where(chunk, docID string) string {
	if chunk == "" {
		return "any chunk of " + docID
	}
	return "chunk " + chunk
}

// locateEvidence finds the chunk of a relation: the chunk_hint when it
// names a chunk of the document that holds the supporting text, else the
// first chunk that holds it. verified is false when no chunk holds it.
// The chunks' texts are already normalised (normText).
func locateEvidence(chunks []Chunk, byID map[string]*Chunk, r ExtractedRelation) (string, bool) {
	want := normText(r.SupportingText)
	holds := func(c *Chunk) bool { return want != "" && strings.Contains(c.Text, want) }
	if strings.TrimSpace(r.SupportingText) == "" {
		if c, ok := byID[r.ChunkHint]; ok {
			return c.ChunkID, false
		}
		return "", false
	}
	if c, ok := byID[r.ChunkHint]; ok && holds(c) {
		return c.ChunkID, true
	}
	for i := range chunks {
		if holds(&chunks[i]) {
			return chunks[i].ChunkID, true
		}
	}
	if c, ok := byID[r.ChunkHint]; ok {
		return c.ChunkID, false
	}
	return bestChunk(chunks, r.SupportingText), false
}

// bestChunk is the chunk (texts normalised) that contains text, else the
// one sharing most words with it (upstream's _find_best_chunk), "" when none.
func bestChunk(chunks []Chunk, text string) string {
	want := normText(text)
	if want == "" {
		return ""
	}
	for _, c := range chunks {
		if strings.Contains(c.Text, want) {
			return c.ChunkID
		}
	}
	// Words in any script: a CJK text shares bigrams with its chunk.
	words := map[string]bool{}
	for _, w := range intl.Keywords(text) {
		words[w] = true
	}
	best, bestScore := "", 0
	for _, c := range chunks {
		score := 0
		seen := map[string]bool{}
		for _, w := range intl.Keywords(c.Text) {
			if words[w] && !seen[w] {
				seen[w] = true
				score++
			}
		}
		if score > bestScore {
			best, bestScore = c.ChunkID, score
		}
	}
	return best
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func (t *Tools) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

// fetch retrieves in.Target through the engine, keeping its citation.
func (t *Tools) fetch(ctx context.Context, in *IngestInput) error {
	if t.Retriever == nil {
		return retrieve.Errorf(retrieve.CodeInvalidOperation, "no engine to retrieve %s", in.Target).
			WithHint("pass the document's text as content")
	}
	res, err := t.Retriever.Retrieve(ctx, retrieve.Request{Target: in.Target, Format: "text"})
	if err != nil {
		if ae := retrieve.AsError(err); ae.Code == retrieve.CodeUnknownSource {
			return ae.WithHint("no source of this engine reads %s; save the document and pass --file, or pipe it with --stdin", in.Target)
		}
		return err
	}
	s, ok := res.Retrieved.Data.(string)
	if !ok {
		return retrieve.Errorf(retrieve.CodeUnsupportedFormat, "%s did not retrieve as text", in.Target).
			WithHint("ingest text documents (markdown, plain text, HTML converted to text)")
	}
	in.Content = s
	if in.Source == "" {
		in.Source = res.Retrieved.Source
	}
	in.Reference = res.Citation.Reference
	if res.Citation.Hash != nil {
		in.Hash = *res.Citation.Hash
	}
	in.RetrievalID = res.RetrievalID
	return nil
}

// adoptIDs gives the batch's nodes the ids their names already have in the
// store (an imported node keeps its upstream id), and rewrites the edges.
func (t *Tools) adoptIDs(ctx context.Context, b *Batch) error {
	names := make([]string, len(b.Nodes))
	for i, n := range b.Nodes {
		names[i] = n.Name
	}
	have, err := t.Store.NodeIDsByName(ctx, names)
	if err != nil {
		return err
	}
	remap := map[string]string{}
	for _, n := range b.Nodes {
		if id, ok := have[n.Name]; ok && id != n.ID {
			remap[n.ID] = id
			n.ID = id
		}
	}
	if len(remap) == 0 {
		return nil
	}
	for _, e := range b.Edges {
		if id, ok := remap[e.Source]; ok {
			e.Source = id
		}
		if id, ok := remap[e.Target]; ok {
			e.Target = id
		}
	}
	return nil
}

// checkTimes refuses a relation whose valid time is not a date.
func (x *Extraction) checkTimes() error {
	for i, r := range x.Relations {
		if err := CheckValidTime(fmt.Sprintf("relation %d's valid_from", i), r.ValidFrom); err != nil {
			return err
		}
		if err := CheckValidTime(fmt.Sprintf("relation %d's valid_to", i), r.ValidTo); err != nil {
			return err
		}
	}
	return nil
}

// checkSize refuses an extraction of more than MaxExtractionItems
// entities or relations.
func (x *Extraction) checkSize() error {
	if len(x.Entities) > MaxExtractionItems || len(x.Relations) > MaxExtractionItems {
		return retrieve.Errorf(retrieve.CodeTooLarge, "the extraction has %d entities and %d relations; at most %d of each are ingested at once", len(x.Entities), len(x.Relations), MaxExtractionItems).
			WithHint("ingest the document's extraction in parts (one per section)")
	}
	return nil
}
