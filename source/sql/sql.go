// Package sql is the database source: read-only records and queries from
// SQLite, PostgreSQL and MariaDB/MySQL through named connections of the
// workspace configuration. Every read runs in a transaction the database
// itself holds read-only, with a statement timeout; values are passed as
// parameters, never spliced into SQL. Citations name the connection, never
// its DSN.
package sql

import (
	"context"
	dbsql "database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/config"
)

// DefaultMaxRows is the row cap when neither the request nor the
// connection sets one.
const DefaultMaxRows = 1000

// Options configure a Source.
type Options struct {
	// Root is the workspace root: relative SQLite paths are resolved in it.
	Root string
	// Connections are the named connections (config connections:).
	Connections map[string]config.Connection
}

// Source reads databases. It keeps one connection pool per named
// connection, opened on first use and reused; it is safe for concurrent use.
type Source struct {
	root  string
	conns map[string]config.Connection

	mu   sync.Mutex
	open map[string]*conn
}

// New returns a database source.
func New(opts Options) *Source {
	return &Source{root: opts.Root, conns: opts.Connections, open: map[string]*conn{}}
}

var (
	_ retrieve.Source          = (*Source)(nil)
	_ retrieve.Schemer         = (*Source)(nil)
	_ retrieve.ReferenceParser = (*Source)(nil)
)

// Kind implements retrieve.Source.
func (s *Source) Kind() string { return "database" }

// Schemes implements retrieve.Schemer: sql:<connection>/….
func (s *Source) Schemes() []string { return []string{"sql"} }

// ParseReference implements retrieve.ReferenceParser: sql:<rest>, whole (a
// key value may end in :N; a database reference has no line suffix).
func (s *Source) ParseReference(ref string) (retrieve.Reference, bool) {
	return retrieve.WholeReference("sql", ref), true
}

// Close closes every open pool.
func (s *Source) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for name, c := range s.open {
		errs = append(errs, c.db.Close())
		delete(s.open, name)
	}
	return errors.Join(errs...)
}

// conn returns the open pool of a named connection.
func (s *Source) conn(ctx context.Context, name string) (*conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.open[name]; ok {
		return c, nil
	}
	cfg, ok := s.conns[name]
	if !ok {
		names := make([]string, 0, len(s.conns))
		for n := range s.conns {
			names = append(names, n)
		}
		e := retrieve.Errorf(retrieve.CodeNotFound, "no connection named %q", name).
			WithHint("name a connection of the connections: section of .retrieve/config.yaml (docs/sql.md)")
		e.Alternatives = names
		return nil, e
	}
	c, err := openConn(ctx, s.root, name, cfg)
	if err != nil {
		return nil, err
	}
	s.open[name] = c
	return c, nil
}

// Fetch implements retrieve.Source.
func (s *Source) Fetch(ctx context.Context, req *retrieve.Request) (*retrieve.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("database %s: %w", req.Target, err)
	}
	t, err := ParseTarget(req.Target)
	if err != nil {
		return nil, err
	}
	if err := checkRequest(req, t); err != nil {
		return nil, err
	}
	c, err := s.conn(ctx, t.Conn)
	if err != nil {
		return nil, err
	}
	maxRows := req.Constraints.MaxRows
	if maxRows <= 0 {
		maxRows = c.cfg.MaxRows
	}
	if maxRows <= 0 {
		maxRows = DefaultMaxRows
	}
	q, args, ref, err := statement(c, req, t)
	if err != nil {
		return nil, err
	}
	ordered := t.Table == "" && Ordered(q, c.dialect.backslash)
	win := RowWindow{Start: 1}
	if t.Rows != nil {
		if !ordered {
			return nil, unorderedWindow(req.Target, t)
		}
		win = *t.Rows
	}
	limit := maxRows
	if win.End > 0 && win.End-win.Start+1 <= limit {
		limit = win.End - win.Start + 1
		maxRows = -1 // the window, not the cap, ends this read
	}
	rs, err := c.read(ctx, q, args, limit, win.Start-1)
	if err != nil {
		return nil, c.mapError(ctx, t, err)
	}
	if maxRows < 0 {
		rs.truncated = false // rows past the window are another part's
		maxRows = limit
	}
	if t.Table != "" && len(rs.rows) == 0 {
		return nil, retrieve.Errorf(retrieve.CodeNotFound, "no row of %s matches %s", t.Table, keyText(t.Keys)).
			WithHint("check the key value; the record may have been deleted")
	}
	if !ordered {
		doc := s.document(c, t, ref, req, rs, maxRows)
		if rs.truncated {
			doc.Assumptions = append(doc.Assumptions, unpagedNote(t))
		}
		return doc, nil
	}
	return s.pageDocument(c, t, ref, win, req, rs, maxRows), nil
}

// checkRequest refuses a request whose target and constraints do not go
// together.
func checkRequest(req *retrieve.Request, t Target) error {
	q := req.Constraints.Query
	switch {
	case t.Table != "" && q != "":
		return retrieve.Errorf(retrieve.CodeInputValidation, "%s names a record, and --query was given too", req.Target).
			WithHint("use either sql:<connection>/<table>?<key>=<value> or sql:<connection> --query")
	case t.Table == "" && q == "" && t.QueryHash != "":
		// The engine fills the query of a reference that a recorded
		// retrieval cited; this one was never recorded (or the ledger is off).
		return retrieve.Errorf(retrieve.CodeInputValidation, "%s names a query by its hash, and no recorded retrieval cited it: the query text is not in the reference", req.Target).
			WithHint("re-run the query with --query 'SELECT …' (and its --param values); to check a recorded citation, verify it by its retrieval id (retrieve verify <id>, verify_citation)")
	case t.Table == "" && q == "":
		return retrieve.Errorf(retrieve.CodeInputValidation, "%s names no record and no query", req.Target).
			WithHint("add a record (sql:%s/<table>?<key>=<value>) or a query (--query 'SELECT …' --param v)", t.Conn)
	case t.Table != "" && len(req.Constraints.Params) > 0:
		return retrieve.Errorf(retrieve.CodeInputValidation, "--param goes with --query; a record target carries its key values").
			WithHint("drop --param")
	}
	return nil
}

// statement is the SQL a target reads, its arguments, and the reference
// it cites (a query's carries its hash).
func statement(c *conn, req *retrieve.Request, t Target) (string, []any, Target, error) {
	var args []any
	ref := t
	if t.Table != "" {
		for _, k := range t.Keys {
			if !k.Null {
				args = append(args, k.Value)
			}
		}
		return c.dialect.recordQuery(t), args, ref, nil
	}
	q := req.Constraints.Query
	h := QueryHash(q)
	if t.QueryHash != "" && t.QueryHash != h {
		return "", nil, ref, retrieve.Errorf(retrieve.CodeInputValidation, "%s cites another query than the one given (its hash is %s)", req.Target, h).
			WithHint("re-run the cited query text unchanged, or retrieve sql:%s with the new query", t.Conn)
	}
	if err := CheckStatement(q, c.dialect.backslash); err != nil {
		return "", nil, ref, err
	}
	ref.QueryHash = h
	for _, p := range req.Constraints.Params {
		args = append(args, p)
	}
	return q, args, ref, nil
}

// pageDocument is the document of an ordered query's rows read from
// window win: a part (a window asked, or a cut) names the rows it returned
// and, when cut, the rest; a message budget that holds fewer rows names
// them and the rest too (Document.RowParts).
func (s *Source) pageDocument(c *conn, t, ref Target, win RowWindow, req *retrieve.Request, rs *resultSet, maxRows int) *retrieve.Document {
	next := ""
	if t.Rows != nil || rs.truncated {
		got := win
		if n := len(rs.rows); n > 0 {
			got.End = win.Start + n - 1
		}
		ref.Rows = &got
		if rs.truncated {
			rest := ref
			rest.Rows = &RowWindow{Start: got.End + 1, End: win.End}
			next = rest.String()
		}
	}
	doc := s.document(c, t, ref, req, rs, maxRows)
	doc.Next = next
	if ref.Rows != nil {
		doc.Metadata["first_row"] = ref.Rows.Start
	}
	doc.RowParts = func(n int) (string, string) {
		kept, rest := ref, ref
		kept.Rows = &RowWindow{Start: win.Start, End: win.Start + n - 1}
		rest.Rows = &RowWindow{Start: win.Start + n, End: win.End}
		return kept.String(), rest.String()
	}
	return doc
}

// unorderedWindow refuses a row window of rows in no fixed order.
func unorderedWindow(target string, t Target) error {
	if t.Table != "" {
		return retrieve.Errorf(retrieve.CodeInputValidation, "%s: a record target has no row order, so it has no row window", target).
			WithHint("page the rows with a query that orders them by a unique key: sql:%s --query 'SELECT * FROM %s WHERE … ORDER BY <key>' --max-rows N, then follow extraction.next", t.Conn, t.Table)
	}
	return retrieve.Errorf(retrieve.CodeInputValidation, "%s: the query has no ORDER BY, so its rows come in no fixed order and a row window of them would not name the same rows twice", target).
		WithHint("add ORDER BY on a unique key (or ending with one) at the end of the query; a query that orders its rows is paged with #rows=START-END (docs/sql.md, \"Paging\")")
}

// unpagedNote says why a cut result names no next part.
func unpagedNote(t Target) string {
	if t.Table != "" {
		return "No next part: a record target has no row order; to page these rows, query them ordered by a unique key (SELECT … ORDER BY <key>) and follow extraction.next"
	}
	return "No next part: the query has no ORDER BY, so its rows come in no fixed order; add ORDER BY on a unique key to page it (extraction.next), or raise max_rows"
}

func keyText(keys []Key) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		if k.Null {
			parts[i] = k.Column + " IS NULL"
		} else {
			parts[i] = fmt.Sprintf("%s = %q", k.Column, k.Value)
		}
	}
	return strings.Join(parts, " AND ")
}

func (s *Source) document(c *conn, t, ref Target, req *retrieve.Request, rs *resultSet, maxRows int) *retrieve.Document {
	reference := ref.String()
	label := "database:" + t.Conn
	if t.Table != "" {
		label += "/" + t.Table
	}
	rows := make([]any, len(rs.rows))
	for i, r := range rs.rows {
		rows[i] = r
	}
	doc := &retrieve.Document{
		Data:        rows,
		Format:      "json",
		Locator:     reference,
		Label:       label,
		Version:     rs.version,
		Authority:   retrieve.Authority(c.cfg.Authority),
		Reliability: "System of record, read in a read-only transaction",
		Volatile:    true, // rows change: their snapshots go stale
		// The version names the state read; no query reads as of it again.
		CurrentOnly: true,
		Incomplete:  rs.truncated,
		Anchors:     []string{reference},
		Metadata: map[string]any{
			"connection":   t.Conn,
			"driver":       c.cfg.Driver,
			"columns":      rs.columns,
			"column_types": rs.types,
			"row_count":    len(rs.rows),
			"max_rows":     maxRows,
		},
	}
	if doc.Authority == "" {
		doc.Authority = retrieve.AuthorityHigh
	}
	for k, v := range rs.meta {
		doc.Metadata[k] = v
	}
	if rs.truncated {
		doc.Assumptions = append(doc.Assumptions, fmt.Sprintf("The result was cut at %d rows (max_rows): more rows match", maxRows))
		doc.Deductions = append(doc.Deductions, retrieve.Deduction{Reason: "row cap", Amount: 0.1})
	}
	if rs.versionNote != "" {
		doc.Assumptions = append(doc.Assumptions, rs.versionNote)
	}
	if col := c.cfg.UpdatedColumn; col != "" {
		if lm, ok := latest(rs, col); ok {
			doc.LastModified = &lm
		} else {
			doc.Assumptions = append(doc.Assumptions, fmt.Sprintf("last_modified is unknown: the rows have no timestamp in the configured column %s", col))
		}
	} else {
		doc.Assumptions = append(doc.Assumptions, "last_modified is unknown: the connection configures no updated_column")
	}
	if len(rs.renamed) > 0 {
		doc.Assumptions = append(doc.Assumptions, "Duplicate column names were renamed: "+strings.Join(rs.renamed, ", "))
	}
	return doc
}

// latest is the latest timestamp of column col over the rows.
func latest(rs *resultSet, col string) (time.Time, bool) {
	var best time.Time
	found := false
	for _, r := range rs.rows {
		s, ok := r[col].(string)
		if !ok {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			continue
		}
		if !found || t.After(best) {
			best, found = t, true
		}
	}
	return best.UTC(), found
}

// resultSet is what one read returned.
type resultSet struct {
	columns     []string
	types       []string
	rows        []map[string]any
	truncated   bool
	version     *string
	versionNote string
	meta        map[string]any
	renamed     []string
	bytes       int // of the values read so far
	skip        int // rows still to read past before the first kept
}

// conn is an open named connection.
type conn struct {
	name     string
	cfg      config.Connection
	db       *dbsql.DB
	dialect  *dialect
	timeout  time.Duration
	secrets  []string // expanded ${env:…} values, scrubbed from error text
	path     string   // sqlite file
	fileHash *fileHash
}

func openConn(ctx context.Context, root, name string, cfg config.Connection) (*conn, error) {
	dsn, err := config.Expand(cfg.DSN)
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "connection %s: %s", name, retrieve.AsError(err).Message).
			WithHint("%s", retrieve.AsError(err).Hint)
	}
	c := &conn{name: name, cfg: cfg, timeout: cfg.StatementTimeout(), secrets: envValues(cfg.DSN)}
	switch cfg.Driver {
	case "sqlite":
		p := dsn
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		c.path = p
		err = c.openSQLite(ctx)
	case "postgres":
		err = c.openPostgres(ctx, dsn)
	case "mysql":
		err = c.openMySQL(ctx, dsn)
	default:
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "connection %s: driver %q is not supported", name, cfg.Driver).
			WithHint("use one of %v", config.Drivers)
	}
	if err != nil {
		var re *retrieve.Error
		if errors.As(err, &re) {
			return nil, re
		}
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("connect to database %s: %w", name, cerr)
		}
		return nil, retrieve.Errorf(retrieve.CodeUpstreamStatus, "cannot connect to database %s (%s): %s", name, cfg.Driver, connectReason(err)).
			WithHint("check that the server runs and that the connection's dsn and its environment variables are right")
	}
	return c, nil
}

// envValues returns the values of the ${env:NAME} references of dsn.
func envValues(dsn string) []string {
	var out []string
	for _, m := range envRef().FindAllStringSubmatch(dsn, -1) {
		if v, ok := lookupEnv(m[1]); ok && v != "" {
			out = append(out, v)
		}
	}
	return out
}

// scrub removes secrets from text that may be shown.
func (c *conn) scrub(s string) string {
	for _, v := range c.secrets {
		if len(v) >= 3 {
			s = strings.ReplaceAll(s, v, "[redacted]")
		}
	}
	return s
}

// read runs q in a read-only transaction and returns at most maxRows rows.
// On MariaDB/MySQL a read that took the whole statement timeout is a
// timeout even when the server returned rows: MariaDB ends an interrupted
// BENCHMARK() with 0 and no error. (PostgreSQL and SQLite report their
// interruptions.)
// The first skip rows are read past, not converted (a row window).
func (c *conn) read(ctx context.Context, q string, args []any, maxRows, skip int) (*resultSet, error) {
	started := time.Now()
	rs, err := c.readRows(ctx, q, args, maxRows, skip)
	if err == nil && (c.dialect.name == "mariadb" || c.dialect.name == "mysql") && c.timeout > 0 && time.Since(started) >= c.timeout {
		return nil, errStatementTimeout
	}
	return rs, err
}

// errStatementTimeout marks a read that ran for the whole statement timeout.
var errStatementTimeout = errors.New("the statement ran for the whole statement timeout")

func (c *conn) readRows(ctx context.Context, q string, args []any, maxRows, skip int) (*resultSet, error) {
	if c.dialect.name == "postgres" {
		return c.readPG(ctx, q, args, maxRows, skip)
	}
	limit := c.timeout + 5*time.Second // the server's own timeout fires first
	if c.dialect.name == "sqlite" {
		limit = c.timeout // SQLite stops on the context (sqlite3_interrupt)
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	sc, err := c.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer sc.Close()
	if c.dialect.name == "sqlite" {
		// Limits belong to a connection: set on the one this read uses.
		if err := sqliteLimits(sc); err != nil {
			return nil, err
		}
	}
	tx, err := sc.BeginTx(ctx, &dbsql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // a read-only transaction has nothing to keep
	rs := &resultSet{meta: map[string]any{}, skip: skip}
	if err := c.dialect.begin(ctx, c, tx, rs); err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if err := scanRows(rows, c.dialect, maxRows, rs); err != nil {
		return nil, err
	}
	if c.dialect.name == "mariadb" || c.dialect.name == "mysql" {
		rows.Close()
		if err := packetOverflow(ctx, tx); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// packetOverflow asks MariaDB/MySQL whether the statement just read built
// a value larger than max_allowed_packet: the server then returns NULL for
// it with warning 1301 (REPEAT('x', 2e8)), which would read as a complete
// result holding null.
func packetOverflow(ctx context.Context, tx *dbsql.Tx) error {
	rows, err := tx.QueryContext(ctx, "SHOW WARNINGS")
	if err != nil {
		return nil // nothing more is learnt; the result stands
	}
	defer rows.Close()
	for rows.Next() {
		var level, msg string
		var code int
		if rows.Scan(&level, &code, &msg) == nil && code == 1301 {
			return fmt.Errorf("%w (max_allowed_packet: the server returned NULL in place of a value)", errResultTooLarge)
		}
	}
	return nil
}

// connectReason classifies a connection failure without the driver's text,
// which names hosts, users and databases of the DSN.
func connectReason(err error) string {
	m := strings.ToLower(err.Error())
	switch {
	case strings.Contains(m, "password"), strings.Contains(m, "access denied"), strings.Contains(m, "authentication"):
		return "authentication failed"
	case strings.Contains(m, "connection refused"):
		return "the server refused the connection"
	case strings.Contains(m, "no such host"):
		return "the host is unknown"
	case strings.Contains(m, "timeout"), strings.Contains(m, "deadline"):
		return "the connection timed out"
	case strings.Contains(m, "does not exist"), strings.Contains(m, "unknown database"):
		return "the database does not exist"
	}
	return "the connection failed"
}
