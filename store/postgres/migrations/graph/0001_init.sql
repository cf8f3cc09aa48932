-- The knowledge graph and the wiki index. Full-text search goes through
-- generated tsvector columns with GIN indexes; the 'english' configuration
-- stems (as the porter tokenizer of the SQLite store does).
CREATE TABLE graph_documents (
	id text PRIMARY KEY,
	title text NOT NULL,
	source text NOT NULL,
	content text NOT NULL,
	ingestion_date text NOT NULL,
	reference text NOT NULL,
	hash text NOT NULL,
	retrieval_id text NOT NULL
);
CREATE TABLE graph_chunks (
	chunk_id text PRIMARY KEY,
	doc_id text NOT NULL REFERENCES graph_documents (id) ON DELETE CASCADE,
	idx integer NOT NULL,
	text text NOT NULL,
	tsv tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, text)) STORED
);
CREATE INDEX graph_chunks_doc ON graph_chunks (doc_id, idx);
CREATE INDEX graph_chunks_tsv ON graph_chunks USING gin (tsv);
CREATE TABLE graph_nodes (
	id text PRIMARY KEY,
	name text NOT NULL UNIQUE,
	type text NOT NULL,
	source_document text NOT NULL,
	tsv tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, name)) STORED
);
CREATE INDEX graph_nodes_tsv ON graph_nodes USING gin (tsv);
CREATE TABLE graph_node_chunks (
	node_id text NOT NULL REFERENCES graph_nodes (id) ON DELETE CASCADE,
	chunk_id text NOT NULL,
	PRIMARY KEY (node_id, chunk_id)
);
CREATE INDEX graph_node_chunks_chunk ON graph_node_chunks (chunk_id);
CREATE TABLE graph_keywords (
	token text NOT NULL,
	node_id text NOT NULL REFERENCES graph_nodes (id) ON DELETE CASCADE,
	PRIMARY KEY (token, node_id)
);
CREATE TABLE graph_edges (
	source text NOT NULL REFERENCES graph_nodes (id),
	target text NOT NULL REFERENCES graph_nodes (id),
	type text NOT NULL,
	confidence double precision NOT NULL,
	source_document text NOT NULL,
	supporting_text text NOT NULL,
	chunk_id text NOT NULL,
	unverified boolean NOT NULL,
	PRIMARY KEY (source, target, type)
);
CREATE INDEX graph_edges_target ON graph_edges (target, confidence) INCLUDE (source, type, unverified);
CREATE INDEX graph_edges_source ON graph_edges (source, confidence) INCLUDE (target, type, unverified);
CREATE TABLE graph_ontology (
	kind text NOT NULL,
	type text NOT NULL,
	count bigint NOT NULL,
	PRIMARY KEY (kind, type)
);
-- The wiki index: title and slug weigh A, the body D.
CREATE TABLE wiki_pages (
	category text NOT NULL,
	slug text NOT NULL,
	title text NOT NULL,
	summary text NOT NULL,
	body text NOT NULL,
	hash text NOT NULL,
	size bigint NOT NULL,
	mtime bigint NOT NULL,
	tsv tsvector GENERATED ALWAYS AS (
		setweight(to_tsvector('english'::regconfig, title || ' ' || slug), 'A') ||
		setweight(to_tsvector('english'::regconfig, body), 'D')) STORED,
	PRIMARY KEY (category, slug)
);
CREATE INDEX wiki_pages_tsv ON wiki_pages USING gin (tsv);
