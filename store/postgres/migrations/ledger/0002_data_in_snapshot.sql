-- An entry with a snapshot keeps its result without the data, which the
-- snapshot holds (docs/ledger.md): the ledger grows with retrievals, not
-- with the bytes they return. Existing entries are converted; a result that
-- jsonb cannot hold (a \u0000 escape) is left as it was.
ALTER TABLE ledger ADD COLUMN data_in_snapshot boolean NOT NULL DEFAULT false;
UPDATE ledger SET
	result = convert_to(jsonb_set(convert_from(result, 'UTF8')::jsonb, '{retrieved,data}', 'null'::jsonb)::text, 'UTF8'),
	data_in_snapshot = true
WHERE snapshot <> '' AND status = 'ok' AND CASE
	WHEN length(result) > 0 AND position('\u0000' in convert_from(result, 'UTF8')) = 0
	THEN coalesce(jsonb_typeof(convert_from(result, 'UTF8')::jsonb #> '{retrieved,data}'), 'null') <> 'null'
	ELSE false END;
