package retrieve_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/postgres"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// rowRequests are retrievals of every kind of extraction over ws's files.
var rowRequests = []retrieve.Request{
	{Target: "big.log"},
	{Target: "big.log", Constraints: retrieve.Constraints{Lines: "5-9,100-"}},
	{Target: "big.log:1-3"},
	{Target: "big.log", Constraints: retrieve.Constraints{Bytes: "10-99"}},
	{Target: "big.log", Constraints: retrieve.Constraints{MaxBytes: 1000}},
	{Target: "doc.md", Constraints: retrieve.Constraints{Sections: []string{"Install"}}},
	{Target: "conf.json", Format: "json"},
	{Target: "conf.json", Constraints: retrieve.Constraints{Select: ".servers[1]"}},
	{Target: "blob.bin", Format: "binary"},
	{Target: "bom.txt"},
}

func rowWorkspace(t *testing.T) *testws.Workspace {
	ws := testws.New(t)
	ws.Write("big.log", strings.Repeat("2025-01-24T15:30:00Z INFO a line of the log, with some words\n", 4000))
	ws.Write("doc.md", "# Title\n\nintro\n\n## Install\n\nrun it\n\n## Use\n\nuse it\n")
	ws.Write("conf.json", `{"servers": [{"name": "a", "port": 1}, {"name": "b", "port": 2.5e3}], "debug": false}`)
	ws.Write("blob.bin", "\x00\x01\x02binary\xff\xfe")
	ws.Write("bom.txt", "\ufeffwith a byte order mark\n")
	return ws
}

// checkRows retrieves every request, then checks that each ledger entry
// holds its result without the data, in at most 4 KB, and that the
// recorded result, rebuilt from the snapshot, is the result returned.
func checkRows(t *testing.T, e *retrieve.Engine, st store.Store, want map[string][]byte) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	if want == nil {
		want = map[string][]byte{}
		for _, req := range rowRequests {
			res, err := e.Retrieve(ctx, req)
			if err != nil {
				t.Fatalf("%+v: %v", req, err)
			}
			b, _ := json.Marshal(res)
			want[res.RetrievalID] = b
		}
	}
	for id, exp := range want {
		entry, err := st.Entry(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var row struct {
			Retrieved struct {
				Data any `json:"data"`
			} `json:"retrieved"`
		}
		if err := json.Unmarshal(entry.Result, &row); err != nil {
			t.Fatal(err)
		}
		if !entry.DataInSnapshot || row.Retrieved.Data != nil {
			t.Errorf("%s (%s): data_in_snapshot %v, data in the row %v", id, entry.Reference, entry.DataInSnapshot, row.Retrieved.Data != nil)
		}
		if n := len(entry.Result) + len(entry.Request); n > 4096 {
			t.Errorf("%s (%s): the row holds %d bytes of JSON, over 4 KB", id, entry.Reference, n)
		}
		got, err := e.RecordedResult(ctx, st, entry)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(got)
		if string(b) != string(exp) {
			t.Errorf("%s (%s): recorded result\n%s\nwant\n%s", id, entry.Reference, b, exp)
		}
	}
	return want
}

func TestLedgerRowWithoutData(t *testing.T) {
	ws := rowWorkspace(t)
	e, st := recordingEngine(t, ws.Root, nil)
	checkRows(t, e, st, nil)

	// show of an entry whose snapshot is damaged says so instead of
	// returning other data.
	entries, _ := st.Entries(context.Background(), store.Filter{Target: "big.log", Limit: 1})
	if _, err := st.SQL().Exec(`UPDATE ledger SET request = ? WHERE id = ?`, `{"target":"big.log","constraints":{"lines":"1-2"}}`, entries[0].ID); err != nil {
		t.Fatal(err)
	}
	entry, _ := st.Entry(context.Background(), entries[0].ID)
	res, err := e.RecordedResult(context.Background(), st, entry)
	if err != nil || res.Retrieved.Data != nil || !strings.Contains(strings.Join(res.Assumptions, " "), "could not be rebuilt") {
		t.Errorf("a rebuild that does not match the recorded hash: data %v, assumptions %v, %v", res.Retrieved.Data, res.Assumptions, err)
	}
}

// TestLedgerRowMigration records entries the old way (the data in the
// row), then opens the store with this binary: the migration moves every
// entry to the new form, and show rebuilds the same results.
func TestLedgerRowMigration(t *testing.T) {
	ctx := context.Background()
	t.Run("SQLite", func(t *testing.T) {
		ws := rowWorkspace(t)
		e, st := recordingEngine(t, ws.Root, nil)
		want := checkRows(t, e, st, nil)
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := st.SQL().ExecContext(ctx, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		for id, b := range want {
			exec(`UPDATE ledger SET result = ? WHERE id = ?`, b, id)
		}
		exec(`ALTER TABLE ledger DROP COLUMN data_in_snapshot`)
		exec(`DELETE FROM schema_migrations WHERE component = 'ledger' AND version > 1`)
		st.Close()
		st2, err := sqlite.OpenStore(ctx, filepath.Join(ws.Root, ".retrieve", "retrieve.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer st2.Close()
		checkRows(t, e, st2, want)
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		url := pgtest.URL(t, "ledger_row")
		ws := rowWorkspace(t)
		st, err := postgres.OpenStore(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		src, err := file.New(file.Options{Root: ws.Root})
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		e, err := retrieve.New(retrieve.Options{Sources: []retrieve.Source{src}, Store: st, SpoolDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		want := checkRows(t, e, st, nil)
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := st.Pool().Exec(ctx, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		for id, b := range want {
			exec(`UPDATE ledger SET result = $1 WHERE id = $2`, b, id)
		}
		exec(`ALTER TABLE ledger DROP COLUMN data_in_snapshot`)
		exec(`DELETE FROM schema_migrations WHERE component = 'ledger' AND version > 1`)
		st.Close()
		st2, err := postgres.OpenStore(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer st2.Close()
		checkRows(t, e, st2, want)
	})
}
