// Package pgtest gives tests a fresh PostgreSQL schema of their own on the
// database named by RETRIEVE_TEST_POSTGRES, so that parallel tests and
// parallel CI runs do not collide. Without the variable the test is
// skipped with a message, except under CI=true, where it fails.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Env is the variable that names the test database.
const Env = "RETRIEVE_TEST_POSTGRES"

// BaseURL returns the test database URL, or skips (fails under CI) the test.
func BaseURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(Env)
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set; CI must run the PostgreSQL tests", Env)
		}
		t.Skipf("%s is not set: skipping the PostgreSQL test (set it to postgres://postgres@127.0.0.1:5432/test?sslmode=disable)", Env)
	}
	return u
}

// URL returns the test database URL with search_path set to a new schema
// (named after prefix and a random suffix) that is dropped when the test
// ends. The schema itself is created by the store on open.
func URL(t testing.TB, prefix string) string {
	t.Helper()
	base := BaseURL(t)
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := prefix + "_" + hex.EncodeToString(b[:])
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("bad %s: %v", Env, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	t.Cleanup(func() { Drop(t, base, schema) })
	return u.String()
}

// Drop drops a schema and everything in it.
func Drop(t testing.TB, base, schema string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Logf("cannot drop schema %s: %v", schema, err)
		return
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`); err != nil {
		t.Logf("cannot drop schema %s: %v", schema, err)
	}
}
