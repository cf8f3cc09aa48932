-- Issue 30: notes carry their evidence and time. The evidence of each note
-- (its retrieve: frontmatter block) is indexed by source, retrieval id and
-- session; marks (stale with the diff, fresh, outdated, forgotten) are
-- events that no reindex touches; recorded_ns is when the note was written
-- (its created), the start of its transaction time. The rows are dropped
-- so that the next query re-indexes every note with its evidence.
DELETE FROM memory_notes;
ALTER TABLE memory_notes ADD COLUMN recorded_ns bigint NOT NULL DEFAULT 0;
CREATE TABLE memory_evidence (
	dir text NOT NULL,
	path text NOT NULL,
	ord integer NOT NULL,
	note_id text NOT NULL,
	session text NOT NULL,
	source_key text NOT NULL,
	retrieval_id text NOT NULL,
	evidence text NOT NULL,
	PRIMARY KEY (dir, path, ord)
);
CREATE INDEX memory_evidence_source ON memory_evidence (dir, source_key);
CREATE INDEX memory_evidence_retrieval ON memory_evidence (dir, retrieval_id);
CREATE INDEX memory_evidence_session ON memory_evidence (dir, session);
CREATE TABLE memory_marks (
	id bigserial PRIMARY KEY,
	dir text NOT NULL,
	path text NOT NULL,
	note_id text NOT NULL,
	kind text NOT NULL,
	at_ns bigint NOT NULL,
	by_who text NOT NULL,
	reference text NOT NULL,
	reason text NOT NULL,
	detail text NOT NULL
);
CREATE INDEX memory_marks_path ON memory_marks (dir, path, at_ns);
