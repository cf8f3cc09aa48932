package ops_test

import (
	"context"
	dbsql "database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/config"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/ops/opstest"
	sqlsrc "github.com/retrieve-dev/retrieve/source/sql"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// TestBudgetPagesSQLRows: an ordered SQL result larger than the MCP or
// HTTP message budget keeps the rows that fit, cited as a row window
// (sql:app#<hash>#rows=1-N), and names the rest as its next part; the
// parts, each re-retrieved and verified, join to the whole result in its
// order (issue 28).
func TestBudgetPagesSQLRows(t *testing.T) {
	ws := testws.New(t)
	dbPath := filepath.Join(t.TempDir(), "app.db")
	db, err := dbsql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)"); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 300; i++ {
		if _, err := db.Exec("INSERT INTO items VALUES (?, ?)", i, fmt.Sprintf("item %d %s", i, strings.Repeat("lorem ipsum ", 5))); err != nil {
			t.Fatal(err)
		}
	}
	src := sqlsrc.New(sqlsrc.Options{Root: ws.Root, Connections: map[string]config.Connection{"app": {Driver: "sqlite", DSN: dbPath}}})
	t.Cleanup(func() { _ = src.Close() })
	st, err := sqlite.OpenStore(context.Background(), filepath.Join(t.TempDir(), "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	eng, err := engine.New(engine.Options{Sources: []retrieve.Source{src}, Store: st, SpoolDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	d := ops.Deps{Engine: eng, Store: st}
	env := &opstest.Env{WS: ws, Table: ops.Core(d), Deps: d}
	v, _ := env.Table.Lookup("verify_citation")
	q := "SELECT id, name FROM items WHERE id >= ? ORDER BY id DESC"
	ask := func(target string, budget int) string {
		return fmt.Sprintf(`{"target": %q, "query": %q, "params": ["2"], "budget": %d}`, target, q, budget)
	}
	_, whole := callResult(t, env, "retrieve", "http", ask("sql:app", 1_000_000))
	if whole.Extraction.Truncated || len(whole.Retrieved.Data.([]any)) != 299 {
		t.Fatalf("the whole result: truncated %v", whole.Extraction.Truncated)
	}
	for _, transport := range []string{"mcp", "http"} {
		var joined []any
		in := ask("sql:app", ops.MinBudget*2)
		for part := 0; ; part++ {
			if part > 40 {
				t.Fatalf("%s: more than 40 parts", transport)
			}
			_, r := callResult(t, env, "retrieve", transport, in)
			rows, _ := r.Retrieved.Data.([]any)
			if len(rows) == 0 || !strings.Contains(r.Citation.Reference, "#rows=") {
				t.Fatalf("%s part %d: %d rows, reference %s", transport, part, len(rows), r.Citation.Reference)
			}
			// The reference alone (the query from the ledger) gives the same rows.
			_, again := callResult(t, env, "retrieve", transport, fmt.Sprintf(`{"target": %q}`, r.Citation.Reference))
			if *again.Citation.Hash != *r.Citation.Hash {
				t.Errorf("%s part %d: %s re-retrieved gives another hash", transport, part, r.Citation.Reference)
			}
			voc := env.Table.Call(context.Background(), v, json.RawMessage(fmt.Sprintf(`{"retrieval_id": %q}`, r.RetrievalID)), transport)
			if vv, ok := voc.Value.(*retrieve.Verification); !ok || vv.Status != retrieve.Verified {
				t.Errorf("%s part %d (%s): verify %+v", transport, part, r.Citation.Reference, voc.Value)
			}
			joined = append(joined, rows...)
			if r.Extraction.Next == nil {
				if r.Extraction.Truncated {
					t.Errorf("%s part %d: truncated without a next part", transport, part)
				}
				if part < 2 {
					t.Errorf("%s: %d parts: the budget cut nothing", transport, part+1)
				}
				break
			}
			if !r.Extraction.Truncated || r.Extraction.Budget == nil || !r.Extraction.Budget.Cut {
				t.Errorf("%s part %d: next %s but no budget cut reported", transport, part, *r.Extraction.Next)
			}
			in = fmt.Sprintf(`{"target": %q, "budget": %d}`, *r.Extraction.Next, ops.MinBudget*2)
		}
		if !reflect.DeepEqual(joined, whole.Retrieved.Data) {
			t.Errorf("%s: the parts join to %d rows, want the %d of the whole in its order", transport, len(joined), len(whole.Retrieved.Data.([]any)))
		}
	}
}
