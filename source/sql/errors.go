package sql

import (
	"context"
	"errors"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/retrieve-dev/retrieve"
	sqlite "modernc.org/sqlite"
)

// mapError turns a database error into the project's error: a missing
// table or column is NOT_FOUND with the names that exist; a timeout, a
// write refused by the read-only transaction or any other refusal is
// QUERY_REJECTED with the database's reason. Connection failures are
// UPSTREAM_STATUS. Secrets are scrubbed from every message.
func (c *conn) mapError(ctx context.Context, t Target, err error) error {
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return retrieve.Errorf(retrieve.CodeCanceled, "the query was canceled").WithErr(err)
	}
	timeout := func() error {
		return retrieve.Errorf(retrieve.CodeTimeout, "the statement ran longer than the %s statement timeout of connection %s and was stopped: no data is returned", c.timeout, c.name).
			WithHint("narrow the query, or raise the connection's timeout").WithErr(err)
	}
	tooLarge := func() error {
		return retrieve.Errorf(retrieve.CodeTooLarge, "the result of connection %s is too large: a value over %d MiB, or values over %d MiB in all", c.name, MaxValueBytes>>20, MaxResultBytes>>20).
			WithHint("select fewer rows or columns, or a part of the large value (substr)").WithErr(err)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errStatementTimeout) {
		return timeout()
	}
	var bodyErr *pgproto3.ExceededMaxBodyLenErr
	if errors.Is(err, errResultTooLarge) || errors.As(err, &bodyErr) || strings.Contains(err.Error(), "invalid body length: expected at most") {
		return tooLarge()
	}
	reason := c.scrub(err.Error())
	var pgErr *pgconn.PgError
	var myErr *mysql.MySQLError
	var liteErr *sqlite.Error
	switch {
	case errors.As(err, &pgErr):
		reason = c.scrub(pgErr.Message)
		switch pgErr.Code {
		case "42P01":
			return c.missingTable(ctx, t, reason, err)
		case "42703":
			return c.missingColumn(ctx, t, reason, err)
		case "57014":
			return timeout()
		case "25006":
			return readOnly(reason, err)
		}
	case errors.As(err, &myErr):
		reason = c.scrub(myErr.Message)
		switch myErr.Number {
		case 1146:
			return c.missingTable(ctx, t, reason, err)
		case 1054:
			return c.missingColumn(ctx, t, reason, err)
		case 1969, 3024:
			return timeout()
		case 1792:
			return readOnly(reason, err)
		}
	case errors.As(err, &liteErr):
		switch {
		case strings.Contains(reason, "no such table"):
			return c.missingTable(ctx, t, reason, err)
		case strings.Contains(reason, "no such column"):
			return c.missingColumn(ctx, t, reason, err)
		case strings.Contains(reason, "readonly"), strings.Contains(reason, "read-only"), strings.Contains(reason, "query_only"):
			return readOnly(reason, err)
		case strings.Contains(reason, "interrupted"):
			return timeout()
		case strings.Contains(reason, "too big"):
			return tooLarge()
		}
	default:
		return retrieve.Errorf(retrieve.CodeUpstreamStatus, "database %s failed: %s", c.name, reason).
			WithHint("check that the server runs and accepts the connection").WithErr(err)
	}
	return retrieve.Errorf(retrieve.CodeQueryRejected, "database %s refused the query: %s", c.name, reason).
		WithHint("fix the query; values go in --param, never in the SQL text").WithErr(err)
}

func readOnly(reason string, err error) error {
	return retrieve.Errorf(retrieve.CodeQueryRejected, "the database refused a change inside the read-only transaction: %s", reason).
		WithHint("retrieve only reads; nothing was changed").WithErr(err)
}

// missingTable is NOT_FOUND with the tables that exist as alternatives.
func (c *conn) missingTable(ctx context.Context, t Target, reason string, err error) error {
	e := retrieve.Errorf(retrieve.CodeNotFound, "database %s: %s", c.name, reason).WithErr(err)
	var q string
	var args []any
	switch c.dialect.name {
	case "sqlite":
		q = "SELECT name FROM sqlite_master WHERE type IN ('table','view') AND name NOT LIKE 'sqlite_%' ORDER BY name LIMIT 50"
	case "postgres":
		q = "SELECT CASE WHEN table_schema = current_schema() THEN table_name ELSE table_schema || '.' || table_name END FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1 LIMIT 50"
	default:
		q = "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY 1 LIMIT 50"
	}
	e.Alternatives = c.names(ctx, q, args...)
	return e.WithHint("name one of the tables listed as alternatives")
}

// missingColumn is NOT_FOUND with the table's columns as alternatives.
func (c *conn) missingColumn(ctx context.Context, t Target, reason string, err error) error {
	e := retrieve.Errorf(retrieve.CodeNotFound, "database %s: %s", c.name, reason).WithErr(err)
	if t.Table == "" {
		return e.WithHint("check the column names of the query")
	}
	var q string
	switch c.dialect.name {
	case "sqlite":
		q = "SELECT name FROM pragma_table_info(?) ORDER BY cid"
	case "postgres":
		q = "SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND table_schema = COALESCE(NULLIF($2, ''), current_schema()) ORDER BY ordinal_position"
	default:
		q = "SELECT column_name FROM information_schema.columns WHERE table_name = ? AND table_schema = COALESCE(NULLIF(?, ''), DATABASE()) ORDER BY ordinal_position"
	}
	args := []any{t.Table}
	if c.dialect.name != "sqlite" {
		args = append(args, t.Schema)
	}
	e.Alternatives = c.names(ctx, q, args...)
	return e.WithHint("key the record by one of the columns of %s listed as alternatives", t.Table)
}

func (c *conn) names(ctx context.Context, q string, args ...any) []string {
	rows, err := c.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if rows.Scan(&s) == nil {
			out = append(out, s)
		}
	}
	return out
}
