package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// attempts is how many times a statement is tried when the connection,
// not the statement, failed: after a PostgreSQL restart or failover the
// pool's idle connections are dead, and the first use of each fails.
const attempts = 3

// retry runs fn again when it failed on a broken connection (never when
// PostgreSQL refused the statement), with a short pause, until the
// attempts or the context run out. A broken connection means the server
// restarted or failed over, so every pooled connection is suspect: the
// pool is reset, and the next attempt gets a new connection. It reports
// whether an earlier attempt failed ambiguously (the statement may have
// been applied).
func (db *DB) retry(ctx context.Context, fn func() error) (ambiguous bool, err error) {
	delay := 50 * time.Millisecond
	for i := 0; ; i++ {
		err = fn()
		if err == nil || !connectionLost(err) || i+1 >= attempts || ctx.Err() != nil {
			return ambiguous, err
		}
		if !pgconn.SafeToRetry(err) {
			ambiguous = true
		}
		db.pool.Reset()
		select {
		case <-ctx.Done():
			return ambiguous, err
		case <-time.After(delay):
		}
		delay *= 4
	}
}

// connectionLost reports whether err is a failure of the connection rather
// than an error PostgreSQL returned for the statement.
func connectionLost(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// admin_shutdown, crash_shutdown, cannot_connect_now: the server is going away.
		return pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		pgconn.SafeToRetry(err) || strings.Contains(err.Error(), "conn closed")
}

// isUniqueViolation reports whether err is a duplicate key.
func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}
