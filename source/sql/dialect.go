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
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/retrieve-dev/retrieve"
	_ "modernc.org/sqlite" // the sqlite driver
)

var envRef = regexp.MustCompile(`\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}`)

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
	db, err := dbsql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	db.SetMaxIdleConns(4)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return err
	}
	c.db = db
	c.dialect = &dialect{name: "postgres", quoteChar: `"`, dollar: true, begin: pgBegin}
	return nil
}

var _ = stdlib.GetDefaultDriver

// pgBegin sets the statement timeout of the transaction and reads the WAL
// position and the snapshot, in one round trip.
func pgBegin(ctx context.Context, c *conn, tx *dbsql.Tx, rs *resultSet) error {
	var lsn, snap string
	ms := strconv.FormatInt(c.timeout.Milliseconds(), 10)
	err := tx.QueryRowContext(ctx, `SELECT set_config('statement_timeout', $1, true),
		COALESCE((CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END)::text, ''),
		pg_current_snapshot()::text`, ms).Scan(new(string), &lsn, &snap)
	if err != nil {
		return err
	}
	rs.meta["pg_snapshot"] = snap
	if lsn == "" {
		rs.versionNote = "No version: the server reports no WAL position"
		return nil
	}
	v := "postgres:lsn:" + lsn
	rs.version = &v
	rs.versionNote = "The version is the server's WAL position (LSN) when the read-only transaction began: the data reflects every change committed before it; re-retrieval at a later LSN may differ"
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
