-- Every document's evidence of an edge (docs/graph.md, "Evidence"): one
-- row per (edge, document); the edge's row keeps its primary evidence.
-- Existing edges get the one evidence they hold.
CREATE TABLE graph_edge_evidence (
	source text NOT NULL,
	target text NOT NULL,
	type text NOT NULL,
	doc_id text NOT NULL,
	chunk_id text NOT NULL,
	supporting_text text NOT NULL,
	confidence double precision NOT NULL,
	unverified boolean NOT NULL,
	recorded_at bigint NOT NULL,
	stale_at bigint NOT NULL DEFAULT 0,
	stale_diff text NOT NULL DEFAULT '',
	PRIMARY KEY (source, target, type, doc_id)
);
CREATE INDEX graph_edge_evidence_doc ON graph_edge_evidence (doc_id, source, target, type);
INSERT INTO graph_edge_evidence (source, target, type, doc_id, chunk_id, supporting_text, confidence, unverified, recorded_at, stale_at, stale_diff)
	SELECT source, target, type, source_document, chunk_id, supporting_text, confidence, unverified, recorded_at, stale_at, stale_diff FROM graph_edges;
