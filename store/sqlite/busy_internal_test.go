package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
)

// TestIsBusyByCode: a write blocked by another connection's lock is busy by
// the driver's error code (wrapped or not); other errors are not.
func TestIsBusyByCode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "busy.db")
	open := func() *sql.DB {
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)&_pragma=journal_mode(wal)")
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { db.Close() })
		return db
	}
	a, b := open(), open()
	ctx := context.Background()
	if _, err := a.ExecContext(ctx, "CREATE TABLE t (x)"); err != nil {
		t.Fatal(err)
	}
	tx, err := a.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	_, err = b.ExecContext(ctx, "INSERT INTO t VALUES (2)")
	if err == nil {
		t.Fatal("a second writer was not blocked")
	}
	if !isBusy(err) || !isBusy(fmt.Errorf("append: %w", err)) {
		t.Errorf("isBusy(%v) = false, want true", err)
	}
	_, err = b.ExecContext(ctx, "INSERT INTO nope VALUES (1)")
	if err == nil || isBusy(err) {
		t.Errorf("isBusy(%v) = true for a missing table", err)
	}
	if isBusy(errors.New("database is locked (5)")) {
		t.Error("isBusy matched an error's text, not the driver's code")
	}
}
