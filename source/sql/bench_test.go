package sql

import (
	"context"
	dbsql "database/sql"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/engine"
)

// benchPG prepares gitsql_bench with 10,000 rows.
func benchPG(b *testing.B) string {
	dsn := os.Getenv("RETRIEVE_TEST_POSTGRES")
	if dsn == "" {
		b.Skip("RETRIEVE_TEST_POSTGRES is unset")
	}
	db, err := dbsql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{
		"DROP TABLE IF EXISTS gitsql_bench",
		"CREATE TABLE gitsql_bench (id INT PRIMARY KEY, name TEXT, amount NUMERIC(12,2), updated_at TIMESTAMPTZ)",
		"INSERT INTO gitsql_bench SELECT g, 'name ' || g, g * 1.5, now() FROM generate_series(1, 10000) g",
	} {
		if _, err := db.Exec(s); err != nil {
			b.Fatal(err)
		}
	}
	return dsn
}

// BenchmarkPGRecord is the whole retrieval of one record by primary key:
// read-only transaction, statement timeout, WAL position, conversion,
// canonical JSON, hashing and the contract.
func BenchmarkPGRecord(b *testing.B) {
	dsn := benchPG(b)
	s := New(Options{Connections: map[string]config.Connection{"db": {Driver: "postgres", DSN: dsn}}})
	defer s.Close()
	e, _ := engine.New(engine.Options{Sources: []retrieve.Source{s}})
	ctx := context.Background()
	req := retrieve.Request{Target: "sql:db/gitsql_bench?id=4242"}
	if _, err := e.Retrieve(ctx, req); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Retrieve(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPGBare is the baseline: a bare pgx query of the same row.
func BenchmarkPGBare(b *testing.B) {
	dsn := benchPG(b)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	var id int
	var name string
	var amount, updated any
	b.ResetTimer()
	for b.Loop() {
		if err := conn.QueryRow(ctx, `SELECT * FROM gitsql_bench WHERE id = $1`, 4242).Scan(&id, &name, &amount, &updated); err != nil {
			b.Fatal(err)
		}
	}
}
