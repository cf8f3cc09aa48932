package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/retrieve-dev/retrieve/store"
)

var _ store.OutlineCache = (*Store)(nil)

// CachedOutline implements store.OutlineCache.
func (s *Store) CachedOutline(ctx context.Context, key string) ([]byte, bool, error) {
	var data []byte
	err := s.pool.QueryRow(ctx, `SELECT data FROM outline_cache WHERE key = $1`, key).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, wrap(s.where, "cannot read the outline cache", err)
	}
	return data, true, nil
}

// PutOutline implements store.OutlineCache.
func (s *Store) PutOutline(ctx context.Context, key string, data []byte) error {
	_, err := s.retry(ctx, func() error {
		_, err := s.pool.Exec(ctx, `INSERT INTO outline_cache (key, data) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, key, data)
		return err
	})
	if err != nil {
		return wrap(s.where, "cannot write the outline cache", err)
	}
	return nil
}

// DeleteOutlinesBefore implements store.OutlineCache.
func (s *Store) DeleteOutlinesBefore(ctx context.Context, t time.Time) (int, error) {
	var n int64
	_, err := s.retry(ctx, func() error {
		tag, err := s.pool.Exec(ctx, `DELETE FROM outline_cache WHERE created < $1`, t)
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return 0, wrap(s.where, "cannot trim the outline cache", err)
	}
	return int(n), nil
}
