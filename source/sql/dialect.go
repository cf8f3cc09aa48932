package sql

import (
	"context"
	"crypto/sha256"
	dbsql "database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/retrieve-dev/retrieve"
	sqlite "modernc.org/sqlite" // the sqlite driver
)

// MaxValueBytes caps one value (a string or blob) a database may return,
// and one PostgreSQL protocol message: SQLite gets it as its
// SQLITE_LIMIT_LENGTH, so randomblob(1e9) fails at once instead of
// allocating a gigabyte no interrupt can stop; MariaDB/MySQL servers cap
// values at their max_allowed_packet (16 MiB by default).
const MaxValueBytes = 16 << 20

// MaxResultBytes caps the values of one result, all rows together.
const MaxResultBytes = 32 << 20

// sqliteLimitLength is SQLITE_LIMIT_LENGTH for sqlite3_limit.
const sqliteLimitLength = 0

var envRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}`) })

var lookupEnv = os.LookupEnv

// dialect holds what differs between the engines.
type dialect struct {
	name      string // sqlite, postgres, mariadb, mysql
	backslash bool   // backslash escapes in string literals
	quoteChar string
	dollar    bool // $1 placeholders instead of ?
	begin     func(ctx context.Context, c *conn, tx *dbsql.Tx, rs *resultSet) error
}

func (d *dialect) quote(id string) string {
	return d.quoteChar + strings.ReplaceAll(id, d.quoteChar, d.quoteChar+d.quoteChar) + d.quoteChar
}

// recordQuery is the parameterised SELECT of a record target.
func (d *dialect) recordQuery(t Target) string {
	var b strings.Builder
	b.WriteString("SELECT * FROM ")
	if t.Schema != "" {
		b.WriteString(d.quote(t.Schema) + ".")
	}
	b.WriteString(d.quote(t.Table) + " WHERE ")
	n := 0
	for i, k := range t.Keys {
		if i > 0 {
			b.WriteString(" AND ")
		}
		b.WriteString(d.quote(k.Column))
		if k.Null {
			b.WriteString(" IS NULL")
			continue
		}
		n++
		if d.dollar {
			fmt.Fprintf(&b, " = $%d", n)
		} else {
			b.WriteString(" = ?")
		}
	}
	return b.String()
}

// --- SQLite ---------------------------------------------------------------

func (c *conn) openSQLite(ctx context.Context) error {
	fi, err := os.Stat(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return retrieve.Errorf(retrieve.CodePathNotFound, "connection %s: the SQLite file does not exist", c.name).
			WithHint("check the connection's dsn (a path relative to the workspace root)")
	}
	if err != nil || fi.IsDir() {
		return retrieve.Errorf(retrieve.CodeNotAFile, "connection %s: the SQLite dsn is not a readable file", c.name).WithErr(err)
	}
	u := url.URL{Scheme: "file", OmitHost: true, Path: c.path}
	dsn := u.String() + "?mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(5000)&_pragma=trusted_schema(0)"
	db, err := dbsql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return err
	}
	c.db = db
	// Backticks, not double quotes: SQLite reads a double-quoted name that
	// is no column as a string literal.
	c.dialect = &dialect{name: "sqlite", quoteChar: "`", begin: sqliteBegin}
	c.fileHash = &fileHash{}
	return nil
}

// sqliteLimits caps the length of any string or blob on the connection sc
// (SQLITE_LIMIT_LENGTH): past it SQLite fails with "string or blob too
// big" before it allocates.
func sqliteLimits(sc *dbsql.Conn) error {
	_, err := sqlite.Limit(sc, sqliteLimitLength, MaxValueBytes)
	return err
}

// fileHash caches the hash of a SQLite file (and its WAL) by their size and
// modification time.
type fileHash struct {
	mu   sync.Mutex
	key  string
	hash string
}

func (h *fileHash) of(path string) (string, error) {
	var key strings.Builder
	paths := []string{path, path + "-wal"}
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			fmt.Fprintf(&key, "%d.%d|", fi.Size(), fi.ModTime().UnixNano())
		} else {
			key.WriteString("-|")
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.key == key.String() {
		return h.hash, nil
	}
	sum := sha256.New()
	for _, p := range paths {
		f, err := os.Open(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = io.Copy(sum, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	h.key, h.hash = key.String(), hex.EncodeToString(sum.Sum(nil))
	return h.hash, nil
}

func sqliteBegin(ctx context.Context, c *conn, tx *dbsql.Tx, rs *resultSet) error {
	var dv int64
	if err := tx.QueryRowContext(ctx, "PRAGMA data_version").Scan(&dv); err != nil {
		return err
	}
	rs.meta["sqlite_data_version"] = dv
	h, err := c.fileHash.of(c.path)
	if err != nil {
		rs.versionNote = "No version: the SQLite file could not be hashed"
		return nil
	}
	v := "sqlite:sha256:" + h
	rs.version = &v
	rs.versionNote = "The version is the sha256 of the SQLite file (and its WAL) when read: the same version means the same database bytes"
	return nil
}

// --- PostgreSQL -----------------------------------------------------------

func (c *conn) openPostgres(ctx context.Context, dsn string) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return err
	}
	// A message past MaxValueBytes (repeat('x', 1e9) is one 1 GB row) is
	// refused while it is read, before it is held in memory.
	cfg.BuildFrontend = func(r io.Reader, w io.Writer) *pgproto3.Frontend {
		f := pgproto3.NewFrontend(r, w)
		f.SetMaxBodyLen(MaxValueBytes)
		return f
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxIdleConns(4)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return err
	}
	c.db = db
	c.dialect = &dialect{name: "postgres", quoteChar: `"`, dollar: true} // reads go through readPG
	return nil
}

// --- MariaDB / MySQL ------------------------------------------------------

func (c *conn) openMySQL(ctx context.Context, dsn string) error {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return retrieve.Errorf(retrieve.CodeInputValidation, "connection %s: the mysql dsn is not valid", c.name).
			WithHint("write it as user:password@tcp(host:port)/database, with secrets as ${env:NAME}")
	}
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	cfg.MultiStatements = false
	cfg.AllowAllFiles = false
	cfg.InterpolateParams = false
	probe, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	pdb := dbsql.OpenDB(probe)
	var version string
	err = pdb.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version)
	pdb.Close()
	if err != nil {
		return err
	}
	mariadb := strings.Contains(strings.ToLower(version), "mariadb")
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	// A read-only transaction does not stop DDL in MySQL (it commits
	// implicitly and runs outside it): the whole session is read-only too.
	if mariadb {
		cfg.Params["tx_read_only"] = "1"
	} else {
		cfg.Params["transaction_read_only"] = "1"
	}
	if mariadb {
		cfg.Params["max_statement_time"] = strconv.FormatFloat(c.timeout.Seconds(), 'f', 3, 64)
	} else {
		cfg.Params["max_execution_time"] = strconv.FormatInt(c.timeout.Milliseconds(), 10)
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	db := dbsql.OpenDB(conn)
	db.SetMaxIdleConns(4)
	db.SetConnMaxLifetime(30 * time.Minute)
	c.db = db
	d := &dialect{name: "mysql", backslash: true, quoteChar: "`", begin: mysqlBegin}
	if mariadb {
		d.name = "mariadb"
	}
	c.dialect = d
	return nil
}

// mysqlBegin reads the replication position: the GTID set when the server
// keeps GTIDs, else the binary log file and position, else nothing.
func mysqlBegin(ctx context.Context, c *conn, tx *dbsql.Tx, rs *resultSet) error {
	gtidVar := "@@gtid_executed"
	if c.dialect.name == "mariadb" {
		gtidVar = "@@gtid_current_pos"
	}
	var gtid dbsql.NullString
	var logBin int64
	if err := tx.QueryRowContext(ctx, "SELECT "+gtidVar+", @@log_bin").Scan(&gtid, &logBin); err != nil {
		return err
	}
	if gtid.Valid && strings.TrimSpace(gtid.String) != "" {
		v := c.dialect.name + ":gtid:" + strings.ReplaceAll(strings.TrimSpace(gtid.String), "\n", "")
		rs.version = &v
		rs.versionNote = "The version is the server's GTID position when the read began: the data reflects every transaction up to it; re-retrieval at a later position may differ"
		return nil
	}
	if logBin == 1 {
		if pos, ok := binlogPosition(ctx, tx); ok {
			v := c.dialect.name + ":binlog:" + pos
			rs.version = &v
			rs.versionNote = "The version is the server's binary log file and position when the read began (no GTID is in use): re-retrieval at a later position may differ"
			return nil
		}
		rs.versionNote = "No version: the binary log position could not be read (the account may lack the BINLOG MONITOR / REPLICATION CLIENT privilege)"
		return nil
	}
	rs.versionNote = "No version: the server keeps neither GTIDs nor a binary log, so there is no position to pin; the hash is the record"
	return nil
}

// binlogPosition reads SHOW MASTER STATUS (SHOW BINARY LOG STATUS on new
// MySQL) as file:position.
func binlogPosition(ctx context.Context, tx *dbsql.Tx) (string, bool) {
	for _, q := range []string{"SHOW MASTER STATUS", "SHOW BINARY LOG STATUS"} {
		rows, err := tx.QueryContext(ctx, q)
		if err != nil {
			continue
		}
		cols, _ := rows.Columns()
		if !rows.Next() || len(cols) < 2 {
			rows.Close()
			return "", false
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		err = rows.Scan(ptrs...)
		rows.Close()
		if err != nil {
			return "", false
		}
		return fmt.Sprintf("%s:%s", asText(vals[0]), asText(vals[1])), true
	}
	return "", false
}

func asText(v any) string {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case driver.Valuer:
		if dv, err := x.Value(); err == nil {
			return fmt.Sprint(dv)
		}
	}
	return fmt.Sprint(v)
}

// readPG is read for PostgreSQL in one round trip: BEGIN READ ONLY, the
// statement timeout (SET LOCAL) with the WAL position and the snapshot,
// the query and ROLLBACK go as one pipelined batch on a pooled connection;
// pgx's statement cache keeps the statements prepared. After a failure the
// transaction is rolled back, or the connection dropped.
func (c *conn) readPG(ctx context.Context, q string, args []any, maxRows, skip int) (*resultSet, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout+5*time.Second)
	defer cancel()
	sc, err := c.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer sc.Close()
	rs := &resultSet{meta: map[string]any{}, skip: skip}
	err = sc.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		b := &pgx.Batch{}
		b.Queue("BEGIN READ ONLY")
		b.Queue(`SELECT set_config('statement_timeout', $1, true),
		COALESCE((CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END)::text, ''),
		pg_current_snapshot()::text`, strconv.FormatInt(c.timeout.Milliseconds(), 10))
		b.Queue(q, args...)
		b.Queue("ROLLBACK")
		br := pc.SendBatch(ctx, b)
		err := pgBatch(pc, br, rs, maxRows)
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			if _, rerr := pc.Exec(context.WithoutCancel(ctx), "ROLLBACK"); rerr != nil {
				_ = pc.Close(context.WithoutCancel(ctx))
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return rs, nil
}

func pgBatch(pc *pgx.Conn, br pgx.BatchResults, rs *resultSet, maxRows int) error {
	if _, err := br.Exec(); err != nil {
		return err
	}
	var lsn, snap string
	if err := br.QueryRow().Scan(new(string), &lsn, &snap); err != nil {
		return err
	}
	rs.meta["pg_snapshot"] = snap
	if lsn == "" {
		rs.versionNote = "No version: the server reports no WAL position"
	} else {
		v := "postgres:lsn:" + lsn
		rs.version = &v
		rs.versionNote = pgVersionNote
	}
	rows, err := br.Query()
	if err != nil {
		return err
	}
	fds := rows.FieldDescriptions()
	names := make([]string, len(fds))
	types := make([]string, len(fds))
	for i, fd := range fds {
		names[i] = fd.Name
		if t, ok := pc.TypeMap().TypeForOID(fd.DataTypeOID); ok {
			types[i] = t.Name
		}
	}
	rs.setColumns(names, types)
	for rows.Next() {
		if rs.skip > 0 {
			rs.skip--
			continue
		}
		if len(rs.rows) == maxRows {
			rs.truncated = true
			break
		}
		vals, err := rows.Values()
		if err != nil {
			rows.Close()
			return err
		}
		if err := rs.addRow(vals); err != nil {
			rows.Close()
			return err
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	_, err = br.Exec()
	return err
}

const pgVersionNote = "The version is the server's WAL position (LSN) when the read-only transaction began: the data reflects every change committed before it; re-retrieval at a later LSN may differ"
