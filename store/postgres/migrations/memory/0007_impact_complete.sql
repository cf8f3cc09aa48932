-- Issue 31.5: complete lists, and queries of any of several words from
-- them (docs/memory.md "Top k without scoring every match";
-- memoryimpact.go). longer says whether a lexeme longer than the list's
-- term, starting with it, may be indexed in the folder (a prefix search
-- must rank those notes too): found at the list's build, set by the writes
-- that index one, cleared only by a build. Lists made before keep true
-- (unknown).
ALTER TABLE memory_impact_terms ADD COLUMN longer boolean NOT NULL DEFAULT true;
-- A complete list read whole (a query of several words) is cached as one
-- row of arrays: summed in the client from five rows instead of an
-- aggregate over tens of thousands. The rows of memory_impacts stay the
-- truth: every write that changes a term's rows deletes its cache row in
-- the same statement, and the next search writes it again from the rows.
CREATE TABLE memory_impact_postings (
	dir text NOT NULL,
	term text NOT NULL,
	paths text[] NOT NULL,
	impacts real[] NOT NULL,
	PRIMARY KEY (dir, term)
);
