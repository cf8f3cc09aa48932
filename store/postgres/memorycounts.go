package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/internal/sqlcommon"
)

// foldCountsAfter is how many rows of a folder's memory_counts a reader
// lets pile up before it folds them into one row per key.
const foldCountsAfter = 2000

// MemoryCounts implements memory.Index: the sums of memory_counts (memory
// migration 5: the writes' statement triggers append to it), no note
// read. Past foldCountsAfter rows the reader folds them, in a transaction
// that deletes the rows it sums: a row a concurrent writer appends
// meanwhile is not among them and stays.
func (m *MemoryIndex) MemoryCounts(ctx context.Context, dir string) (*memory.IndexCounts, error) {
	var out *memory.IndexCounts
	_, err := m.db.retry(ctx, func() error {
		var rowsN int
		if err := m.db.pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM memory_counts WHERE dir = $1 LIMIT $2) c`, dir, foldCountsAfter+1).Scan(&rowsN); err != nil {
			return err
		}
		if rowsN > foldCountsAfter {
			if err := pgx.BeginFunc(ctx, m.db.pool, func(tx pgx.Tx) error {
				_, err := tx.Exec(ctx, `WITH d AS (DELETE FROM memory_counts WHERE dir = $1 RETURNING kind, key, n)
					INSERT INTO memory_counts (dir, kind, key, n) SELECT $1, kind, key, sum(n) FROM d GROUP BY kind, key HAVING sum(n) <> 0`, dir)
				return err
			}); err != nil {
				return err
			}
		}
		rows, err := m.db.pool.Query(ctx, `SELECT kind, key, sum(n)::bigint FROM memory_counts WHERE dir = $1 GROUP BY kind, key HAVING sum(n) <> 0`, dir)
		if err != nil {
			return err
		}
		defer rows.Close()
		out, err = sqlcommon.ScanCountRows(rows)
		return err
	})
	if err != nil {
		return nil, wrap(m.db.where, "cannot count the memory index", err)
	}
	return out, nil
}
