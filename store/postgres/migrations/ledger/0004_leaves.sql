-- The tamper-evident log (package ledger, docs/ledger.md): one leaf per
-- entry in append order, written in the same statement as the entry; a
-- tombstone marks an entry gc deleted. idx is the position, from 0. (A
-- store at version 3 has no such tables; one rolled back by hand gets its
-- leaves rebuilt.)
DROP TABLE IF EXISTS ledger_leaves, ledger_log;
CREATE TABLE ledger_leaves (
	idx bigint PRIMARY KEY,
	id text NOT NULL UNIQUE,
	hash bytea NOT NULL,
	tombstone boolean NOT NULL DEFAULT false
);
-- The next position, one row. Every append updates it in its own
-- transaction and holds its row lock until the commit, so that appends of
-- every replica take positions one after the other: no two entries at one
-- position, no gap (a rolled-back append gives its position back), and a
-- reader sees a prefix of the log. The leaves of the entries already
-- there are built after this file (buildLeaves in store/postgres/leaves.go),
-- in id (time) order, in the same transaction.
CREATE TABLE ledger_log (
	one boolean PRIMARY KEY DEFAULT true CHECK (one),
	next bigint NOT NULL
);
