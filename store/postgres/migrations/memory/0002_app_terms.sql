-- The application analyzes the text (intl.IndexText: NFKC, case and Latin
-- diacritics folded, English/Russian stems, CJK bigrams) and writes the
-- tsvector itself (title weight A, tags B, body D, positions in term
-- order), the same terms the SQLite store indexes; no text search
-- configuration or parser of the server is involved. The rows are dropped
-- so that the next query re-indexes.
DELETE FROM memory_notes;
DROP INDEX memory_notes_tsv;
ALTER TABLE memory_notes DROP COLUMN tsv;
ALTER TABLE memory_notes ADD COLUMN tsv tsvector NOT NULL DEFAULT ''::tsvector;
CREATE INDEX memory_notes_tsv ON memory_notes USING gin (tsv);
