-- The ledger of every retrieval and the content-addressed snapshots of the
-- bytes they were extracted from. Same columns as the SQLite store, so that
-- `retrieve store copy` moves a store either way without loss.
CREATE TABLE ledger (
	id text PRIMARY KEY,
	time timestamptz NOT NULL,
	time_ns integer NOT NULL DEFAULT 0, -- nanoseconds below the microsecond timestamptz keeps
	op text NOT NULL,
	target text NOT NULL,
	source text NOT NULL,
	reference text NOT NULL,
	hash text NOT NULL,
	source_hash text NOT NULL,
	snapshot text NOT NULL,
	status text NOT NULL,
	code text NOT NULL,
	duration_ns bigint NOT NULL,
	request bytea NOT NULL,
	result bytea NOT NULL
);
CREATE INDEX ledger_time ON ledger (time);
CREATE INDEX ledger_target ON ledger (target, time);
CREATE INDEX ledger_reference ON ledger (reference, time);
CREATE INDEX ledger_snapshot ON ledger (snapshot) WHERE snapshot <> '';
CREATE TABLE snapshots (
	hash text PRIMARY KEY,
	size bigint NOT NULL,
	stored_size bigint NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE snapshot_chunks (
	hash text NOT NULL REFERENCES snapshots (hash) ON DELETE CASCADE,
	seq integer NOT NULL,
	data bytea NOT NULL,
	PRIMARY KEY (hash, seq)
);
