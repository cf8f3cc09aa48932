-- The notes' earlier texts (docs/memory.md, "Text history"): a write of the
-- index that replaces a note's row with another text (another file hash),
-- or deletes it, first copies the row here, in its transaction. A reindex
-- (a reset) keeps them.
CREATE TABLE memory_versions (
	dir text NOT NULL,
	path text NOT NULL,
	note_id text NOT NULL,
	hash text NOT NULL,
	title text NOT NULL,
	body text NOT NULL,
	from_ns bigint NOT NULL,
	to_ns bigint NOT NULL,
	PRIMARY KEY (dir, path, to_ns)
);
