-- Time (docs/graph.md, "Time"). Transaction times are unix microseconds;
-- what the store held before is dated by its document's ingestion date (a
-- Go step parses it; 0 when it does not parse). Retired edge versions and
-- old document texts move to their own tables, so the live tables and
-- their covering indexes serve today's queries as before.
ALTER TABLE graph_documents ADD COLUMN version integer NOT NULL DEFAULT 1;
ALTER TABLE graph_documents ADD COLUMN recorded_at bigint NOT NULL DEFAULT 0;
ALTER TABLE graph_documents ADD COLUMN forgotten_at bigint NOT NULL DEFAULT 0;
CREATE TABLE graph_document_versions (
	doc_id text NOT NULL,
	version integer NOT NULL,
	title text NOT NULL,
	source text NOT NULL,
	content text NOT NULL,
	ingestion_date text NOT NULL,
	reference text NOT NULL,
	hash text NOT NULL,
	retrieval_id text NOT NULL,
	recorded_at bigint NOT NULL,
	retired_at bigint NOT NULL,
	PRIMARY KEY (doc_id, version)
);
ALTER TABLE graph_nodes ADD COLUMN recorded_at bigint NOT NULL DEFAULT 0;
ALTER TABLE graph_nodes ADD COLUMN retired_at bigint NOT NULL DEFAULT 0;
ALTER TABLE graph_edges ADD COLUMN valid_from text NOT NULL DEFAULT '';
ALTER TABLE graph_edges ADD COLUMN valid_to text NOT NULL DEFAULT '';
ALTER TABLE graph_edges ADD COLUMN recorded_at bigint NOT NULL DEFAULT 0;
ALTER TABLE graph_edges ADD COLUMN stale_at bigint NOT NULL DEFAULT 0;
ALTER TABLE graph_edges ADD COLUMN stale_diff text NOT NULL DEFAULT '';
CREATE TABLE graph_edges_retired (
	source text NOT NULL,
	target text NOT NULL,
	type text NOT NULL,
	confidence double precision NOT NULL,
	source_document text NOT NULL,
	supporting_text text NOT NULL,
	chunk_id text NOT NULL,
	unverified boolean NOT NULL,
	valid_from text NOT NULL,
	valid_to text NOT NULL,
	recorded_at bigint NOT NULL,
	stale_at bigint NOT NULL,
	stale_diff text NOT NULL,
	retired_at bigint NOT NULL,
	reason text NOT NULL,
	PRIMARY KEY (source, target, type, retired_at)
);
CREATE INDEX graph_edges_retired_target ON graph_edges_retired (target, retired_at);
CREATE INDEX graph_edges_retired_doc ON graph_edges_retired (source_document);
CREATE INDEX graph_edges_retired_at ON graph_edges_retired (retired_at);
DROP INDEX graph_edges_target;
DROP INDEX graph_edges_source;
CREATE INDEX graph_edges_target ON graph_edges (target, confidence) INCLUDE (source, type, unverified, stale_at, recorded_at);
CREATE INDEX graph_edges_source ON graph_edges (source, confidence) INCLUDE (target, type, unverified, stale_at, recorded_at);
CREATE INDEX graph_edges_doc ON graph_edges (source_document);
CREATE INDEX graph_edges_stale ON graph_edges (stale_at) WHERE stale_at > 0;
CREATE INDEX graph_edges_type ON graph_edges (type);
CREATE INDEX graph_nodes_type ON graph_nodes (retired_at, type);
