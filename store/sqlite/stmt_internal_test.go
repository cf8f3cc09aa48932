package sqlite

import (
	"context"
	"path/filepath"
	"testing"
)

// A statement is prepared on its first use, and a failed prepare is not
// kept: once its table exists the same statement runs.
func TestLazyStmtPreparesOnFirstUse(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := newLazyStmt(db.db, `SELECT count(*) FROM lazy_t WHERE v = ?`)
	defer s.Close()
	if s.st != nil {
		t.Fatal("prepared before its first use")
	}
	var n int
	if err := s.QueryRowContext(ctx, 1).Scan(&n); err == nil {
		t.Fatal("a statement on a missing table ran")
	}
	if _, err := db.db.ExecContext(ctx, `CREATE TABLE lazy_t (v INTEGER); INSERT INTO lazy_t VALUES (1), (1), (2)`); err != nil {
		t.Fatal(err)
	}
	if err := s.QueryRowContext(ctx, 1).Scan(&n); err != nil || n != 2 {
		t.Fatalf("after the table was made: %d, %v; want 2", n, err)
	}
	rows, err := s.QueryContext(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() || rows.Scan(&n) != nil || n != 1 {
		t.Fatalf("query: %d; want 1", n)
	}
}
