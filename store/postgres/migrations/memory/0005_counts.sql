-- The notes' counts per folder — all, by tier, by tag (a note counts once
-- per distinct tag) — so that an overview (graph_summary) reads a few rows
-- instead of every note's row (docs/memory.md, "Counts"). Statement
-- triggers append what each write changed (one row per kind and key and
-- statement: a COPY of a thousand notes adds a few dozen) to
-- memory_counts: rows are only inserted, never updated, so concurrent
-- writers never wait on a shared count row nor deadlock on one; a reader
-- sums them and folds them into one row per key now and then
-- (MemoryCounts). Existing notes are counted once here.
CREATE TABLE memory_counts (
	dir text NOT NULL,
	kind text NOT NULL,
	key text NOT NULL,
	n bigint NOT NULL
);
CREATE INDEX memory_counts_dir ON memory_counts (dir);
CREATE FUNCTION memory_counts_rows(sign integer, dir text, tier text, tags text) RETURNS TABLE (dir text, kind text, key text, n bigint)
LANGUAGE sql IMMUTABLE AS $$
	SELECT dir, 'notes', '', sign::bigint UNION ALL SELECT dir, 'tier', tier, sign
	UNION ALL SELECT DISTINCT dir, 'tag', t, sign FROM jsonb_array_elements_text(tags::jsonb) t
$$;
CREATE FUNCTION memory_counts_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP IN ('UPDATE', 'DELETE') THEN
		INSERT INTO memory_counts (dir, kind, key, n) SELECT c.dir, c.kind, c.key, sum(c.n) FROM old_rows o,
			LATERAL memory_counts_rows(-1, o.dir, o.tier, o.tags) c GROUP BY c.dir, c.kind, c.key HAVING sum(c.n) <> 0;
	END IF;
	IF TG_OP IN ('UPDATE', 'INSERT') THEN
		INSERT INTO memory_counts (dir, kind, key, n) SELECT c.dir, c.kind, c.key, sum(c.n) FROM new_rows o,
			LATERAL memory_counts_rows(1, o.dir, o.tier, o.tags) c GROUP BY c.dir, c.kind, c.key HAVING sum(c.n) <> 0;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER memory_notes_counts_ins AFTER INSERT ON memory_notes REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION memory_counts_track();
CREATE TRIGGER memory_notes_counts_upd AFTER UPDATE ON memory_notes REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION memory_counts_track();
CREATE TRIGGER memory_notes_counts_del AFTER DELETE ON memory_notes REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION memory_counts_track();
INSERT INTO memory_counts (dir, kind, key, n) SELECT c.dir, c.kind, c.key, sum(c.n) FROM memory_notes o,
	LATERAL memory_counts_rows(1, o.dir, o.tier, o.tags) c GROUP BY c.dir, c.kind, c.key;
