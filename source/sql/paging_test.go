package sql

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// pagingEngine is an engine on a fresh source that records in a real
// SQLite store: the parts of a paged query are read by reference alone.
func pagingEngine(t *testing.T, ec engineCase) *engine.Engine {
	t.Helper()
	dir := t.TempDir()
	st, err := sqlite.OpenStore(context.Background(), filepath.Join(dir, "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := New(Options{Root: dir, Connections: map[string]config.Connection{"db": ec.conn}})
	t.Cleanup(func() { s.Close() })
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{s}, Store: st, SpoolDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestPagingByRowWindow pages a query cut by max_rows on every engine:
// each part is a target with the same hash, verifies, and the parts join
// to the whole result in its order; a changed row changes only its part.
func TestPagingByRowWindow(t *testing.T) {
	for _, ec := range engines(t) {
		t.Run(ec.name, func(t *testing.T) {
			tbl := fmt.Sprintf("gitsql_page_%d", time.Now().UnixNano()%1e9)
			if _, err := ec.rw.Exec("CREATE TABLE " + tbl + " (id INT PRIMARY KEY, name TEXT)"); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ec.rw.Exec("DROP TABLE " + tbl) }) //nolint:errcheck // best effort
			for i := 1; i <= 10; i++ {
				if _, err := ec.rw.Exec(fmt.Sprintf("INSERT INTO %s VALUES (%d, 'n%d')", tbl, i, i)); err != nil {
					t.Fatal(err)
				}
			}
			e := pagingEngine(t, ec)
			ph := "?"
			if ec.name == "postgres" {
				ph = "$1"
			}
			// Descending, so that the query's own order (not the key's) is kept.
			q := "SELECT id, name FROM " + tbl + " WHERE id >= " + ph + " ORDER BY id DESC"
			ask := func(target string, maxRows int) retrieve.Request {
				return retrieve.Request{Target: target, Constraints: retrieve.Constraints{Query: q, Params: []string{"2"}, MaxRows: maxRows}}
			}
			whole := retrieveOK(t, e, ask("sql:db", 100))
			if whole.Extraction.Next != nil || whole.Citation.Reference != "sql:db#"+QueryHash(q) {
				t.Fatalf("whole read: reference %s, next %v", whole.Citation.Reference, whole.Extraction.Next)
			}
			res := retrieveOK(t, e, ask("sql:db", 4))
			base := "sql:db#" + QueryHash(q)
			if res.Citation.Reference != base+"#rows=1-4" || res.Extraction.Next == nil || *res.Extraction.Next != base+"#rows=5-" || !res.Extraction.Truncated {
				t.Fatalf("first part: reference %s, next %v, truncated %v", res.Citation.Reference, res.Extraction.Next, res.Extraction.Truncated)
			}
			var joined []map[string]any
			var parts []*retrieve.Result
			for {
				joined = append(joined, rowsOf(t, res)...)
				parts = append(parts, res)
				// The reference alone gives the same rows again.
				again := retrieveOK(t, e, retrieve.Request{Target: res.Citation.Reference})
				if *again.Citation.Hash != *res.Citation.Hash || again.Citation.Reference != res.Citation.Reference {
					t.Errorf("%s re-retrieved: %s %s", res.Citation.Reference, again.Citation.Reference, *again.Citation.Hash)
				}
				if v := e.VerifyResult(context.Background(), res); v.Status != retrieve.Verified {
					t.Errorf("%s: %s %s", res.Citation.Reference, v.Status, v.Error)
				}
				if res.Extraction.Next == nil {
					break
				}
				if len(parts) > 5 {
					t.Fatalf("paging does not end: %s", *res.Extraction.Next)
				}
				res = retrieveOK(t, e, retrieve.Request{Target: *res.Extraction.Next})
			}
			if len(parts) != 3 || parts[1].Citation.Reference != base+"#rows=5-8" || parts[2].Citation.Reference != base+"#rows=9-9" {
				t.Errorf("parts %d, second %s", len(parts), parts[1].Citation.Reference)
			}
			if parts[2].Extraction.Truncated {
				t.Errorf("the last part is not cut")
			}
			if !reflect.DeepEqual(joined, rowsOf(t, whole)) {
				t.Errorf("the parts join to %v, the whole is %v", joined, rowsOf(t, whole))
			}
			// A row of the second window changes: that part is changed, with
			// the row in its diff; the first still verifies.
			if _, err := ec.rw.Exec("UPDATE " + tbl + " SET name = 'renamed' WHERE id = 4"); err != nil {
				t.Fatal(err)
			}
			if v := e.VerifyResult(context.Background(), parts[1]); v.Status != retrieve.Changed || !strings.Contains(v.Diff, "renamed") {
				t.Errorf("changed row in window 5-8: %s, diff %q", v.Status, v.Diff)
			}
			if v := e.VerifyResult(context.Background(), parts[0]); v.Status != retrieve.Verified {
				t.Errorf("window 1-4: %s %s", v.Status, v.Error)
			}
			// A window past the end is empty, and names no next part.
			past := retrieveOK(t, e, retrieve.Request{Target: base + "#rows=50-60"})
			if len(rowsOf(t, past)) != 0 || past.Extraction.Next != nil {
				t.Errorf("past the end: %v", past.Retrieved.Data)
			}
		})
	}
}

// TestPagingRefusesUnorderedRows: rows in no fixed order have no window.
func TestPagingRefusesUnorderedRows(t *testing.T) {
	for _, ec := range engines(t) {
		t.Run(ec.name, func(t *testing.T) {
			e := pagingEngine(t, ec)
			q := "SELECT id, name FROM gitsql_t"
			res := retrieveOK(t, e, retrieve.Request{Target: "sql:db", Constraints: retrieve.Constraints{Query: q, MaxRows: 2}})
			if !res.Extraction.Truncated || res.Extraction.Next != nil || res.Citation.Reference != "sql:db#"+QueryHash(q) {
				t.Errorf("unordered cut: %s next %v", res.Citation.Reference, res.Extraction.Next)
			}
			if !strings.Contains(strings.Join(res.Assumptions, " "), "ORDER BY") {
				t.Errorf("no note on how to page: %v", res.Assumptions)
			}
			_, err := e.Retrieve(context.Background(), retrieve.Request{Target: "sql:db#" + QueryHash(q) + "#rows=1-2", Constraints: retrieve.Constraints{Query: q}})
			if retrieve.ErrorCode(err) != retrieve.CodeInputValidation || !strings.Contains(retrieve.AsError(err).Hint, "ORDER BY") {
				t.Errorf("window of an unordered query: %v", err)
			}
			_, err = e.Retrieve(context.Background(), retrieve.Request{Target: "sql:db/gitsql_t?id=1#rows=1-2"})
			if retrieve.ErrorCode(err) != retrieve.CodeInputValidation {
				t.Errorf("window of a record: %v", err)
			}
		})
	}
}

func TestRowWindowParse(t *testing.T) {
	for s, want := range map[string]*RowWindow{
		"1-4": {1, 4}, "101-": {101, 0}, "7-7": {7, 7},
		"0-4": nil, "4-1": nil, "01-4": nil, "-4": nil, "1": nil, "1-x": nil, "+1-2": nil, "1-99999999999999": nil, "": nil,
	} {
		got, err := ParseRowWindow(s)
		if want == nil {
			if retrieve.ErrorCode(err) != retrieve.CodeInputValidation {
				t.Errorf("%q: %v %v", s, got, err)
			}
			continue
		}
		if err != nil || got != *want || got.String() != s {
			t.Errorf("%q: %v %v", s, got, err)
		}
	}
	tg, err := ParseTarget("sql:pg#" + strings.Repeat("a", 64) + "#rows=5-9")
	if err != nil || tg.Rows == nil || *tg.Rows != (RowWindow{5, 9}) || tg.String() != "sql:pg#"+strings.Repeat("a", 64)+"#rows=5-9" {
		t.Errorf("target: %+v %v", tg, err)
	}
}

func TestOrdered(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT * FROM t ORDER BY id":                                   true,
		"select * from t order\n by id desc limit 5":                    true,
		"SELECT * FROM (SELECT * FROM t ORDER BY id) s":                 false,
		"WITH s AS (SELECT * FROM t ORDER BY id) SELECT * FROM s":       false,
		"SELECT row_number() OVER (ORDER BY id) FROM t":                 false,
		"SELECT 'ORDER BY' FROM t":                                      false,
		"SELECT a FROM t UNION SELECT a FROM u ORDER BY a":              true,
		"SELECT * FROM t -- ORDER BY id":                                false,
		"SELECT * FROM t /* ORDER BY */ WHERE a = 1 ORDER /* x */ BY a": true,
	} {
		if got := Ordered(q, false); got != want {
			t.Errorf("Ordered(%q) = %v", q, got)
		}
	}
}

// FuzzRowWindow: a window either parses to one that prints as given, or
// is a typed input error; a target with one round-trips.
func FuzzRowWindow(f *testing.F) {
	for _, s := range []string{"1-4", "101-", "0-1", "9-3", "01-2", "1-", "-", "1--2", "18446744073709551616-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseRowWindow(s)
		if err != nil {
			if retrieve.ErrorCode(err) != retrieve.CodeInputValidation {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if w.Start < 1 || w.End != 0 && w.End < w.Start || w.String() != s {
			t.Fatalf("%q parsed to %+v", s, w)
		}
		ref := "sql:pg#" + strings.Repeat("0", 64) + "#rows=" + s
		tg, err := ParseTarget(ref)
		if err != nil || tg.String() != ref {
			t.Fatalf("%q: %+v %v", ref, tg, err)
		}
	})
}
