package main

import (
	dbsql "database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	_ "modernc.org/sqlite"
)

func TestGetSQLAndVerify(t *testing.T) {
	ws := testws.New(t)
	db, err := dbsql.Open("sqlite", filepath.Join(ws.Root, "app.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{
		"CREATE TABLE gitsql_users (id INTEGER PRIMARY KEY, name TEXT, updated_at TIMESTAMP)",
		"INSERT INTO gitsql_users VALUES (1, 'Ada', '2024-01-01 10:00:00'), (2, 'Bob', '2024-02-01 10:00:00')",
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GITSQL_CLI_SECRET", "pw-should-never-appear")
	ws.Write(".retrieve/config.yaml", `connections:
  app:
    driver: sqlite
    dsn: app.db
    updated_column: updated_at
  remote:
    driver: postgres
    dsn: postgres://u:${env:GITSQL_CLI_SECRET}@127.0.0.1:1/x?connect_timeout=2
`)
	root := []string{"--root", ws.Root}

	out, errOut, code := runCLI(t, append(root, "get", "sql:app/gitsql_users?id=2", "--json")...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	contracttest.Check(t, []byte(out))
	var rec retrieve.Result
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Citation.Reference != "sql:app/gitsql_users?id=2" || rec.Provenance.LastModified == nil || *rec.Provenance.LastModified != "2024-02-01T10:00:00Z" {
		t.Fatalf("reference %s last_modified %v", rec.Citation.Reference, rec.Provenance.LastModified)
	}

	out, _, code = runCLI(t, append(root, "get", "sql:app", "--query", "SELECT id, name FROM gitsql_users WHERE id >= ? ORDER BY id", "--param", "1", "--max-rows", "1", "--json")...)
	if code != ExitOK {
		t.Fatalf("query exit %d", code)
	}
	var q retrieve.Result
	if err := json.Unmarshal([]byte(out), &q); err != nil {
		t.Fatal(err)
	}
	if !q.Extraction.Truncated || !strings.HasPrefix(q.Citation.Reference, "sql:app#") {
		t.Fatalf("truncated %v reference %s", q.Extraction.Truncated, q.Citation.Reference)
	}

	// Both citations verify through the ledger; a change to the record is found.
	for _, id := range []string{rec.RetrievalID, q.RetrievalID} {
		if out, _, code := runCLI(t, append(root, "verify", id, "--json")...); code != ExitOK || !strings.Contains(out, `"verified"`) {
			t.Fatalf("verify %s: exit %d\n%s", id, code, out)
		}
	}
	if _, err := db.Exec("UPDATE gitsql_users SET name = 'Robert' WHERE id = 2"); err != nil {
		t.Fatal(err)
	}
	out, _, _ = runCLI(t, append(root, "verify", rec.RetrievalID, "--json")...)
	if !strings.Contains(out, `"changed"`) || !strings.Contains(out, "Robert") {
		t.Fatalf("changed record not reported:\n%s", out)
	}

	// A write is refused; a connection's DSN and secret never show.
	_, errOut, code = runCLI(t, append(root, "get", "sql:app", "--query", "DELETE FROM gitsql_users")...)
	if code != exitCode(retrieve.CodeQueryRejected) || !strings.Contains(errOut, "QUERY_REJECTED") {
		t.Fatalf("delete: exit %d %s", code, errOut)
	}
	out, errOut, _ = runCLI(t, append(root, "get", "sql:remote/t?id=1", "--json")...)
	logOut, _, _ := runCLI(t, append(root, "log", "--json")...)
	for _, s := range []string{out, errOut, logOut} {
		if strings.Contains(s, "pw-should-never-appear") || strings.Contains(s, "127.0.0.1:1") {
			t.Fatalf("the DSN leaked:\n%s", s)
		}
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM gitsql_users").Scan(&n); err != nil || n != 2 {
		t.Fatalf("rows %d %v", n, err)
	}
	b, _ := os.ReadFile(filepath.Join(ws.Root, ".retrieve", "retrieve.db"))
	if strings.Contains(string(b), "pw-should-never-appear") {
		t.Fatal("the secret is in the store")
	}
}
