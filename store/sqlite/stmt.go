package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// lazyStmt is a statement prepared on its first use. A CLI run uses two or
// three of the memory index's statements; preparing all of them when the
// index opens parsed eleven (~13% of a `memory overview` run). A failed
// prepare is not kept: the next use tries again.
type lazyStmt struct {
	db    *sql.DB
	query string
	mu    sync.Mutex
	st    *sql.Stmt
}

func newLazyStmt(db *sql.DB, query string) *lazyStmt { return &lazyStmt{db: db, query: query} }

// prepare returns the prepared statement, preparing it on the first call.
func (s *lazyStmt) prepare(ctx context.Context) (*sql.Stmt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st == nil {
		st, err := s.db.PrepareContext(ctx, s.query)
		if err != nil {
			return nil, err
		}
		s.st = st
	}
	return s.st, nil
}

// QueryContext runs the statement as a query.
func (s *lazyStmt) QueryContext(ctx context.Context, args ...any) (*sql.Rows, error) {
	st, err := s.prepare(ctx)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// rowScanner is a *sql.Row, or the error of a statement that could not be
// prepared.
type rowScanner interface{ Scan(dest ...any) error }

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// QueryRowContext runs the statement as a query of one row.
func (s *lazyStmt) QueryRowContext(ctx context.Context, args ...any) rowScanner {
	st, err := s.prepare(ctx)
	if err != nil {
		return errRow{err}
	}
	return st.QueryRowContext(ctx, args...)
}

// Close closes the statement if it was prepared.
func (s *lazyStmt) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st == nil {
		return nil
	}
	err := s.st.Close()
	s.st = nil
	return err
}
