-- The memory index: one precomputed overview row per note and its text,
-- searched through a generated tsvector (title weight A, tags B, body D)
-- with a GIN index. The 'simple' configuration lowercases and does not stem,
-- like the unicode61 tokenizer of the SQLite store.
CREATE TABLE memory_notes (
	dir text NOT NULL,
	path text NOT NULL,
	tier text NOT NULL,
	note_id text NOT NULL,
	title text NOT NULL,
	tags text NOT NULL, -- a JSON array
	tags_text text NOT NULL, -- the tags joined by spaces, for the search
	body text NOT NULL,
	size bigint NOT NULL,
	mtime_ns bigint NOT NULL,
	hash text NOT NULL,
	warning text NOT NULL,
	indexed_ns bigint NOT NULL,
	tsv tsvector GENERATED ALWAYS AS (
		setweight(to_tsvector('simple'::regconfig, title), 'A') ||
		setweight(to_tsvector('simple'::regconfig, tags_text), 'B') ||
		setweight(to_tsvector('simple'::regconfig, body), 'D')) STORED,
	PRIMARY KEY (dir, path)
);
CREATE INDEX memory_notes_tsv ON memory_notes USING gin (tsv);
