package sql_test

import (
	dbsql "database/sql"
	"path/filepath"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/source/sourcetest"
	"github.com/retrieve-dev/retrieve/source/sql"
)

func TestContract(t *testing.T) {
	sourcetest.Run(t, func(t *testing.T) sourcetest.Fixture {
		dbPath := filepath.Join(t.TempDir(), "app.db")
		db, err := dbsql.Open("sqlite", dbPath)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO items VALUES (1, 'one'), (2, 'two')`); err != nil {
			t.Fatal(err)
		}
		// The password of an unreachable server (loopback port 1) must not
		// show in the error.
		t.Setenv("SOURCETEST_SQL_PASSWORD", "sql-SECRET-1")
		src := sql.New(sql.Options{Connections: map[string]config.Connection{
			"main": {Driver: "sqlite", DSN: dbPath, Timeout: "2s"},
			"pg":   {Driver: "postgres", DSN: "postgres://u:${env:SOURCETEST_SQL_PASSWORD}@127.0.0.1:1/db?sslmode=disable&connect_timeout=2"},
			"my":   {Driver: "mysql", DSN: "u:${env:SOURCETEST_SQL_PASSWORD}@tcp(127.0.0.1:1)/db?timeout=2s"},
		}})
		t.Cleanup(func() { src.Close() })
		return sourcetest.Fixture{
			Source:  src,
			Targets: []string{"sql:main/items?id=1", "sql:main/items?id=2"},
			Missing: "sql:main/items?id=99", MissingCode: retrieve.CodeNotFound,
			Secret: "sql-SECRET-1", SecretTargets: []string{"sql:pg/items?id=1", "sql:my/items?id=1"},
		}
	})
}
