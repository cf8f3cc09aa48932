-- Issue 31.5: impact lists, top k without scoring every match
-- (docs/memory.md "Top k without scoring every match"; memoryimpact.go).
-- Per memory folder and frequent term, the notes whose ts_rank_cd for the
-- term comes before the bound (theta, theta_path) in the search's order
-- (rank, then path). A list is built the first time its term is searched,
-- so the existing rows stay.
CREATE TABLE memory_impact_terms (
	dir text NOT NULL,
	term text NOT NULL,
	theta real NOT NULL,
	theta_path text NOT NULL,
	PRIMARY KEY (dir, term)
);
CREATE TABLE memory_impacts (
	dir text NOT NULL,
	term text NOT NULL,
	impact real NOT NULL,
	path text NOT NULL
);
CREATE UNIQUE INDEX memory_impacts_order ON memory_impacts (dir, term, impact DESC, path);
CREATE INDEX memory_impacts_path ON memory_impacts (dir, path);
