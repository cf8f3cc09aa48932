package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
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
	// A fragment of the reference selects on the rebuild as it did live.
	{Target: "big.log#bytes=0-99"},
	{Target: "conf.json#select=.servers%5B0%5D"},
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
func checkRows(t *testing.T, e *engine.Engine, st store.Store, want map[string][]byte) map[string][]byte {
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
		// Back to schema version 1. Migration 3 (where snapshots are) comes
		// back with its default, so the test keeps where they really are.
		storage := map[string]string{}
		rows, err := st.SQL().QueryContext(ctx, `SELECT hash, storage FROM snapshots`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var h, s string
			if err := rows.Scan(&h, &s); err != nil {
				t.Fatal(err)
			}
			storage[h] = s
		}
		rows.Close()
		exec(`ALTER TABLE ledger DROP COLUMN data_in_snapshot`)
		exec(`ALTER TABLE snapshots DROP COLUMN storage`)
		exec(`DELETE FROM schema_migrations WHERE component = 'ledger' AND version > 1`)
		st.Close()
		st2, err := sqlite.OpenStore(ctx, filepath.Join(ws.Root, ".retrieve", "retrieve.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer st2.Close()
		for h, s := range storage {
			if _, err := st2.SQL().ExecContext(ctx, `UPDATE snapshots SET storage = ? WHERE hash = ?`, s, h); err != nil {
				t.Fatal(err)
			}
		}
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
		e, err := engine.New(engine.Options{Sources: []retrieve.Source{src}, Store: st, SpoolDir: t.TempDir()})
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

// A large snapshot is written once, beside the database, in the same pass
// as the hash: nothing goes through the spool directory.
func TestSnapshotWrittenOnce(t *testing.T) {
	ws := testws.New(t)
	ws.Write("big.log", strings.Repeat("a line of a log that is large enough for a file\n", 70000))
	e, st := recordingEngine(t, ws.Root, nil)
	res := mustGet(t, e, retrieve.Request{Target: "big.log", Constraints: retrieve.Constraints{Lines: "1-2"}})
	entry, err := st.Entry(context.Background(), res.RetrievalID)
	if err != nil || entry.Snapshot != *res.Citation.SourceHash {
		t.Fatalf("entry %+v, %v", entry, err)
	}
	h := strings.TrimPrefix(entry.Snapshot, "sha256:")
	if _, err := os.Stat(filepath.Join(st.Path()+"-objects", "sha256", h[:2], h[2:])); err != nil {
		t.Errorf("no snapshot file: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(ws.Root, ".retrieve", "tmp")); len(ents) != 0 {
		t.Errorf("%d files went through the spool", len(ents))
	}
}

// A snapshot that cannot be kept is never dropped silently: the result
// says so, and the ledger entry keeps the data itself.
func TestSnapshotFailureNotSilent(t *testing.T) {
	ws := testws.New(t)
	ws.Write("big.log", strings.Repeat("a line of a log that is large enough for a file\n", 70000))
	e, st := recordingEngine(t, ws.Root, nil)
	if err := os.WriteFile(st.Path()+"-objects", []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := mustGet(t, e, retrieve.Request{Target: "big.log", Constraints: retrieve.Constraints{Lines: "1-2"}})
	if !strings.Contains(strings.Join(res.Assumptions, " "), "not kept as a snapshot") {
		t.Errorf("assumptions %v do not say the snapshot was lost", res.Assumptions)
	}
	entry, err := st.Entry(context.Background(), res.RetrievalID)
	if err != nil || entry.Snapshot != "" || entry.DataInSnapshot {
		t.Fatalf("entry %+v, %v", entry, err)
	}
	got, err := e.RecordedResult(context.Background(), st, entry)
	if err != nil || got.Retrieved.Data != res.Retrieved.Data {
		t.Errorf("recorded data %v, %v", got.Retrieved.Data, err)
	}
}

// TestSnapshotDroppedByAnotherReplica: this engine's store remembers a
// snapshot it stored; another replica's gc drops it. The next read of the
// same file (which the store says it holds) is recorded without the
// snapshot, with its data, and the read after that stores the snapshot
// again.
func TestSnapshotDroppedByAnotherReplica(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t, "gc_engine")
	ws := rowWorkspace(t)
	open := func() *postgres.Store {
		st, err := postgres.OpenStore(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	st, other := open(), open()
	src, err := file.New(file.Options{Root: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{src}, Store: st, SpoolDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	req := retrieve.Request{Target: "doc.md", Constraints: retrieve.Constraints{Sections: []string{"Install"}}}
	first, err := e.Retrieve(ctx, req)
	if err != nil || first.RetrievalID == "" {
		t.Fatalf("first read: %v, id %q", err, first.RetrievalID)
	}
	// The other replica's retention and gc drop the entry and its snapshot.
	if _, err := other.DeleteEntriesBefore(ctx, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n, err := other.DeleteUnreferencedSnapshots(ctx); err != nil || n != 1 {
		t.Fatalf("gc dropped %d (%v), want 1", n, err)
	}

	second, err := e.Retrieve(ctx, req)
	if err != nil || second.RetrievalID == "" {
		t.Fatalf("second read: %v, id %q, assumptions %v", err, second.RetrievalID, second.Assumptions)
	}
	if !strings.Contains(strings.Join(second.Assumptions, " "), "not kept as a snapshot") {
		t.Errorf("the result does not say its bytes were not kept: %v", second.Assumptions)
	}
	entry, err := st.Entry(ctx, second.RetrievalID)
	if err != nil {
		t.Fatal(err)
	}
	if entry.Snapshot != "" || entry.DataInSnapshot {
		t.Errorf("the entry cites snapshot %q (data_in_snapshot %v), which a gc dropped", entry.Snapshot, entry.DataInSnapshot)
	}
	got, err := e.RecordedResult(ctx, st, entry)
	if err != nil || fmt.Sprint(got.Retrieved.Data) != fmt.Sprint(second.Retrieved.Data) || got.Retrieved.Data == nil {
		t.Errorf("show of the entry: data %v (%v), want %v", got.Retrieved.Data, err, second.Retrieved.Data)
	}

	third, err := e.Retrieve(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	entry, err = st.Entry(ctx, third.RetrievalID)
	if err != nil || entry.Snapshot == "" {
		t.Fatalf("the third read cites no snapshot (%v)", err)
	}
	if ok, err := other.HasSnapshot(ctx, entry.Snapshot); err != nil || !ok {
		t.Errorf("the third read's snapshot is not stored: %v, %v", ok, err)
	}
}
