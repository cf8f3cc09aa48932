// Package postgres is the shared store: the ledger and the snapshots in one
// PostgreSQL database that many `retrieve` processes (replicas of `retrieve
// serve`, CLI runs, CI jobs) use at once. It implements store.Store with the
// same semantics as store/sqlite and passes the same conformance suite,
// store/storetest.
//
// The schema is made of embedded, versioned migrations per component
// (migrations/<component>/NNNN_name.sql), applied in one transaction under a
// transaction-scoped advisory lock, so that replicas starting together
// migrate once and the others wait for it. A schema newer than the binary is
// refused with a hint.
//
// A URL's search_path parameter selects the schema (created when missing);
// pool_max_conns and the other pgxpool parameters size the pool.
package postgres

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"net"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/graph"
)

//go:embed migrations
var migrationFS embed.FS

// DefaultConnectTimeout bounds a connection attempt when the URL sets no
// connect_timeout, so that a request fails with STORE_UNAVAILABLE while
// PostgreSQL is down instead of hanging.
const DefaultConnectTimeout = 5 * time.Second

// DB is an open PostgreSQL store: a connection pool on one schema.
type DB struct {
	pool   *pgxpool.Pool
	schema string // the first schema of search_path, or "" for the server's default
	where  string // the redacted URL, for messages
	// syncAppend: ledger appends wait for the WAL flush, as every commit
	// does by default, unless the URL sets synchronous_commit=off
	// (docs/ledger.md, "Durability on PostgreSQL").
	syncAppend bool
}

// Options control Open.
type Options struct {
	// NoMigrate opens the store without applying migrations (for `retrieve
	// store status`); the default applies them.
	NoMigrate bool
}

// Open connects to the database at rawURL (postgres:// or postgresql://),
// creates the schema named by search_path when missing, and applies the
// migrations of every component unless opts.NoMigrate. Errors never carry
// the password.
func Open(ctx context.Context, rawURL string, opts Options) (*DB, error) {
	where := Redact(rawURL)
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "bad PostgreSQL URL %s", where).
			WithHint("write it as postgres://user@host:5432/dbname?sslmode=require; put the password in PGPASSWORD or ${env:NAME}")
	}
	if u, err := url.Parse(rawURL); err == nil && u.Query().Get("connect_timeout") == "" {
		cfg.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	if u, err := url.Parse(rawURL); err == nil && u.Query().Get("pool_max_conns") == "" {
		cfg.MaxConns = 8
	}
	if cfg.ConnConfig.RuntimeParams["application_name"] == "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = "retrieve"
	}
	schema := ""
	if sp := cfg.ConnConfig.RuntimeParams["search_path"]; sp != "" {
		schema = strings.Trim(strings.TrimSpace(strings.Split(sp, ",")[0]), `"`)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, unavailable(where, "cannot connect to the store", err)
	}
	syncAppend := cfg.ConnConfig.RuntimeParams["synchronous_commit"] != "off"
	db := &DB{pool: pool, schema: schema, where: where, syncAppend: syncAppend}
	if !opts.NoMigrate {
		if err := db.Migrate(ctx); err != nil {
			pool.Close()
			return nil, err
		}
	} else if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, unavailable(where, "cannot connect to the store", err)
	}
	return db, nil
}

// Pool returns the connection pool, for the parts of the store.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// Ping implements store.Pinger: the database answers a round trip.
func (db *DB) Ping(ctx context.Context) error { return db.pool.Ping(ctx) }

// Where returns the redacted URL of the store.
func (db *DB) Where() string { return db.where }

// Close closes the pool.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// Redact returns the URL with its password and any password query
// parameter replaced by "xxxxx", for messages and output.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "postgres://(unparsable URL)"
	}
	q := u.Query()
	changed := false
	for k := range q {
		switch strings.ToLower(k) {
		case "password", "sslpassword":
			q.Set(k, "xxxxx")
			changed = true
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// migration is one embedded migration.
type migration struct {
	version int
	name    string
	sql     string
}

// Components lists the components that have migrations, in the order
// they are applied.
func Components() []string {
	ents, _ := fs.ReadDir(migrationFS, "migrations")
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Slice(out, func(i, j int) bool { return componentOrder(out[i]) < componentOrder(out[j]) })
	return out
}

// componentOrder applies the ledger first, since others may refer to it.
func componentOrder(c string) string {
	if c == "ledger" {
		return ""
	}
	return c
}

// migrations returns the migrations of a component, version 1 first. The
// files are named NNNN_name.sql and numbered from 1 without gaps.
func migrations(component string) ([]migration, error) {
	dir := path.Join("migrations", component)
	ents, err := fs.ReadDir(migrationFS, dir)
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		num, _, _ := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("migration %s/%s: the name does not start with a number", component, e.Name())
		}
		b, err := fs.ReadFile(migrationFS, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("migrations of %s are not numbered 1, 2, 3…: %s", component, m.name)
		}
	}
	return out, nil
}

// goSteps are the parts of migrations that SQL cannot do, run after the
// migration's SQL in its transaction, keyed by component/file.
var goSteps = map[string]func(context.Context, pgx.Tx) error{
	"ledger/0003_redact_urls.sql": redactLedgerURLs,
	"graph/0002_time.sql":         dateGraph,
	"ledger/0004_leaves.sql":      buildLeaves,
}

// dateGraph gives the documents, nodes and edges stored before transaction
// time their document's ingestion date (graph.IngestionTime), a node the
// earliest of its document's and its edges'.
func dateGraph(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, `SELECT id, ingestion_date FROM graph_documents`)
	if err != nil {
		return err
	}
	var ids []string
	var ats []int64
	for rows.Next() {
		var id, date string
		if err := rows.Scan(&id, &date); err != nil {
			rows.Close()
			return err
		}
		ids, ats = append(ids, id), append(ats, graph.IngestionTime(date))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE graph_documents d SET recorded_at = u.at FROM unnest($1::text[], $2::bigint[]) AS u(id, at) WHERE d.id = u.id`, ids, ats); err != nil {
		return err
	}
	for _, q := range []string{
		`UPDATE graph_edges e SET recorded_at = d.recorded_at FROM graph_documents d WHERE d.id = e.source_document`,
		`UPDATE graph_nodes n SET recorded_at = d.recorded_at FROM graph_documents d WHERE d.id = n.source_document`,
		`UPDATE graph_nodes n SET recorded_at = least(n.recorded_at,
			coalesce((SELECT min(recorded_at) FROM graph_edges WHERE source = n.id), n.recorded_at),
			coalesce((SELECT min(recorded_at) FROM graph_edges WHERE target = n.id), n.recorded_at))`,
	} {
		if _, err := tx.Exec(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// redactLedgerURLs rewrites the ledger rows that hold a URL with
// credentials (retrieve.RedactText, retrieve.RedactRecordedJSON).
func redactLedgerURLs(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, `SELECT id, target, reference, request, result FROM ledger
		WHERE position('://' in target) > 0 OR position('://' in reference) > 0
		OR position('\x3a2f2f'::bytea in request) > 0 OR position('\x3a2f2f'::bytea in result) > 0`)
	if err != nil {
		return err
	}
	type row struct {
		id, target, reference string
		request, result       []byte
	}
	var changed []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.target, &r.reference, &r.request, &r.result); err != nil {
			rows.Close()
			return err
		}
		n := row{id: r.id, target: retrieve.RedactText(r.target), reference: retrieve.RedactText(r.reference),
			request: retrieve.RedactRecordedJSON(r.request), result: retrieve.RedactRecordedJSON(r.result)}
		if n.target != r.target || n.reference != r.reference || !bytes.Equal(n.request, r.request) || !bytes.Equal(n.result, r.result) {
			changed = append(changed, n)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range changed {
		if _, err := tx.Exec(ctx, `UPDATE ledger SET target = $2, reference = $3, request = $4, result = $5 WHERE id = $1`,
			r.id, r.target, r.reference, r.request, r.result); err != nil {
			return err
		}
	}
	return nil
}

// lockKey is the advisory lock that serialises migrations of one schema.
func (db *DB) lockKey() int64 {
	h := fnv.New64a()
	h.Write([]byte("retrieve migrate " + db.schema))
	return int64(h.Sum64())
}

// Migrate applies every component's pending migrations in one transaction
// under an advisory lock: replicas that start at once wait for the first
// and then find nothing to do. A component whose stored version is newer
// than this binary knows is refused with STORE_UNAVAILABLE and a hint.
func (db *DB) Migrate(ctx context.Context) error {
	_, err := db.migrate(ctx)
	return err
}

// MigrateReport is like Migrate and returns the migrations it applied, as
// "component/NNNN_name.sql".
func (db *DB) MigrateReport(ctx context.Context) ([]string, error) { return db.migrate(ctx) }

func (db *DB) migrate(ctx context.Context) ([]string, error) {
	// The common case, a store already at this binary's version, needs no
	// lock and no write, so replicas start fast and a read-only standby
	// opens.
	if vs, err := db.Versions(ctx); err == nil {
		current := true
		for _, v := range vs {
			if v.Version > v.Latest {
				return nil, tooNew(db.where, v.Component, v.Version, v.Latest)
			}
			current = current && v.Version == v.Latest
		}
		if current {
			return nil, nil
		}
	} else if retrieve.ErrorCode(err) == retrieve.CodeStoreUnavailable && connectionLost(errors.Unwrap(err)) {
		return nil, err
	}
	var applied []string
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, db.lockKey()); err != nil {
			return err
		}
		if db.schema != "" {
			if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{db.schema}.Sanitize()); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			component text NOT NULL,
			version integer NOT NULL,
			name text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now(),
			PRIMARY KEY (component, version))`); err != nil {
			return err
		}
		for _, c := range Components() {
			ms, err := migrations(c)
			if err != nil {
				return retrieve.Errorf(retrieve.CodeInternal, "embedded migrations are broken").WithErr(err)
			}
			var current int
			if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations WHERE component = $1`, c).Scan(&current); err != nil {
				return err
			}
			if current > len(ms) {
				return tooNew(db.where, c, current, len(ms))
			}
			for _, m := range ms[current:] {
				if _, err := tx.Exec(ctx, m.sql); err != nil {
					return fmt.Errorf("migrate %s to version %d (%s): %w", c, m.version, m.name, err)
				}
				if step := goSteps[c+"/"+m.name]; step != nil {
					if err := step(ctx, tx); err != nil {
						return fmt.Errorf("migrate %s to version %d (%s): %w", c, m.version, m.name, err)
					}
				}
				if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (component, version, name) VALUES ($1, $2, $3)`, c, m.version, m.name); err != nil {
					return err
				}
				applied = append(applied, c+"/"+m.name)
			}
		}
		return nil
	})
	if err != nil {
		return nil, wrap(db.where, "cannot migrate the store", err)
	}
	return applied, nil
}

func tooNew(where, component string, have, know int) error {
	return retrieve.Errorf(retrieve.CodeStoreUnavailable, "the %s schema of %s is version %d, newer than this retrieve knows (%d)", component, where, have, know).
		WithHint("upgrade retrieve to the version the other replicas run, or point it at another store")
}

// ComponentStatus is the schema version of one component.
type ComponentStatus struct {
	Component string `json:"component"`
	Version   int    `json:"version"` // applied
	Latest    int    `json:"latest"`  // known to this binary
}

// Versions returns the applied and known schema version of every
// component, without migrating.
func (db *DB) Versions(ctx context.Context) ([]ComponentStatus, error) {
	var out []ComponentStatus
	var exists bool
	if err := db.pool.QueryRow(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return nil, wrap(db.where, "cannot read the store", err)
	}
	for _, c := range Components() {
		ms, err := migrations(c)
		if err != nil {
			return nil, err
		}
		st := ComponentStatus{Component: c, Latest: len(ms)}
		if exists {
			if err := db.pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations WHERE component = $1`, c).Scan(&st.Version); err != nil {
				return nil, wrap(db.where, "cannot read the store", err)
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// unavailable is a STORE_UNAVAILABLE error about the store at where.
func unavailable(where, msg string, err error) error {
	return retrieve.Errorf(retrieve.CodeStoreUnavailable, "%s: %s", msg, where).
		WithHint("%s", hintFor(err)).WithErr(err)
}

// wrap passes retrieve errors through and makes the others STORE_UNAVAILABLE.
func wrap(where, msg string, err error) error {
	var re *retrieve.Error
	if errors.As(err, &re) {
		return err
	}
	if errors.Is(err, context.Canceled) {
		return retrieve.Errorf(retrieve.CodeCanceled, "%s: canceled", msg).WithErr(err)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "53100" || retrieve.IsDiskFull(err) {
		return retrieve.DiskFullError("the PostgreSQL store "+where, err)
	}
	return unavailable(where, msg, err)
}

func hintFor(err error) string {
	var pe *pgconn.PgError
	var ne net.Error
	switch {
	case errors.As(err, &pe) && pe.Code == "28P01", errors.As(err, &pe) && pe.Code == "28000":
		return "PostgreSQL refused the credentials: check the user and PGPASSWORD (or the ${env:NAME} in the store URL)"
	case errors.As(err, &pe) && pe.Code == "3D000":
		return "the database does not exist: create it (createdb) or fix the URL"
	case errors.As(err, &pe) && pe.Code == "42501":
		return "the user lacks a privilege: grant it CREATE on the schema, or run `retrieve store migrate` as the owner"
	case errors.As(err, &pe):
		return "PostgreSQL refused the statement (" + pe.Code + "); check the server log"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "PostgreSQL did not answer in time: check that it is up and reachable; requests resume on their own when it is back"
	default:
		return "check that PostgreSQL is up and reachable at the URL; requests resume on their own when it is back"
	}
}
