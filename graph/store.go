package graph

import "context"

// Batch is one atomic write: a document with its chunks, the nodes and
// edges taken from it, and the ontology counts to add.
type Batch struct {
	// Document is written unless a document with its id exists already
	// (then it is kept as it is: ingestion is idempotent).
	Document *Document
	// Nodes are upserted by id: a new node is inserted; an existing one
	// gains the source chunks it lacked and keeps its source document.
	Nodes []*Node
	// Edges are upserted by (source, target, type): the higher confidence
	// wins and brings its evidence with it.
	Edges []*Edge
	// Ontology counts are added to the stored ones for the types of nodes
	// and edges that are new in this batch.
	CountNewTypes bool
	// SetOntology, when set, raises the stored counts to at least these
	// values (import).
	SetOntology *Ontology
	// Now is the transaction time of the batch (unix microseconds): what
	// it adds is recorded then, what it replaces retired then.
	Now int64
}

// Applied says what a batch changed.
type Applied struct {
	DocumentAdded bool
	NodesAdded    int
	EdgesAdded    int
	// Version is the document's version after the batch: 1 for a new
	// document, one more when its text changed (then EdgesRetired counts
	// the edges of the old version that the new one does not state, or
	// states with other evidence).
	Version      int
	EdgesRetired int
}

// ChunkRef is a chunk with the document it belongs to.
type ChunkRef struct {
	DocID string
	Chunk
}

// Store holds the graph. Implementations are safe for concurrent use by
// many goroutines and processes, and return every list in a deterministic
// order (documented per method).
type Store interface {
	// ApplyGraph writes a batch in one transaction. A document whose id
	// is stored with the same text is kept as it is; with another text it
	// becomes a new version: the old one is kept in the history, its chunks
	// are replaced, and the live edges whose evidence came from it are
	// retired (RetiredSuperseded) unless the batch states them again with
	// the same evidence. An edge that a batch states with a higher
	// confidence (or, for the document it replaces, other evidence) is
	// rewritten and its previous version retired.
	ApplyGraph(ctx context.Context, b *Batch) (*Applied, error)
	// GraphDocument returns a document with its chunks (ordered by index),
	// or an error with code NOT_FOUND.
	GraphDocument(ctx context.Context, id string) (*Document, error)
	// GraphChunks returns the chunks with the given ids that exist.
	GraphChunks(ctx context.Context, ids []string) (map[string]ChunkRef, error)
	// GraphNodes returns the nodes with the given ids that exist, with
	// their source chunks sorted.
	GraphNodes(ctx context.Context, ids []string) (map[string]*Node, error)
	// NodeIDsByName maps normalised names to the ids of existing nodes.
	NodeIDsByName(ctx context.Context, names []string) (map[string]string, error)
	// NodesByKeyword returns the ids of nodes whose name has one of the
	// tokens, most tokens matched first, then by id, at most limit.
	NodesByKeyword(ctx context.Context, tokens []string, limit int) ([]string, error)
	// SearchNodeNames is full-text search over node names (stemmed): ids,
	// best first, at most limit.
	SearchNodeNames(ctx context.Context, tokens []string, limit int) ([]string, error)
	// SearchChunkNodes is full-text search over chunk text: the ids of the
	// nodes whose source chunks match, best first, at most limit.
	SearchChunkNodes(ctx context.Context, tokens []string, limit int) ([]string, error)
	// IncidentEdges returns the edges touching any of ids with confidence
	// at least minConfidence, ordered by confidence descending, then
	// source, target, type. Only the traversal fields (source, target,
	// type, confidence, unverified) need be set.
	IncidentEdges(ctx context.Context, ids []string, minConfidence float64) ([]*Edge, error)
	// EdgesAmong returns the whole edges (with their evidence) with both
	// endpoints in ids and confidence at least minConfidence, in
	// IncidentEdges order.
	EdgesAmong(ctx context.Context, ids []string, minConfidence float64) ([]*Edge, error)
	// IncidentEdgesAt and EdgesAmongAt are IncidentEdges and EdgesAmong
	// as the store knew them at the transaction time at (unix
	// microseconds): the live edges recorded by then and the retired
	// versions that held then (never the forgotten ones).
	IncidentEdgesAt(ctx context.Context, ids []string, minConfidence float64, at int64) ([]*Edge, error)
	EdgesAmongAt(ctx context.Context, ids []string, minConfidence float64, at int64) ([]*Edge, error)
	// ForgetEdges removes docID's evidence from at most limit live edges
	// in one transaction, and returns how many; 0 when none is left. An
	// edge whose primary evidence came from docID has that version moved
	// to the retired versions as RetiredForgotten, its supporting text
	// erased; it stays live, with the best evidence left, when another
	// document supports it, and is gone otherwise.
	ForgetEdges(ctx context.Context, docID string, now int64, limit int) (int, error)
	// ForgetDocument finishes forgetting docID in one transaction: its
	// remaining live edges as ForgetEdges, the text of its retired edge
	// versions and old versions erased, the nodes only it supported
	// retired (indexes dropped), its chunks deleted and the document
	// tombstoned (title and text erased, forgotten_at set). A node that
	// a concurrent writer links again is not retired.
	ForgetDocument(ctx context.Context, docID string, now int64) (*ForgetCounts, error)
	// ForgetPreview counts what forgetting docID would tombstone, and
	// lists at most limit of its edges.
	ForgetPreview(ctx context.Context, docID string, limit int) (*ForgetCounts, []*Edge, error)
	// GraphDocumentTextAt returns the text of document id's version that
	// was live at at (its old versions are kept): "" when none was (or
	// it was forgotten).
	GraphDocumentTextAt(ctx context.Context, id string, at int64) (string, error)
	// GraphSummaryCounts counts the live graph and what it retired.
	GraphSummaryCounts(ctx context.Context) (*SummaryCounts, error)
	// GraphTypeCounts counts the live nodes (kind "entity") or edges
	// ("relation") by type, most first (then by type), at most limit, and
	// how many types there are.
	GraphTypeCounts(ctx context.Context, kind string, limit int) ([]TypeCount, int, error)
	// GraphHubs returns the live nodes with the most live edges (either
	// end), most first (then by id), at most limit, with their degree.
	GraphHubs(ctx context.Context, limit int) ([]TypeCount, error)
	// GraphRecentlyStale returns the stale live edges, most recently
	// found stale first (then by key), at most limit.
	GraphRecentlyStale(ctx context.Context, limit int) ([]*Edge, error)
	// GraphDocumentIDs lists the ids of the documents that are not
	// forgotten, in order.
	GraphDocumentIDs(ctx context.Context) ([]string, error)
	// DocumentEdges returns the live edges the document id supports, each
	// with the evidence that document gives it (SourceDocument id, its
	// supporting text, chunk, confidence, RecordedAt and stale mark: an
	// edge several documents support has one evidence per document), in
	// (source, target, type) order.
	DocumentEdges(ctx context.Context, docID string) ([]*Edge, error)
	// EdgeEvidence returns the evidence of the live edge (source, target,
	// type), one per supporting document, as DocumentEdges gives it: the
	// primary evidence (the edge's own) first, then by confidence and
	// document. Empty for an unknown edge.
	EdgeEvidence(ctx context.Context, source, target, typ string) ([]*Edge, error)
	// MarkStale records what graph verify found for each mark's evidence
	// (the edge's evidence from mark.Doc): stale since StaleAt with Diff,
	// or fresh (StaleAt 0). A mark applies only while that evidence has
	// the version verify read (its RecordedAt), so a concurrent re-ingest
	// is never marked with an old diff. The edge is stale when all its
	// evidence is. It returns how many evidence marks it changed.
	MarkStale(ctx context.Context, marks []StaleMark) (int, error)
	// GraphDocumentInfo returns the documents with the given ids that
	// exist, without their content and chunks.
	GraphDocumentInfo(ctx context.Context, ids []string) (map[string]*Document, error)
	// GraphOntology returns the type counts.
	GraphOntology(ctx context.Context) (*Ontology, error)
	// GraphStats counts documents, chunks, nodes and edges.
	GraphStats(ctx context.Context) (*Stats, error)
	// EachDocument, EachNode and EachEdge walk everything in id order
	// (edges by source, target, type), for export.
	EachDocument(ctx context.Context, fn func(*Document) error) error
	EachNode(ctx context.Context, fn func(*Node) error) error
	EachEdge(ctx context.Context, fn func(*Edge) error) error
}

// SummaryCounts are the sizes of a graph for its summary.
type SummaryCounts struct {
	Documents          int `json:"documents"`
	ForgottenDocuments int `json:"forgotten_documents"`
	Chunks             int `json:"chunks"`
	Entities           int `json:"entities"`
	Edges              int `json:"edges"`
	RetiredEdges       int `json:"retired_edges"`
	StaleEdges         int `json:"stale_edges"`
}

// TypeCount is a type (or, for GraphHubs, a node id) and its count.
type TypeCount struct {
	Type  string `json:"type"`
	Count int    `json:"count"`
}

// ForgetCounts count what forgetting a document tombstones.
type ForgetCounts struct {
	// Edges counts the edges the document supports; EdgesKept those of
	// them another document supports too, which lose only this
	// document's evidence and stay.
	Edges           int `json:"edges"`
	EdgesKept       int `json:"edges_kept,omitempty"`
	RetiredVersions int `json:"retired_versions"`
	Nodes           int `json:"nodes"`
	Chunks          int `json:"chunks"`
	Versions        int `json:"versions"`
}

// StaleMark is one edge's verify outcome (Store.MarkStale).
type StaleMark struct {
	Source, Target, Type string
	// Doc is the document whose evidence of the edge verify checked.
	Doc string
	// RecordedAt is the version of that evidence verify read.
	RecordedAt int64
	// StaleAt is when its evidence was found changed (0: fresh again).
	StaleAt int64
	Diff    string
}

// Stats are the sizes of a graph.
type Stats struct {
	Documents int `json:"documents"`
	Chunks    int `json:"chunks"`
	Nodes     int `json:"nodes"`
	Edges     int `json:"edges"`
}
