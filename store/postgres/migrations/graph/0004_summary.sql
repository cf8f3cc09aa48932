-- The summary's aggregates (docs/graph.md, "Summary"), as SQLite's graph
-- schema 3 keeps them, so that graph summary reads a few rows whatever the
-- size: the sizes, live nodes and edges per type, live edges per node
-- (degree). Row triggers append each change to graph_agg_delta — rows are
-- only inserted, so concurrent writers (two serve replicas) never wait on
-- a shared count row nor deadlock over one; the summary folds the pending
-- rows into graph_agg (one row per kind and key) before it reads it.
CREATE TABLE graph_agg (
	kind text NOT NULL,
	key text NOT NULL,
	n bigint NOT NULL,
	PRIMARY KEY (kind, key)
);
CREATE INDEX graph_agg_top ON graph_agg (kind, n DESC, key);
CREATE TABLE graph_agg_delta (
	kind text NOT NULL,
	key text NOT NULL,
	n bigint NOT NULL
);
-- Whether anything is pending is read from this index: after a fold the
-- table holds dead rows until a vacuum, which a scan would read again.
CREATE INDEX graph_agg_delta_kind ON graph_agg_delta (kind);
CREATE FUNCTION graph_agg_edges() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	r graph_edges;
	s bigint;
BEGIN
	IF TG_OP = 'UPDATE' THEN
		INSERT INTO graph_agg_delta VALUES ('count', 'stale', CASE WHEN NEW.stale_at > 0 THEN 1 ELSE -1 END);
		RETURN NULL;
	END IF;
	IF TG_OP = 'INSERT' THEN r := NEW; s := 1; ELSE r := OLD; s := -1; END IF;
	INSERT INTO graph_agg_delta VALUES ('count', 'edges', s), ('relation', r.type, s), ('degree', r.source, s), ('degree', r.target, s);
	IF r.stale_at > 0 THEN
		INSERT INTO graph_agg_delta VALUES ('count', 'stale', s);
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER graph_edges_agg AFTER INSERT OR DELETE ON graph_edges FOR EACH ROW EXECUTE FUNCTION graph_agg_edges();
CREATE TRIGGER graph_edges_agg_stale AFTER UPDATE OF stale_at ON graph_edges FOR EACH ROW
	WHEN ((OLD.stale_at > 0) <> (NEW.stale_at > 0)) EXECUTE FUNCTION graph_agg_edges();
CREATE FUNCTION graph_agg_nodes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.retired_at = 0 THEN
		INSERT INTO graph_agg_delta VALUES ('count', 'entities', -1), ('entity', OLD.type, -1);
	END IF;
	IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.retired_at = 0 THEN
		INSERT INTO graph_agg_delta VALUES ('count', 'entities', 1), ('entity', NEW.type, 1);
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER graph_nodes_agg AFTER INSERT OR DELETE ON graph_nodes FOR EACH ROW EXECUTE FUNCTION graph_agg_nodes();
CREATE TRIGGER graph_nodes_agg_retire AFTER UPDATE OF retired_at, type ON graph_nodes FOR EACH ROW
	WHEN ((OLD.retired_at = 0) <> (NEW.retired_at = 0) OR OLD.type <> NEW.type) EXECUTE FUNCTION graph_agg_nodes();
CREATE FUNCTION graph_agg_documents() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP IN ('UPDATE', 'DELETE') THEN
		INSERT INTO graph_agg_delta VALUES ('count', CASE WHEN OLD.forgotten_at = 0 THEN 'documents' ELSE 'forgotten' END, -1);
	END IF;
	IF TG_OP IN ('UPDATE', 'INSERT') THEN
		INSERT INTO graph_agg_delta VALUES ('count', CASE WHEN NEW.forgotten_at = 0 THEN 'documents' ELSE 'forgotten' END, 1);
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER graph_documents_agg AFTER INSERT OR DELETE ON graph_documents FOR EACH ROW EXECUTE FUNCTION graph_agg_documents();
CREATE TRIGGER graph_documents_agg_forget AFTER UPDATE OF forgotten_at ON graph_documents FOR EACH ROW
	WHEN ((OLD.forgotten_at = 0) <> (NEW.forgotten_at = 0)) EXECUTE FUNCTION graph_agg_documents();
CREATE FUNCTION graph_agg_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO graph_agg_delta VALUES ('count', TG_ARGV[0], CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END);
	RETURN NULL;
END $$;
CREATE TRIGGER graph_chunks_agg AFTER INSERT OR DELETE ON graph_chunks FOR EACH ROW EXECUTE FUNCTION graph_agg_count('chunks');
CREATE TRIGGER graph_edges_retired_agg AFTER INSERT OR DELETE ON graph_edges_retired FOR EACH ROW EXECUTE FUNCTION graph_agg_count('retired');
INSERT INTO graph_agg (kind, key, n)
	SELECT 'count', 'documents', count(*) FROM graph_documents WHERE forgotten_at = 0
	UNION ALL SELECT 'count', 'forgotten', count(*) FROM graph_documents WHERE forgotten_at > 0
	UNION ALL SELECT 'count', 'chunks', count(*) FROM graph_chunks
	UNION ALL SELECT 'count', 'entities', count(*) FROM graph_nodes WHERE retired_at = 0
	UNION ALL SELECT 'count', 'edges', count(*) FROM graph_edges
	UNION ALL SELECT 'count', 'retired', count(*) FROM graph_edges_retired
	UNION ALL SELECT 'count', 'stale', count(*) FROM graph_edges WHERE stale_at > 0
	UNION ALL SELECT 'relation', type, count(*) FROM graph_edges GROUP BY type
	UNION ALL SELECT 'entity', type, count(*) FROM graph_nodes WHERE retired_at = 0 GROUP BY type
	UNION ALL SELECT 'degree', id, sum(n) FROM (SELECT source AS id, count(*) AS n FROM graph_edges GROUP BY source
		UNION ALL SELECT target, count(*) FROM graph_edges GROUP BY target) d GROUP BY id;
