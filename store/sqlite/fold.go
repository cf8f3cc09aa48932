package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// foldCacheKiB is the page cache of the fold's connection. A busy
// server's fold writes a second of entries in one transaction; their index
// keys (target, reference, snapshot) land on as many leaf pages of each
// index as there are distinct values, which overflow SQLite's default
// 2 MiB cache: the pager spilled dirty pages to the WAL mid-transaction
// and read them back (pagerStress, pread), a fifth of the fold's CPU
// (BenchmarkFold). The other connections keep the default.
const foldCacheKiB = 32 << 10

// foldBegin begins the fold's transaction on the connection kept for it
// (taken from the pool on first use, and again after an error), whose
// page cache is foldCacheKiB and stays warm from one fold to the next.
// The caller holds wmu.
func (s *Store) foldBegin(ctx context.Context) (*sql.Tx, error) {
	if s.foldConn == nil {
		c, err := s.db.Conn(ctx)
		if err != nil {
			return nil, err
		}
		if _, err := c.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size = -%d", foldCacheKiB)); err != nil {
			c.Close()
			return nil, err
		}
		s.foldConn = c
	}
	tx, err := s.foldConn.BeginTx(ctx, nil)
	if err != nil && !isBusy(err) {
		s.foldConn.Close() // a broken connection: the next fold takes another
		s.foldConn = nil
	}
	return tx, err
}

// closeFold returns the fold's connection to the pool (Close).
func (s *Store) closeFold() {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.foldConn != nil {
		s.foldConn.Close()
		s.foldConn = nil
	}
}
