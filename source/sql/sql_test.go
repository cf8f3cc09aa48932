package sql

import (
	"context"
	"crypto/sha256"
	dbsql "database/sql"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// engineCase is one database under test: a read-write handle for setup
// and checksums, and the connection retrieve uses.
type engineCase struct {
	name   string
	rw     *dbsql.DB
	conn   config.Connection
	schema []string // setup statements
	// attacks specific to the engine
	attacks []string
	// timeouts are reads that run past the statement timeout
	timeouts []string
}

const commonAttacks = `SELECT 1; DROP TABLE gitsql_t
COMMIT; DELETE FROM gitsql_t
SET TRANSACTION READ WRITE
DELETE FROM gitsql_t
UPDATE gitsql_t SET name = 'x'
INSERT INTO gitsql_t (id, name) VALUES (99, 'x')
DROP TABLE gitsql_t
CALL gitsql_writer()`

func engines(t *testing.T) []engineCase {
	t.Helper()
	var out []engineCase
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "gitsql.db")
	lite, err := dbsql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lite.Close() })
	out = append(out, engineCase{
		name: "sqlite", rw: lite,
		conn: config.Connection{Driver: "sqlite", DSN: dbPath, Timeout: "1s"},
		schema: []string{
			`CREATE TABLE gitsql_t (id INTEGER PRIMARY KEY, name TEXT, code TEXT, updated_at TIMESTAMP)`,
			`CREATE TABLE gitsql_types (id INTEGER PRIMARY KEY, i INTEGER, big INTEGER, r REAL, t TEXT, b BLOB, d DATE, ts TIMESTAMP, flag BOOLEAN, n NUMERIC, empty_col TEXT)`,
			`INSERT INTO gitsql_types VALUES (1, -42, 9007199254740993, 2.5, 'Grüße ✓', x'00ff10', '2024-02-29', '2024-02-29 13:14:15', 1, 3.25, NULL)`,
		},
		attacks: []string{
			"WITH d AS (SELECT 1) DELETE FROM gitsql_t",
			"ATTACH DATABASE '" + filepath.Join(dir, "other.db") + "' AS o",
			"SELECT * FROM gitsql_t WHERE 1 = load_extension('x')",
			"PRAGMA query_only = 0",
		},
		timeouts: []string{
			"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
		},
	})
	if dsn := os.Getenv("RETRIEVE_TEST_POSTGRES"); dsn != "" {
		db, err := dbsql.Open("pgx", dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		out = append(out, engineCase{
			name: "postgres", rw: db,
			conn: config.Connection{Driver: "postgres", DSN: dsn, Timeout: "1s"},
			schema: []string{
				`DROP TABLE IF EXISTS gitsql_t, gitsql_types`,
				`DROP SEQUENCE IF EXISTS gitsql_seq`,
				`CREATE SEQUENCE gitsql_seq`,
				`CREATE TABLE gitsql_t (id INT PRIMARY KEY, name TEXT, code TEXT, updated_at TIMESTAMPTZ)`,
				`CREATE TABLE gitsql_types (id INT PRIMARY KEY, i INT, big BIGINT, r DOUBLE PRECISION, t TEXT, b BYTEA, d DATE, ts TIMESTAMPTZ, flag BOOLEAN, n NUMERIC(40,12), empty_col TEXT, u UUID, j JSONB, small SMALLINT, ts0 TIMESTAMP)`,
				`INSERT INTO gitsql_types VALUES (1, -42, 9007199254740993, 2.5, 'Grüße ✓', '\x00ff10', '2024-02-29', '2024-02-29T13:14:15.5Z', true, 1234567890123456789012.123456789012, NULL, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"k": [1, 2]}', 7, '2024-02-29 13:14:15')`,
				`CREATE OR REPLACE PROCEDURE gitsql_writer() LANGUAGE SQL AS $$ DELETE FROM gitsql_t $$`,
			},
			attacks: []string{
				"WITH d AS (DELETE FROM gitsql_t RETURNING *) SELECT * FROM d",
				"SELECT pg_sleep(100)",
				"COPY gitsql_t TO PROGRAM 'id'",
				"SELECT nextval('gitsql_seq')",
				"SELECT pg_read_file('/etc/passwd')",
				"SELECT set_config('transaction_read_only', 'off', true)",
				"SELECT 1 $$;$$; DELETE FROM gitsql_t",
			},
			timeouts: []string{
				"SELECT count(*) FROM generate_series(1, 1000000000)",
			},
		})
	} else {
		if os.Getenv("CI") != "" {
			t.Fatal("RETRIEVE_TEST_POSTGRES is unset under CI: the PostgreSQL cases must run")
		}
		t.Log("RETRIEVE_TEST_POSTGRES is unset: PostgreSQL cases skipped (CI sets it)")
	}
	if dsn := os.Getenv("RETRIEVE_TEST_MYSQL"); dsn != "" {
		db, err := dbsql.Open("mysql", dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		out = append(out, engineCase{
			name: "mysql", rw: db,
			conn: config.Connection{Driver: "mysql", DSN: dsn, Timeout: "1s"},
			schema: []string{
				`DROP TABLE IF EXISTS gitsql_t, gitsql_types`,
				`DROP PROCEDURE IF EXISTS gitsql_writer`,
				`CREATE TABLE gitsql_t (id INT PRIMARY KEY, name VARCHAR(100), code VARCHAR(100), updated_at DATETIME(6)) CHARACTER SET utf8mb4`,
				`CREATE TABLE gitsql_types (id INT PRIMARY KEY, i INT, big BIGINT UNSIGNED, r DOUBLE, t VARCHAR(50), b VARBINARY(10), d DATE, ts DATETIME(3), flag BOOLEAN, n DECIMAL(40,12), empty_col TEXT, small SMALLINT, fl FLOAT, tx TEXT, bl BLOB) CHARACTER SET utf8mb4`,
				`INSERT INTO gitsql_types VALUES (1, -42, 18446744073709551615, 2.5, 'Grüße ✓', x'00ff10', '2024-02-29', '2024-02-29 13:14:15.500', true, 1234567890123456789012.123456789012, NULL, 7, 0.5, 'long text', x'01')`,
				`CREATE PROCEDURE gitsql_writer() MODIFIES SQL DATA DELETE FROM gitsql_t`,
			},
			attacks: []string{
				"SELECT * FROM gitsql_t INTO OUTFILE '/tmp/gitsql_outfile'",
				"SELECT LOAD_FILE('/etc/passwd')",
				"SELECT SLEEP(100)",
				"WITH d AS (SELECT 1) DELETE FROM gitsql_t",
			},
			timeouts: []string{
				"SELECT COUNT(*) FROM information_schema.columns a, information_schema.columns b, information_schema.columns c",
			},
		})
	} else {
		if os.Getenv("CI") != "" {
			t.Fatal("RETRIEVE_TEST_MYSQL is unset under CI: the MariaDB/MySQL cases must run")
		}
		t.Log("RETRIEVE_TEST_MYSQL is unset: MariaDB/MySQL cases skipped (CI sets it)")
	}
	for _, ec := range out {
		for _, s := range ec.schema {
			if _, err := ec.rw.Exec(s); err != nil {
				t.Fatalf("%s setup %q: %v", ec.name, s, err)
			}
		}
		ph := func(n int) string {
			if ec.name == "postgres" {
				return fmt.Sprintf("$%d", n)
			}
			return "?"
		}
		for _, r := range [][]any{
			{1, "Ada", "A-1", "2024-01-01 10:00:00"},
			{2, "Zoë ✓ 東京", "Z-2", "2024-03-01 10:00:00"},
			{3, nil, nil, nil},
			{4, "Bob", "B-4", "2024-02-01 10:00:00"},
		} {
			if _, err := ec.rw.Exec(fmt.Sprintf("INSERT INTO gitsql_t (id, name, code, updated_at) VALUES (%s, %s, %s, %s)", ph(1), ph(2), ph(3), ph(4)), r...); err != nil {
				t.Fatalf("%s insert: %v", ec.name, err)
			}
		}
	}
	return out
}

// checksum hashes every row of the test tables.
func checksum(t *testing.T, db *dbsql.DB) string {
	t.Helper()
	h := sha256.New()
	for _, tbl := range []string{"gitsql_t", "gitsql_types"} {
		rows, err := db.Query("SELECT * FROM " + tbl + " ORDER BY id")
		if err != nil {
			t.Fatalf("checksum %s: %v", tbl, err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		n := 0
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(h, "%v\n", vals)
			n++
		}
		rows.Close()
		fmt.Fprintf(h, "%s:%d\n", tbl, n)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func newSource(t *testing.T, ec engineCase) (*Source, *engine.Engine) {
	t.Helper()
	s := New(Options{Root: t.TempDir(), Connections: map[string]config.Connection{"db": ec.conn}})
	t.Cleanup(func() { s.Close() })
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{s}})
	if err != nil {
		t.Fatal(err)
	}
	return s, e
}

func retrieveOK(t *testing.T, e *engine.Engine, req retrieve.Request) *retrieve.Result {
	t.Helper()
	res, err := e.Retrieve(context.Background(), req)
	check(t, res)
	if err != nil {
		t.Fatalf("%s: %v", req.Target, err)
	}
	return res
}

func check(t *testing.T, res *retrieve.Result) {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	contracttest.Check(t, b)
}

func rowsOf(t *testing.T, res *retrieve.Result) []map[string]any {
	t.Helper()
	b, _ := json.Marshal(res.Retrieved.Data)
	var rows []map[string]any
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatalf("data is not rows: %v", err)
	}
	return rows
}

func TestAttacksRefusedDataUnchanged(t *testing.T) {
	for _, ec := range engines(t) {
		t.Run(ec.name, func(t *testing.T) {
			_, e := newSource(t, ec)
			before := checksum(t, ec.rw)
			attacks := append(strings.Split(commonAttacks, "\n"), ec.attacks...)
			for _, q := range attacks {
				res, err := e.Retrieve(context.Background(), retrieve.Request{Target: "sql:db", Constraints: retrieve.Constraints{Query: q}})
				check(t, res)
				if code := retrieve.ErrorCode(err); code != retrieve.CodeQueryRejected {
					t.Errorf("%q: code %s (%v), want QUERY_REJECTED", q, code, err)
				}
			}
			for _, q := range ec.timeouts {
				res, err := e.Retrieve(context.Background(), retrieve.Request{Target: "sql:db", Constraints: retrieve.Constraints{Query: q}})
				check(t, res)
				if code := retrieve.ErrorCode(err); code != retrieve.CodeTimeout || res.Retrieved.Data != nil || res.Retrieved.Complete {
					t.Errorf("%q: code %s (%v), data %v, want TIMEOUT and no data", q, code, err, res.Retrieved.Data)
				}
			}
			if after := checksum(t, ec.rw); after != before {
				t.Fatalf("the data changed")
			}
		})
	}
}

// TestDatabaseEnforcesReadOnly bypasses the statement check: the read-only
// transaction alone must refuse every write.
func TestDatabaseEnforcesReadOnly(t *testing.T) {
	for _, ec := range engines(t) {
		t.Run(ec.name, func(t *testing.T) {
			s, _ := newSource(t, ec)
			c, err := s.conn(context.Background(), "db")
			if err != nil {
				t.Fatal(err)
			}
			before := checksum(t, ec.rw)
			for _, q := range []string{"DELETE FROM gitsql_t", "UPDATE gitsql_t SET name = 'x'", "INSERT INTO gitsql_t (id) VALUES (77)", "DROP TABLE gitsql_t", "CREATE TABLE gitsql_new (x INT)"} {
				_, err := c.read(context.Background(), q, nil, 10, 0)
				if err == nil {
					t.Errorf("%q: the database accepted it", q)
					continue
				}
				if code := retrieve.ErrorCode(c.mapError(context.Background(), Target{}, err)); code != retrieve.CodeQueryRejected {
					t.Errorf("%q: mapped to %s (%v)", q, code, err)
				}
			}
			if ec.name != "sqlite" {
				if _, err := c.read(context.Background(), "CALL gitsql_writer()", nil, 10, 0); err == nil {
					t.Errorf("CALL of a writing procedure was accepted")
				}
			}
			if after := checksum(t, ec.rw); after != before {
				t.Fatalf("the data changed")
			}
		})
	}
}

func TestRecords(t *testing.T) {
	for _, ec := range engines(t) {
		t.Run(ec.name, func(t *testing.T) {
			_, e := newSource(t, ec)
			res := retrieveOK(t, e, retrieve.Request{Target: "sql:db/gitsql_t?name=Zo%C3%AB%20%E2%9C%93%20%E6%9D%B1%E4%BA%AC"})
			rows := rowsOf(t, res)
			if len(rows) != 1 || rows[0]["id"] != float64(2) || rows[0]["name"] != "Zoë ✓ 東京" {
				t.Fatalf("rows %v", rows)
			}
			if res.Citation.Reference != "sql:db/gitsql_t?name=Zoë%20✓%20東京" {
				t.Errorf("reference %s", res.Citation.Reference)
			}
			again := retrieveOK(t, e, retrieve.CitationRequest(res))
			if *again.Citation.Hash != *res.Citation.Hash {
				t.Errorf("the reference does not re-retrieve the same rows")
			}
			if res.Citation.Authority != retrieve.AuthorityHigh || res.Provenance.SourceType != "database" {
				t.Errorf("authority %s source %s", res.Citation.Authority, res.Provenance.SourceType)
			}
			if res.Citation.Version == nil && !strings.Contains(strings.Join(res.Assumptions, " "), "No version") {
				t.Errorf("no version and no assumption saying why: %v", res.Assumptions)
			}
			// NULL key and several keys.
			res = retrieveOK(t, e, retrieve.Request{Target: "sql:db/gitsql_t?name&id=3"})
			if rows := rowsOf(t, res); len(rows) != 1 || rows[0]["id"] != float64(3) || rows[0]["name"] != nil {
				t.Errorf("null key rows %v", rows)
			}
			// Typed errors.
			for target, code := range map[string]retrieve.Code{
				"sql:db/gitsql_t?id=999":       retrieve.CodeNotFound,
				"sql:db/gitsql_nosuch?id=1":    retrieve.CodeNotFound,
				"sql:db/gitsql_t?nosuchcol=1":  retrieve.CodeNotFound,
				"sql:nosuchconn/gitsql_t?id=1": retrieve.CodeNotFound,
				"sql:db/gitsql_t":              retrieve.CodeInputValidation,
				"sql:db/gitsql_t?id=1&id=2":    retrieve.CodeInputValidation,
				`sql:db/gitsql_t";drop?id=1`:   retrieve.CodeInputValidation,
			} {
				res, err := e.Retrieve(context.Background(), retrieve.Request{Target: target})
				check(t, res)
				ae := retrieve.AsError(err)
				if ae == nil || ae.Code != code {
					t.Errorf("%s: %v, want %s", target, err, code)
					continue
				}
				if ae.Hint == "" {
					t.Errorf("%s: no hint", target)
				}
				if strings.Contains(target, "nosuch") && len(ae.Alternatives) == 0 {
					t.Errorf("%s: no alternatives", target)
				}
			}
		})
	}
}

func TestQueries(t *testing.T) {
	for _, ec := range engines(t) {
		t.Run(ec.name, func(t *testing.T) {
			_, e := newSource(t, ec)
			q := "SELECT id, name FROM gitsql_t WHERE id >= ? ORDER BY id"
			if ec.name == "postgres" {
				q = strings.Replace(q, "?", "$1", 1)
			}
			res := retrieveOK(t, e, retrieve.Request{Target: "sql:db", Constraints: retrieve.Constraints{Query: q, Params: []string{"2"}, MaxRows: 2}})
			rows := rowsOf(t, res)
			if len(rows) != 2 || rows[0]["id"] != float64(2) || rows[1]["id"] != float64(3) {
				t.Fatalf("rows %v", rows)
			}
			if !res.Extraction.Truncated || res.Retrieved.Complete {
				t.Errorf("row cap not reported: truncated %v complete %v", res.Extraction.Truncated, res.Retrieved.Complete)
			}
			// Ordered and cut: the reference names the rows returned.
			if res.Citation.Reference != "sql:db#"+QueryHash(q)+"#rows=1-2" || res.Extraction.Next == nil || *res.Extraction.Next != "sql:db#"+QueryHash(q)+"#rows=3-" {
				t.Errorf("reference %s", res.Citation.Reference)
			}
			if res.Extraction.AppliedFilters["query"] != q {
				t.Errorf("applied filters %v", res.Extraction.AppliedFilters)
			}
			// The citation re-retrieves the same rows, also from JSON.
			b, _ := json.Marshal(res)
			var decoded retrieve.Result
			if err := json.Unmarshal(b, &decoded); err != nil {
				t.Fatal(err)
			}
			again := retrieveOK(t, e, retrieve.CitationRequest(&decoded))
			if *again.Citation.Hash != *res.Citation.Hash {
				t.Errorf("re-retrieval differs")
			}
			// Another query under the cited hash is refused.
			_, err := e.Retrieve(context.Background(), retrieve.Request{Target: res.Citation.Reference, Constraints: retrieve.Constraints{Query: "SELECT 2"}})
			if retrieve.ErrorCode(err) != retrieve.CodeInputValidation {
				t.Errorf("mismatched query hash: %v", err)
			}
			// A query that hits no column.
			_, err = e.Retrieve(context.Background(), retrieve.Request{Target: "sql:db", Constraints: retrieve.Constraints{Query: "SELECT nosuchcol FROM gitsql_t"}})
			if retrieve.ErrorCode(err) != retrieve.CodeNotFound {
				t.Errorf("missing column: %v", err)
			}
		})
	}
}

func TestLastModifiedAndAuthority(t *testing.T) {
	ec := engines(t)[0]
	ec.conn.UpdatedColumn = "updated_at"
	ec.conn.Authority = "medium"
	_, e := newSource(t, ec)
	res := retrieveOK(t, e, retrieve.Request{Target: "sql:db", Constraints: retrieve.Constraints{Query: "SELECT * FROM gitsql_t"}})
	if res.Provenance.LastModified == nil || *res.Provenance.LastModified != "2024-03-01T10:00:00Z" {
		t.Errorf("last_modified %v", res.Provenance.LastModified)
	}
	if res.Citation.Authority != retrieve.AuthorityMedium {
		t.Errorf("authority %s", res.Citation.Authority)
	}
}

func TestTypeFidelity(t *testing.T) {
	for _, ec := range engines(t) {
		t.Run(ec.name, func(t *testing.T) {
			_, e := newSource(t, ec)
			res := retrieveOK(t, e, retrieve.Request{Target: "sql:db/gitsql_types?id=1"})
			got := map[string]any{"rows": res.Retrieved.Data, "columns": res.Provenance.Metadata["columns"], "column_types": res.Provenance.Metadata["column_types"]}
			b, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			name := ec.name
			if name == "mysql" {
				name = c2name(t, e)
			}
			golden := filepath.Join("testdata", "types_"+name+".golden.json")
			if *update {
				if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if d := cmp.Diff(strings.TrimSpace(string(want)), string(b)); d != "" {
				t.Errorf("types differ from %s (-want +got):\n%s", golden, d)
			}
		})
	}
}

// c2name tells MariaDB from MySQL, whose type names differ.
func c2name(t *testing.T, e *engine.Engine) string {
	res := retrieveOK(t, e, retrieve.Request{Target: "sql:db", Constraints: retrieve.Constraints{Query: "SELECT VERSION() AS v"}})
	if strings.Contains(strings.ToLower(fmt.Sprint(res.Retrieved.Data)), "mariadb") {
		return "mariadb"
	}
	return "mysql"
}

func TestSecretsNeverShown(t *testing.T) {
	t.Setenv("GITSQL_TEST_SECRET", "s3cr3t-value-xyz")
	s := New(Options{Root: t.TempDir(), Connections: map[string]config.Connection{
		"pg":    {Driver: "postgres", DSN: "postgres://u:${env:GITSQL_TEST_SECRET}@127.0.0.1:1/db?sslmode=disable&connect_timeout=2"},
		"my":    {Driver: "mysql", DSN: "u:${env:GITSQL_TEST_SECRET}@tcp(127.0.0.1:1)/db?timeout=2s"},
		"unset": {Driver: "postgres", DSN: "postgres://u:${env:GITSQL_TEST_UNSET_VAR}@127.0.0.1:1/db"},
	}})
	defer s.Close()
	e, _ := engine.New(engine.Options{Sources: []retrieve.Source{s}})
	for _, target := range []string{"sql:pg/t?id=1", "sql:my/t?id=1", "sql:unset/t?id=1"} {
		res, err := e.Retrieve(context.Background(), retrieve.Request{Target: target})
		check(t, res)
		if err == nil {
			t.Fatalf("%s: connected?", target)
		}
		b, _ := json.Marshal(res)
		if strings.Contains(string(b), "s3cr3t") || strings.Contains(err.Error(), "s3cr3t") || strings.Contains(string(b), "127.0.0.1:1") {
			t.Errorf("%s: the result shows the DSN or its secret:\n%s\n%v", target, b, err)
		}
	}
}

func TestVersionMarkerFollowsChanges(t *testing.T) {
	for _, ec := range engines(t) {
		t.Run(ec.name, func(t *testing.T) {
			_, e := newSource(t, ec)
			res := retrieveOK(t, e, retrieve.Request{Target: "sql:db/gitsql_t?id=1"})
			if res.Citation.Version == nil {
				if ec.name == "mysql" {
					t.Logf("no version: %v", res.Assumptions) // no GTID and no binlog on this server
					return
				}
				t.Fatalf("no version: %v", res.Assumptions)
			}
			if _, err := ec.rw.Exec("UPDATE gitsql_t SET code = 'A-9' WHERE id = 4"); err != nil {
				t.Fatal(err)
			}
			after := retrieveOK(t, e, retrieve.Request{Target: "sql:db/gitsql_t?id=1"})
			if *after.Citation.Version == *res.Citation.Version {
				t.Errorf("version %s did not move after a write", *res.Citation.Version)
			}
			if *after.Citation.Hash != *res.Citation.Hash {
				t.Errorf("the row did not change, its hash did")
			}
		})
	}
}

func TestConcurrentReads(t *testing.T) {
	for _, ec := range engines(t) {
		t.Run(ec.name, func(t *testing.T) {
			_, e := newSource(t, ec)
			var wg sync.WaitGroup
			errs := make(chan error, 32)
			for g := 0; g < 6; g++ {
				wg.Add(1)
				go func(g int) {
					defer wg.Done()
					for i := 0; i < 5; i++ {
						id := []string{"1", "2", "4"}[(g+i)%3]
						res, err := e.Retrieve(context.Background(), retrieve.Request{Target: "sql:db/gitsql_t?id=" + id})
						if err != nil {
							errs <- err
							return
						}
						b, _ := json.Marshal(res.Retrieved.Data)
						if !strings.Contains(string(b), `"id":`+id) {
							errs <- fmt.Errorf("id %s: got %s", id, b)
							return
						}
					}
				}(g)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// TestMariaDBBinlogVersion needs a MariaDB with the binary log on (the
// shared test server has it off): RETRIEVE_TEST_MYSQL_BINLOG names one. It
// checks the binlog-position fallback (no GTID yet after RESET MASTER),
// then the GTID once a transaction is logged.
func TestMariaDBBinlogVersion(t *testing.T) {
	dsn := os.Getenv("RETRIEVE_TEST_MYSQL_BINLOG")
	if dsn == "" {
		t.Skip("RETRIEVE_TEST_MYSQL_BINLOG is unset: no MariaDB with a binary log to test against")
	}
	rw, err := dbsql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	for _, s := range []string{"DROP TABLE IF EXISTS gitsql_bl", "CREATE TABLE gitsql_bl (id INT PRIMARY KEY, v TEXT)", "INSERT INTO gitsql_bl VALUES (1, 'a')", "RESET MASTER"} {
		if _, err := rw.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	_, e := newSource(t, engineCase{conn: config.Connection{Driver: "mysql", DSN: dsn}})
	res := retrieveOK(t, e, retrieve.Request{Target: "sql:db/gitsql_bl?id=1"})
	if res.Citation.Version == nil || !strings.HasPrefix(*res.Citation.Version, "mariadb:binlog:") {
		t.Fatalf("version %v, assumptions %v", res.Citation.Version, res.Assumptions)
	}
	if _, err := rw.Exec("UPDATE gitsql_bl SET v = 'b'"); err != nil {
		t.Fatal(err)
	}
	res = retrieveOK(t, e, retrieve.Request{Target: "sql:db/gitsql_bl?id=1"})
	if res.Citation.Version == nil || !strings.HasPrefix(*res.Citation.Version, "mariadb:gtid:") {
		t.Fatalf("version %v after a logged write", res.Citation.Version)
	}
}
