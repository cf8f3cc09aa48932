// Package sqlite is the embedded store: one SQLite file
// (.retrieve/retrieve.db by default) in WAL mode, on the pure-Go
// modernc.org/sqlite driver. Each part of the store (ledger, snapshots,
// memory index, graph, wiki index) keeps its own versioned migrations,
// applied on open.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// DB is an open store file.
type DB struct {
	db   *sql.DB
	path string
	// versions holds each component's schema version as read at open:
	// Migrate starts no write transaction for a component that is current.
	versions map[string]int
	// leaveWAL is set for a short-lived process (LeaveWAL).
	leaveWAL bool
}

// BusyTimeout is how long a writer waits for another process's lock before
// SQLite gives up; concurrent CLI processes rely on it.
const BusyTimeout = 30 * time.Second

// Open opens (creating it and its directory when missing) the SQLite store
// at path. A file that is not a SQLite database gives STORE_UNAVAILABLE
// with a hint, never a panic.
func Open(ctx context.Context, path string) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, storeErr(path, "cannot create the store directory", err)
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	// With the WAL kept (persistWAL), a WAL that a large transaction grew
	// is cut back to this size when a checkpoint restarts it, and to zero
	// bytes by the checkpoint of the last connection's close.
	q.Add("_pragma", fmt.Sprintf("journal_size_limit(%d)", walSizeLimit))
	q.Set("_txlock", "immediate")
	dsn := "file:" + uriPath(path) + "?" + q.Encode()
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, storeErr(path, "cannot open the store", err)
	}
	sdb := sql.OpenDB(persistWAL{c})
	sdb.SetMaxOpenConns(8)
	db := &DB{db: sdb, path: path}
	if err := db.check(ctx); err != nil {
		sdb.Close()
		return nil, err
	}
	return db, nil
}

// uriPath escapes the characters that a SQLite URI filename reads as
// syntax: '?' starts the query, '#' the fragment and '%' an escape. Left
// as they are, a store under a directory named "notes#2" opened the file
// "notes" beside it.
var uriPath = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace

// walSizeLimit is the store's PRAGMA journal_size_limit.
const walSizeLimit = 4 << 20

// persistWAL opens connections whose last close keeps the -wal and -shm
// files (SQLITE_FCNTL_PERSIST_WAL) instead of deleting them. That close
// still checkpoints the WAL into the database with its fsyncs, as
// before; it then truncates the WAL to zero bytes (journal_size_limit >=
// 0) rather than unlinking it, so the next CLI run does not create the
// WAL and the -shm files again (a file creation, an unlink and a fsync
// of the directory saved per run; docs/ledger.md "Durability").
type persistWAL struct{ driver.Connector }

func (p persistWAL) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := p.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if fc, ok := conn.(sqlite.FileControl); ok {
		if _, err := fc.FileControlPersistWAL("main", 1); err != nil {
			conn.Close()
			return nil, fmt.Errorf("keep the WAL file: %w", err)
		}
	}
	return conn, nil
}

func (db *DB) check(ctx context.Context) error {
	// One read gives both answers on an existing store: the file is a
	// readable SQLite database, and the version of each component.
	versions := map[string]int{}
	noTable := false
	err := retry(ctx, func() error {
		clear(versions)
		noTable = false
		rows, err := db.db.QueryContext(ctx, `SELECT component, max(version) FROM schema_migrations GROUP BY component`)
		if err != nil {
			if strings.Contains(err.Error(), "no such table") {
				noTable = true
				return nil
			}
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c string
			var v int
			if err := rows.Scan(&c, &v); err != nil {
				return err
			}
			versions[c] = v
		}
		return rows.Err()
	})
	if err != nil {
		return storeErr(db.path, "the store file is not a readable SQLite database", err)
	}
	db.versions = versions
	if !noTable {
		return nil
	}
	_, err = db.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		component TEXT NOT NULL,
		version INTEGER NOT NULL,
		applied_at TEXT NOT NULL,
		PRIMARY KEY (component, version))`)
	if err != nil {
		return storeErr(db.path, "cannot write the store", err)
	}
	return nil
}

func storeErr(path, msg string, err error) error {
	if retrieve.IsDiskFull(err) || diskIOError(err) && nearlyFull(filepath.Dir(path)) {
		// Not a damaged store: moving it away would lose a healthy ledger.
		// (A full disk often shows as SQLITE_IOERR: the WAL index cannot
		// grow.)
		return retrieve.DiskFullError(path, err)
	}
	m := strings.ToLower(err.Error())
	var hint string
	switch {
	case errors.Is(err, os.ErrPermission) || strings.Contains(m, "readonly"):
		hint = "the store is read-only: check the permissions of " + filepath.Dir(path)
	case strings.Contains(m, "not a database") || strings.Contains(m, "malformed"):
		hint = "the file is not a SQLite database or is damaged: keep a copy, then move it away to start a new store (retrieve recreates it)"
	case diskIOError(err):
		hint = "the disk reported an I/O error: check the disk and its free space; the store is not known to be damaged (sqlite3 FILE 'PRAGMA integrity_check')"
	default:
		hint = "check the file and the disk that holds it; `retrieve store status` reports on the store"
	}
	return retrieve.Errorf(retrieve.CodeStoreUnavailable, "%s: %s", msg, path).WithHint("%s", hint).WithErr(err)
}

// diskIOError reports a SQLITE_IOERR (any extended code).
func diskIOError(err error) bool {
	return strings.Contains(strings.ToLower(err.Error()), "disk i/o error")
}

// nearlyFull reports whether the file system that holds dir has less than
// 1 MiB left.
func nearlyFull(dir string) bool {
	free, ok := freeBytes(dir)
	return ok && free < 1<<20
}

// SQL returns the database handle, for the parts of the store.
func (db *DB) SQL() *sql.DB { return db.db }

// Ping implements store.Pinger: the database file answers a query.
func (db *DB) Ping(ctx context.Context) error {
	var one int
	return db.db.QueryRowContext(ctx, `SELECT 1`).Scan(&one)
}

// Path returns the file path of the store.
func (db *DB) Path() string { return db.path }

// Close closes the store.
func (db *DB) Close() error {
	if db.leaveWAL && walBelow(db.path, leaveWALMax) {
		// The process exits next: its connections end with it, and the
		// next opener reads the WAL back (as after a kill).
		return nil
	}
	return db.db.Close()
}

// LeaveWAL is for a process that closes the store and exits (a CLI
// command): its Close leaves the WAL to the next opener instead of
// checkpointing it into the database, while the WAL is under leaveWALMax.
// The close of the last connection checkpoints the WAL with two fsyncs,
// and the next write starts the WAL again with a third (and a fsync of
// the directory): a recorded `get` paid four fsyncs to commit nothing
// more durably than its commit in the WAL already was (synchronous =
// NORMAL: it survives a killed process, not a power cut, docs/ledger.md
// "Durability"). Left, the WAL is read back by the next opener (about
// 0.3 ms of CPU per 512 KiB), and the close that finds it over
// leaveWALMax checkpoints it as before: one run in about fifteen.
func (db *DB) LeaveWAL() { db.leaveWAL = true }

// leaveWALMax is the size of the WAL from which a short-lived process's
// Close checkpoints it (LeaveWAL).
const leaveWALMax = 512 << 10

// walBelow reports whether the WAL of the database at path is smaller than
// max bytes (or absent).
func walBelow(path string, max int64) bool {
	fi, err := os.Stat(path + "-wal")
	return err != nil || fi.Size() < max
}

// Migrate applies the migrations of one component that are not applied yet,
// each in its own transaction. migrations[i] is version i+1. A store that
// has a version newer than the binary knows is refused with a hint.
func (db *DB) Migrate(ctx context.Context, component string, migrations []string) error {
	if v, ok := db.versions[component]; ok && v == len(migrations) {
		// Current when the store was opened; a later migration by a newer
		// binary is refused at the next open, as before.
		return nil
	}
	return retry(ctx, func() error {
		tx, err := db.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		var current int
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations WHERE component = ?`, component).Scan(&current); err != nil {
			return err
		}
		if current > len(migrations) {
			return retrieve.Errorf(retrieve.CodeStoreUnavailable, "the %s schema of %s is version %d, newer than this retrieve knows (%d)", component, db.path, current, len(migrations)).
				WithHint("upgrade retrieve, or point it at another store")
		}
		for v := current + 1; v <= len(migrations); v++ {
			if _, err := tx.ExecContext(ctx, migrations[v-1]); err != nil {
				return fmt.Errorf("migrate %s to version %d: %w", component, v, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (component, version, applied_at) VALUES (?, ?, ?)`,
				component, v, time.Now().UTC().Format(time.RFC3339)); err != nil {
				return err
			}
		}
		return tx.Commit()
	})
}

// retry runs fn again while SQLite reports the database busy or locked
// beyond the busy timeout (which WAL checkpoints can cause), up to the
// context's end.
func retry(ctx context.Context, fn func() error) error {
	delay := 5 * time.Millisecond
	for attempt := 0; ; attempt++ {
		err := fn()
		if err == nil || !isBusy(err) || attempt >= 20 {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(delay):
		}
		delay = min(delay*2, 500*time.Millisecond)
	}
}

// Retry is retry for the parts of the store.
func Retry(ctx context.Context, fn func() error) error { return retry(ctx, fn) }

// isBusy reports whether err is the driver's SQLITE_BUSY, whatever its
// extended code (SQLITE_BUSY_SNAPSHOT is 517 = 5 | 2<<8): another
// connection holds the lock, and the statement may be tried again.
func isBusy(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_BUSY
}
