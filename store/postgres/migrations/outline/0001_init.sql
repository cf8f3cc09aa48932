-- The outline cache (store.OutlineCache): the outline of a source file,
-- keyed by the sha256 of its bytes, its language and the parser's version.
CREATE TABLE outline_cache (
	key text PRIMARY KEY,
	data bytea NOT NULL,
	created timestamptz NOT NULL DEFAULT now()
);
