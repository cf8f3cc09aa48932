-- Issue 31.5: a query of any of several words merges the complete lists'
-- cached entries in the client. Paths made that slow (text arrays decoded
-- string by string, compared character by character): each note gets a
-- number of its own (nid, never reused while the row lives; a note deleted
-- and written again gets a new one), and a list's cache holds the notes'
-- numbers in order and their ranks, each as one bytea (int8send and
-- float4send of every entry, concatenated): read with one copy, merged by
-- integer. The rows of memory_impacts stay the truth; the cache of the
-- old form is dropped and written again by the next search.
ALTER TABLE memory_notes ADD COLUMN nid bigint GENERATED ALWAYS AS IDENTITY;
CREATE UNIQUE INDEX memory_notes_nid ON memory_notes (nid);
DROP TABLE memory_impact_postings;
CREATE TABLE memory_impact_postings (
	dir text NOT NULL,
	term text NOT NULL,
	nids bytea NOT NULL,
	impacts bytea NOT NULL,
	PRIMARY KEY (dir, term)
);
