package graph

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/intl"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/wiki"
)

// Tools is the graph and wiki API: one typed method per operation, free of
// CLI concerns, for the CLI, the MCP server and the HTTP API alike.
type Tools struct {
	Store Store
	// Wiki is the workspace wiki; nil turns off wiki-first lookup.
	Wiki *wiki.Wiki
	// Retriever retrieves ingest targets so documents keep their citation
	// (the engine); nil turns ingest by target off.
	Retriever retrieve.Retriever
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Ledger records forgets (op "forget"); nil records nothing.
	Ledger store.Ledger
}

// QueryInput is a graph query.
type QueryInput struct {
	Query string `json:"query"`
	// MaxNodes caps the subgraph (MaxNodes when 0); Depth caps the BFS
	// (MaxGraphDepth when 0, never more); MinConfidence is the traversal
	// threshold (MinConfidence when 0).
	MaxNodes      int     `json:"max_nodes,omitempty"`
	Depth         int     `json:"depth,omitempty"`
	MinConfidence float64 `json:"min_confidence,omitempty"`
	// IncludeUnverified follows edges whose evidence was not found (kept
	// with --allow-unverified or imported without it); off by default.
	IncludeUnverified bool `json:"include_unverified,omitempty"`
	// AsOf answers as the store knew then (transaction time): a date
	// (the end of that day, UTC) or an RFC 3339 time; now when empty. A
	// time in the future answers as now; a time before any data finds
	// nothing. Both say so in the answer's assumptions.
	AsOf string `json:"as_of,omitempty"`
	// Stale is what to do with edges whose evidence changed in their
	// source (graph verify): "rank" (the default) follows them after the
	// fresh ones and lists them last, "include" treats them as fresh,
	// "exclude" leaves them out.
	Stale string `json:"stale,omitempty"`

	at int64 // AsOf as a transaction time
}

// Stale edge policies (QueryInput.Stale).
const (
	StaleRank    = "rank"
	StaleInclude = "include"
	StaleExclude = "exclude"
)

type visit struct {
	depth  int
	conf   float64 // product of the confidences along the path from a seed
	parent *Edge   // the edge it was reached by (nil for seeds)
	from   string
}

type traversal struct {
	sub   *Subgraph
	seeds []string
	visit map[string]*visit
	order []string
	// at is the transaction time answered at (0: now); stale counts the
	// stale edges of the answer; assumptions say what the answer assumed.
	at          int64
	stale       int
	assumptions []string
}

func (in *QueryInput) defaults() error {
	if strings.TrimSpace(in.Query) == "" {
		return retrieve.Errorf(retrieve.CodeInputValidation, "the query is empty").WithHint(`ask a question, e.g. "Why does the system crash?"`)
	}
	switch in.Stale {
	case "":
		in.Stale = StaleRank
	case StaleRank, StaleInclude, StaleExclude:
	default:
		return retrieve.Errorf(retrieve.CodeInputValidation, "stale %q is not rank, include or exclude", in.Stale).
			WithHint("rank (the default) lists edges whose source changed after the fresh ones; include treats them as fresh; exclude leaves them out")
	}
	if in.AsOf != "" {
		at, err := ParseAsOf(in.AsOf)
		if err != nil {
			return err
		}
		in.at = at
	}
	if in.MaxNodes <= 0 {
		in.MaxNodes = MaxNodes
	}
	if in.Depth <= 0 || in.Depth > MaxGraphDepth {
		in.Depth = MaxGraphDepth
	}
	if in.MinConfidence <= 0 {
		in.MinConfidence = MinConfidence
	}
	return nil
}

// Query returns the subgraph around the query's seed nodes: {nodes, edges}.
func (t *Tools) Query(ctx context.Context, in QueryInput) (*Subgraph, error) {
	tr, err := t.traverse(ctx, in)
	if err != nil {
		return nil, err
	}
	return tr.sub, nil
}

// Seeds finds the seed nodes of a query, in any script: exact entity
// names (every run of up to 6 words of the query, every part of two
// characters or more of a CJK run, and the whole query, after NFKC and
// lowercasing), then keyword hits (Keywords: CJK bigrams, folded words;
// most keywords first); when neither matched, full-text matches over names
// (stemmed), and when that fails too, the entities of the chunks that
// match. Deterministic order.
func (t *Tools) Seeds(ctx context.Context, query string, limit int) ([]string, error) {
	phrases := namePhrases(query)
	seen := map[string]bool{}
	var seeds []string
	add := func(ids []string) {
		for _, id := range ids {
			if !seen[id] && len(seeds) < limit {
				seen[id] = true
				seeds = append(seeds, id)
			}
		}
	}
	byName, err := t.Store.NodeIDsByName(ctx, phrases)
	if err != nil {
		return nil, err
	}
	// Longer names first: "system crash" before "crash".
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if len(names[i]) != len(names[j]) {
			return len(names[i]) > len(names[j])
		}
		return names[i] < names[j]
	})
	for _, n := range names {
		add([]string{byName[n]})
	}
	tokens := uniq(Keywords(query))
	if len(tokens) == 0 {
		return seeds, nil
	}
	ids, err := t.Store.NodesByKeyword(ctx, tokens, limit)
	if err != nil {
		return nil, err
	}
	add(ids)
	if len(seeds) == 0 {
		fts, err := t.Store.SearchNodeNames(ctx, tokens, limit)
		if err != nil {
			return nil, err
		}
		add(fts)
	}
	if len(seeds) == 0 {
		viaChunks, err := t.Store.SearchChunkNodes(ctx, tokens, limit)
		if err != nil {
			return nil, err
		}
		add(viaChunks)
	}
	return seeds, nil
}

// maxCJKName is the longest CJK entity name (in characters) looked up
// inside a question.
const maxCJKName = 16

// namePhrases lists the names a query may mention: runs of up to 6 of its
// words, every substring of 2 to maxCJKName characters of a word that holds
// CJK characters (CJK questions have no spaces: 什么导致服务崩溃 holds
// 服务崩溃), and the whole query.
func namePhrases(query string) []string {
	q := NormalizeName(query)
	words := strings.FieldsFunc(q, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.In(r, unicode.Mn, unicode.Mc)
	})
	var phrases []string
	for i := range words {
		for j := i + 1; j <= len(words) && j-i <= 6; j++ {
			phrases = append(phrases, strings.Join(words[i:j], " "))
		}
		rs := []rune(words[i])
		if !slices.ContainsFunc(rs, intl.IsCJK) {
			continue
		}
		for a := range rs {
			for b := a + 2; b <= len(rs) && b-a <= maxCJKName; b++ {
				if b-a < len(rs) {
					phrases = append(phrases, string(rs[a:b]))
				}
			}
		}
	}
	if q != "" {
		phrases = append(phrases, q)
	}
	return uniq(phrases)
}

func uniq(xs []string) []string {
	seen := map[string]bool{}
	out := xs[:0:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// traverse runs seeds → BFS (depth ≤ 2, confidence ≥ min) → pruning: seeds
// always, then depth 1, then depth 2, each level taking the nodes reached
// by the highest-confidence edges first (ties by node id).
func (t *Tools) traverse(ctx context.Context, in QueryInput) (*traversal, error) {
	if err := in.defaults(); err != nil {
		return nil, err
	}
	tr := &traversal{visit: map[string]*visit{}, sub: &Subgraph{Nodes: map[string]*Node{}, Edges: []*Edge{}}}
	if err := tr.asOf(&in, t.now()); err != nil {
		return nil, err
	}
	seeds, err := t.Seeds(ctx, in.Query, in.MaxNodes)
	if err != nil {
		return nil, err
	}
	if seeds, err = t.seedsAt(ctx, seeds, tr.at); err != nil {
		return nil, err
	}
	tr.seeds = seeds
	for _, s := range seeds {
		tr.visit[s] = &visit{depth: 0, conf: 1}
		tr.order = append(tr.order, s)
	}
	frontier := seeds
	for depth := 1; depth <= in.Depth && len(frontier) > 0 && len(tr.order) < in.MaxNodes; depth++ {
		if frontier, err = tr.expand(ctx, t.Store, frontier, depth, in); err != nil {
			return nil, err
		}
	}
	if len(tr.order) == 0 {
		tr.assume(in)
		return tr, nil
	}
	nodes, err := t.Store.GraphNodes(ctx, tr.order)
	if err != nil {
		return nil, err
	}
	for _, id := range tr.order {
		if n, ok := nodes[id]; ok {
			tr.sub.Nodes[id] = n
		}
	}
	var edges []*Edge
	if tr.at != 0 {
		edges, err = t.Store.EdgesAmongAt(ctx, tr.order, in.MinConfidence, tr.at)
	} else {
		edges, err = t.Store.EdgesAmong(ctx, tr.order, in.MinConfidence)
	}
	if err != nil {
		return nil, err
	}
	seenEdge := map[string]bool{}
	for _, e := range edges {
		if !tr.follows(e, in) || seenEdge[e.Key()] || tr.visit[e.Source] == nil || tr.visit[e.Target] == nil {
			continue
		}
		seenEdge[e.Key()] = true
		tr.sub.Edges = append(tr.sub.Edges, e)
		if tr.isStale(e) {
			tr.stale++
		}
	}
	if in.Stale == StaleRank {
		sort.SliceStable(tr.sub.Edges, func(i, j int) bool { return !tr.isStale(tr.sub.Edges[i]) && tr.isStale(tr.sub.Edges[j]) })
	}
	tr.assume(in)
	return tr, nil
}

// expand is one BFS step: the nodes the frontier's edges reach, each by
// its best way in (stale edges, when ranked, after the fresh ones), as
// many as max_nodes leaves room for. It returns the next frontier.
func (tr *traversal) expand(ctx context.Context, st Store, frontier []string, depth int, in QueryInput) ([]string, error) {
	edges, err := tr.incident(ctx, st, frontier, in)
	if err != nil {
		return nil, err
	}
	inFrontier := map[string]bool{}
	for _, f := range frontier {
		inFrontier[f] = true
	}
	// Each new node keeps its best way in: the highest path confidence
	// (product along the path), then the edge order of the store.
	type cand struct {
		id   string
		edge *Edge
		from string
		conf float64
	}
	best := map[string]*cand{}
	var cands []*cand
	for _, e := range edges {
		for _, dir := range [2][2]string{{e.Source, e.Target}, {e.Target, e.Source}} {
			from, to := dir[0], dir[1]
			if !inFrontier[from] || tr.visit[to] != nil {
				continue
			}
			conf := tr.visit[from].conf * e.Confidence
			if c, ok := best[to]; ok {
				if conf > c.conf {
					c.edge, c.from, c.conf = e, from, conf
				}
				continue
			}
			c := &cand{to, e, from, conf}
			best[to] = c
			cands = append(cands, c)
		}
	}
	// Stale edges (ranked) lead in after the fresh ones.
	sort.SliceStable(cands, func(i, j int) bool {
		if si, sj := tr.ranksDown(cands[i].edge, in), tr.ranksDown(cands[j].edge, in); si != sj {
			return sj
		}
		if cands[i].conf != cands[j].conf {
			return cands[i].conf > cands[j].conf
		}
		return cands[i].id < cands[j].id
	})
	var next []string
	for _, c := range cands {
		if len(tr.order) >= in.MaxNodes {
			break
		}
		tr.visit[c.id] = &visit{depth: depth, conf: c.conf, parent: c.edge, from: c.from}
		tr.order = append(tr.order, c.id)
		next = append(next, c.id)
	}
	return next, nil
}

// asOf sets the transaction time the traversal answers at.
func (tr *traversal) asOf(in *QueryInput, now time.Time) error {
	if in.AsOf == "" {
		return nil
	}
	if in.at >= Micros(now) {
		tr.assumptions = append(tr.assumptions, fmt.Sprintf("as_of %s is in the future: answered as the store knows now", in.AsOf))
		return nil
	}
	tr.at = in.at
	tr.assumptions = append(tr.assumptions, "answered as the store knew at "+FromMicros(tr.at)+" (transaction time): edges recorded later left out, edges retired since put back")
	return nil
}

// assume adds what the answer assumed about stale edges and empty as-of
// answers.
func (tr *traversal) assume(in QueryInput) {
	if tr.at != 0 && len(tr.order) == 0 {
		tr.assumptions = append(tr.assumptions, "the store held nothing that matches by "+FromMicros(tr.at))
	}
	if tr.stale == 0 {
		return
	}
	switch in.Stale {
	case StaleRank:
		tr.assumptions = append(tr.assumptions, fmt.Sprintf("%d edge(s) are stale: their evidence changed in the source since ingest (retrieve graph verify shows the diff); they are ranked below the fresh edges — stale: exclude leaves them out", tr.stale))
	case StaleInclude:
		tr.assumptions = append(tr.assumptions, fmt.Sprintf("%d edge(s) are stale (their evidence changed in the source) and included like fresh ones", tr.stale))
	}
}

// isStale reports whether e's evidence was found changed by the time the
// traversal answers at.
func (tr *traversal) isStale(e *Edge) bool {
	return e.StaleAt != 0 && (tr.at == 0 || e.StaleAt <= tr.at)
}

// ranksDown reports whether e comes after the fresh edges.
func (tr *traversal) ranksDown(e *Edge, in QueryInput) bool {
	return in.Stale == StaleRank && tr.isStale(e)
}

// follows reports whether the traversal follows e: verified (unless
// asked), and not stale when stale edges are excluded.
func (tr *traversal) follows(e *Edge, in QueryInput) bool {
	if e.Unverified && !in.IncludeUnverified {
		return false
	}
	return in.Stale != StaleExclude || !tr.isStale(e)
}

// seedsAt keeps the seeds the store held at at (all when at is 0).
func (t *Tools) seedsAt(ctx context.Context, seeds []string, at int64) ([]string, error) {
	if at == 0 || len(seeds) == 0 {
		return seeds, nil
	}
	nodes, err := t.Store.GraphNodes(ctx, seeds)
	if err != nil {
		return nil, err
	}
	kept := seeds[:0]
	for _, id := range seeds {
		if n := nodes[id]; n != nil && n.RecordedAt <= at {
			kept = append(kept, id)
		}
	}
	return kept, nil
}

// EvidenceOutput is query_with_evidence of upstream plus paths with a
// citation on every hop.
type EvidenceOutput struct {
	Query               string       `json:"query"`
	Subgraph            *Subgraph    `json:"subgraph"`
	SupportingDocuments []SupportDoc `json:"supporting_documents"`
	EvidenceChain       string       `json:"evidence_chain"`
	Paths               []Path       `json:"paths"`
	Confidence          float64      `json:"confidence"`
	// Assumptions say what the answer assumed: the as-of time, stale
	// edges ranked down or included.
	Assumptions []string `json:"assumptions,omitempty"`
}

// SupportDoc is a document and the chunks of it the subgraph cites.
type SupportDoc struct {
	DocID            string         `json:"doc_id"`
	DocTitle         string         `json:"doc_title"`
	SupportingChunks []SupportChunk `json:"supporting_chunks"`
	Reference        string         `json:"reference,omitempty"`
	Hash             string         `json:"hash,omitempty"`
}

// SupportChunk is one cited chunk.
type SupportChunk struct {
	ChunkID string `json:"chunk_id"`
	Text    string `json:"text"`
}

// Path is one chain from a seed: its hops and the product of their
// confidences.
type Path struct {
	Chain      string  `json:"chain"`
	Hops       []Hop   `json:"hops"`
	Confidence float64 `json:"confidence"`
}

// Hop is one edge of a path with the text that proves it.
type Hop struct {
	From           string  `json:"from"`
	To             string  `json:"to"`
	Type           string  `json:"type"`
	Direction      string  `json:"direction"` // "forward" when the edge points from→to, else "backward"
	Confidence     float64 `json:"confidence"`
	SupportingText *string `json:"supporting_text"`
	Unverified     bool    `json:"unverified"`
	// Stale is set when the hop's evidence changed in its source (graph
	// verify).
	Stale bool `json:"stale,omitempty"`
	// Edge is the hop's edge: graph:edge/<id>, which retrieve get
	// re-retrieves with its evidence.
	Edge     string  `json:"edge"`
	Citation HopCite `json:"citation"`
}

// HopCite cites the chunk a hop's evidence is in: doc:<doc_id>#<chunk_id>
// (retrievable with retrieve get) and the document's own citation.
type HopCite struct {
	Reference         string `json:"reference"`
	DocumentReference string `json:"document_reference,omitempty"`
	DocumentHash      string `json:"document_hash,omitempty"`
	RetrievalID       string `json:"retrieval_id,omitempty"`
}

// DocReference is the citation reference of a chunk of a graph document.
func DocReference(docID, chunkID string) string {
	if docID == "" {
		return ""
	}
	if chunkID == "" {
		return "doc:" + docID
	}
	return "doc:" + docID + "#" + chunkID
}

// Evidence runs the query and returns the subgraph with the source text of
// every node and edge, the evidence chain, and the cited paths.
func (t *Tools) Evidence(ctx context.Context, in QueryInput) (*EvidenceOutput, error) {
	tr, err := t.traverse(ctx, in)
	if err != nil {
		return nil, err
	}
	return t.evidence(ctx, in.Query, tr)
}

// evidence is the evidence output of a traversal.
// docChunks are the chunks of one document a result points to, in order.
type docChunks struct {
	ids  []string
	seen map[string]bool
}

// provenance is where the subgraph's facts come from, in upstream order:
// the nodes' documents and chunks (in traversal order), then the edges'.
func (tr *traversal) provenance() (docOrder []string, byDoc map[string]*docChunks) {
	byDoc = map[string]*docChunks{}
	addRef := func(doc, chunk string) {
		if doc == "" {
			return
		}
		d, ok := byDoc[doc]
		if !ok {
			d = &docChunks{seen: map[string]bool{}}
			byDoc[doc] = d
			docOrder = append(docOrder, doc)
		}
		if chunk != "" && !d.seen[chunk] {
			d.seen[chunk] = true
			d.ids = append(d.ids, chunk)
		}
	}
	for _, id := range tr.order {
		if n := tr.sub.Nodes[id]; n != nil {
			for _, c := range n.SourceChunks {
				addRef(string(n.SourceDocument), c)
			}
			if len(n.SourceChunks) == 0 {
				addRef(string(n.SourceDocument), "")
			}
		}
	}
	for _, e := range tr.sub.Edges {
		addRef(string(e.SourceDocument), string(e.ChunkID))
	}
	return docOrder, byDoc
}

func (t *Tools) evidence(ctx context.Context, query string, tr *traversal) (*EvidenceOutput, error) {
	out := &EvidenceOutput{Query: query, Subgraph: tr.sub, SupportingDocuments: []SupportDoc{}, Paths: []Path{}, Assumptions: tr.assumptions}
	if len(tr.sub.Nodes) == 0 {
		out.EvidenceChain = NoMatchingNodes
		return out, nil
	}
	docOrder, byDoc := tr.provenance()
	var chunkIDs []string
	for _, d := range docOrder {
		chunkIDs = append(chunkIDs, byDoc[d].ids...)
	}
	chunks, err := t.Store.GraphChunks(ctx, chunkIDs)
	if err != nil {
		return nil, err
	}
	docs, err := t.Store.GraphDocumentInfo(ctx, docOrder)
	if err != nil {
		return nil, err
	}
	if err := t.chunksAt(ctx, tr.at, docs, chunks); err != nil {
		return nil, err
	}
	for _, d := range docOrder {
		doc, ok := docs[d]
		if !ok {
			continue
		}
		sd := SupportDoc{DocID: d, DocTitle: doc.Title, Reference: doc.Reference, Hash: doc.Hash}
		for _, c := range byDoc[d].ids {
			if ch, ok := chunks[c]; ok {
				sd.SupportingChunks = append(sd.SupportingChunks, SupportChunk{ChunkID: c, Text: ch.Text})
			}
		}
		if len(sd.SupportingChunks) > 0 {
			out.SupportingDocuments = append(out.SupportingDocuments, sd)
		}
	}
	name := tr.name
	out.EvidenceChain = tr.chain(tr.sub.Edges)
	full := map[string]*Edge{}
	for _, e := range tr.sub.Edges {
		full[e.Key()] = e
	}
	hop := func(from, to string, e *Edge) Hop {
		if f, ok := full[e.Key()]; ok {
			e = f
		}
		h := Hop{From: name(from), To: name(to), Type: e.Type, Direction: "forward", Confidence: e.Confidence, Unverified: e.Unverified, Stale: tr.isStale(e), Edge: EdgeReference(e)}
		if e.Source != from {
			h.Direction = "backward"
		}
		if e.SupportingText != "" {
			s := string(e.SupportingText)
			h.SupportingText = &s
		}
		h.Citation.Reference = DocReference(string(e.SourceDocument), string(e.ChunkID))
		if d := docs[string(e.SourceDocument)]; d != nil {
			h.Citation.DocumentReference, h.Citation.DocumentHash, h.Citation.RetrievalID = d.Reference, d.Hash, d.RetrievalID
		}
		return h
	}
	// A path per non-seed node along the edges BFS reached it by, and one
	// per edge between two seeds.
	for _, id := range tr.order {
		v := tr.visit[id]
		if v.depth == 0 {
			continue
		}
		var hops []Hop
		for cur := id; tr.visit[cur].depth > 0; cur = tr.visit[cur].from {
			cv := tr.visit[cur]
			hops = append([]Hop{hop(cv.from, cur, cv.parent)}, hops...)
		}
		out.Paths = append(out.Paths, newPath(hops))
	}
	for _, e := range tr.sub.Edges {
		if tr.visit[e.Source].depth == 0 && tr.visit[e.Target].depth == 0 {
			out.Paths = append(out.Paths, newPath([]Hop{hop(e.Source, e.Target, e)}))
		}
	}
	sort.SliceStable(out.Paths, func(i, j int) bool {
		if out.Paths[i].Confidence != out.Paths[j].Confidence {
			return out.Paths[i].Confidence > out.Paths[j].Confidence
		}
		return out.Paths[i].Chain < out.Paths[j].Chain
	})
	if len(out.Paths) > 0 {
		out.Confidence = out.Paths[0].Confidence
	}
	return out, nil
}

// chunksAt puts in chunks, for an as-of answer, the chunks of each
// document as its version live then had them (ChunkText of that text):
// a document changed since has other chunks today.
func (t *Tools) chunksAt(ctx context.Context, at int64, docs map[string]*Document, chunks map[string]ChunkRef) error {
	if at == 0 {
		return nil
	}
	for id, d := range docs {
		if d.RecordedAt <= at && d.ForgottenAt == 0 {
			continue
		}
		text, err := t.Store.GraphDocumentTextAt(ctx, id, at)
		if err != nil {
			return err
		}
		for _, c := range ChunkText(id, text) {
			if _, ok := chunks[c.ChunkID]; ok || strings.HasPrefix(c.ChunkID, id+"_chunk_") {
				chunks[c.ChunkID] = ChunkRef{DocID: id, Chunk: c}
			}
		}
	}
	return nil
}

// name is the name of a node of the traversal, its id when it has none.
func (tr *traversal) name(id string) string {
	if n := tr.sub.Nodes[id]; n != nil {
		return n.Name
	}
	return id
}

// chain is the evidence chain of edges: "a --[type]--> b | …", NoEdges
// when there are none.
func (tr *traversal) chain(edges []*Edge) string {
	if len(edges) == 0 {
		return NoEdges
	}
	parts := make([]string, len(edges))
	for i, e := range edges {
		parts[i] = fmt.Sprintf("%s --[%s]--> %s", tr.name(e.Source), e.Type, tr.name(e.Target))
	}
	return strings.Join(parts, " | ")
}

func newPath(hops []Hop) Path {
	p := Path{Hops: hops, Confidence: 1}
	var b strings.Builder
	for i, h := range hops {
		if i == 0 {
			b.WriteString(h.From)
		}
		if h.Direction == "forward" {
			fmt.Fprintf(&b, " --[%s]--> %s", h.Type, h.To)
		} else {
			fmt.Fprintf(&b, " <--[%s]-- %s", h.Type, h.To)
		}
		p.Confidence *= h.Confidence
	}
	p.Confidence = math.Round(p.Confidence*1e6) / 1e6
	p.Chain = b.String()
	return p
}

// incident returns the traversable edges touching ids.
func (tr *traversal) incident(ctx context.Context, st Store, ids []string, in QueryInput) ([]*Edge, error) {
	var edges []*Edge
	var err error
	if tr.at != 0 {
		edges, err = st.IncidentEdgesAt(ctx, ids, in.MinConfidence, tr.at)
	} else {
		edges, err = st.IncidentEdges(ctx, ids, in.MinConfidence)
	}
	if err != nil {
		return nil, err
	}
	out := edges[:0]
	for _, e := range edges {
		if tr.follows(e, in) {
			out = append(out, e)
		}
	}
	return out, nil
}
