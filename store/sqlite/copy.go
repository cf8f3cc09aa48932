package sqlite

import (
	"context"
	"fmt"

	"github.com/retrieve-dev/retrieve/store"
)

// EntriesAfter returns up to limit entries whose id sorts after afterID,
// oldest id first; `retrieve store copy` walks the ledger with it.
func (s *Store) EntriesAfter(ctx context.Context, afterID string, limit int) ([]*store.Entry, error) {
	if err := s.sync(ctx); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+entryColumns+` FROM ledger WHERE id > ? ORDER BY id LIMIT ?`, afterID, limit)
	if err != nil {
		return nil, wrapStore(s.path, fmt.Errorf("list ledger: %w", err))
	}
	defer rows.Close()
	var out []*store.Entry
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, wrapStore(s.path, fmt.Errorf("list ledger: %w", err))
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, wrapStore(s.path, fmt.Errorf("list ledger: %w", err))
	}
	return out, nil
}

// ImportEntries inserts, in one transaction, the entries whose id is not
// present yet and returns how many it inserted; `retrieve store copy` uses
// it to resume.
func (s *Store) ImportEntries(ctx context.Context, es []*store.Entry) (int, error) {
	if err := s.sync(ctx); err != nil {
		return 0, err
	}
	return s.insertEntries(ctx, es)
}

// insertEntries inserts es in one transaction, skipping the ids present
// already.
func (s *Store) insertEntries(ctx context.Context, es []*store.Entry) (int, error) {
	recs := make([]jrec, len(es))
	for i, e := range es {
		recs[i].e = e
	}
	return s.insertRecords(ctx, recs)
}

// SnapshotsAfter returns up to limit snapshot hashes that sort after
// afterHash, in order.
func (s *Store) SnapshotsAfter(ctx context.Context, afterHash string, limit int) ([]string, error) {
	if err := s.sync(ctx); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT hash FROM snapshots WHERE hash > ? ORDER BY hash LIMIT ?`, afterHash, limit)
	if err != nil {
		return nil, wrapStore(s.path, fmt.Errorf("list snapshots: %w", err))
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, wrapStore(s.path, fmt.Errorf("list snapshots: %w", err))
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// Counts returns the number of ledger entries and snapshots and the stored
// (compressed) bytes of the snapshots.
func (s *Store) Counts(ctx context.Context) (entries, snapshots, storedBytes int64, err error) {
	if err = s.sync(ctx); err != nil {
		return
	}
	err = s.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM ledger), (SELECT count(*) FROM snapshots), (SELECT coalesce(sum(stored_size), 0) FROM snapshots)`).
		Scan(&entries, &snapshots, &storedBytes)
	if err != nil {
		err = wrapStore(s.path, fmt.Errorf("count the store: %w", err))
	}
	return
}

// ComponentVersion is the applied schema version of one component.
type ComponentVersion struct {
	Component string
	Version   int
}

// Versions returns the applied schema version of every component.
func (db *DB) Versions(ctx context.Context) ([]ComponentVersion, error) {
	rows, err := db.db.QueryContext(ctx, `SELECT component, max(version) FROM schema_migrations GROUP BY component ORDER BY component`)
	if err != nil {
		return nil, storeErr(db.path, "cannot read the store", err)
	}
	defer rows.Close()
	var out []ComponentVersion
	for rows.Next() {
		var c ComponentVersion
		if err := rows.Scan(&c.Component, &c.Version); err != nil {
			return nil, storeErr(db.path, "cannot read the store", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
