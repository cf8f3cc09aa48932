package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/retrieve-dev/retrieve/store"
)

// outlineMigrations is the schema of the outline cache (component
// "outline", store.OutlineCache).
var outlineMigrations = []string{
	`CREATE TABLE outline_cache (
		key TEXT PRIMARY KEY,
		data BLOB NOT NULL,
		created TEXT NOT NULL
	) WITHOUT ROWID`,
}

var _ store.OutlineCache = (*Store)(nil)

// outlineReady applies the outline migration once per Store, on the first
// use of the cache: a store that never outlines pays nothing.
func (s *Store) outlineReady(ctx context.Context) error {
	s.outlineOnce.Do(func() {
		if err := s.Migrate(ctx, "outline", outlineMigrations); err != nil {
			s.outlineErr = wrapStore(s.path, err)
		}
	})
	return s.outlineErr
}

// CachedOutline implements store.OutlineCache.
func (s *Store) CachedOutline(ctx context.Context, key string) ([]byte, bool, error) {
	if err := s.outlineReady(ctx); err != nil {
		return nil, false, err
	}
	var data []byte
	err := s.db.QueryRowContext(ctx, `SELECT data FROM outline_cache WHERE key = ?`, key).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, storeErr(s.path, "cannot read the outline cache", err)
	}
	return data, true, nil
}

// PutOutline implements store.OutlineCache.
func (s *Store) PutOutline(ctx context.Context, key string, data []byte) error {
	if err := s.outlineReady(ctx); err != nil {
		return err
	}
	err := retry(ctx, func() error {
		_, err := s.db.ExecContext(ctx, `INSERT INTO outline_cache (key, data, created) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING`,
			key, data, time.Now().UTC().Format(timeFormat))
		return err
	})
	if err != nil {
		return storeErr(s.path, "cannot write the outline cache", err)
	}
	return nil
}

// DeleteOutlinesBefore implements store.OutlineCache.
func (s *Store) DeleteOutlinesBefore(ctx context.Context, t time.Time) (int, error) {
	if err := s.outlineReady(ctx); err != nil {
		return 0, err
	}
	var n int64
	err := retry(ctx, func() error {
		res, err := s.db.ExecContext(ctx, `DELETE FROM outline_cache WHERE created < ?`, t.UTC().Format(timeFormat))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, storeErr(s.path, "cannot trim the outline cache", err)
	}
	return int(n), nil
}
