package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/internal/tsatest"
	"github.com/retrieve-dev/retrieve/ledger"
	"golang.org/x/mod/sumdb/tlog"
)

// ledgerWS is a workspace with four recorded retrievals, a key and a
// signed checkpoint over them.
type ledgerWS struct {
	root, key string
	ids       []string // in log order
}

func newLedgerWS(t *testing.T) *ledgerWS {
	t.Helper()
	ws := testws.New(t)
	ws.Write("f.txt", "one\ntwo\nthree\nfour\n")
	for _, r := range []string{"1-1", "2-2", "3-3", "4-4"} {
		if _, errOut, code := runCLI(t, "--root", ws.Root, "get", "f.txt:"+r); code != ExitOK {
			t.Fatalf("get: exit %d: %s", code, errOut)
		}
	}
	l := &ledgerWS{root: ws.Root, key: filepath.Join(t.TempDir(), "ledger.key")}
	if _, errOut, code := runCLI(t, "ledger", "keygen", "--out", l.key); code != ExitOK {
		t.Fatalf("keygen: exit %d: %s", code, errOut)
	}
	out, errOut, code := runCLI(t, "--root", ws.Root, "ledger", "checkpoint", "--key", l.key, "--json")
	if code != ExitOK {
		t.Fatalf("checkpoint: exit %d: %s", code, errOut)
	}
	var cp checkpointResult
	if err := json.Unmarshal([]byte(out), &cp); err != nil {
		t.Fatal(err)
	}
	if cp.Checkpoint.Size != 4 || !strings.HasPrefix(cp.Note, "retrieve-ledger\n4\n") {
		t.Fatalf("checkpoint size %d, note %q; want 4 leaves", cp.Checkpoint.Size, cp.Note)
	}
	rows, err := l.db(t).Query(`SELECT id FROM ledger WHERE leaf IS NOT NULL ORDER BY pos`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		l.ids = append(l.ids, id)
	}
	if len(l.ids) != 4 {
		t.Fatalf("got %d leaves, want 4", len(l.ids))
	}
	return l
}

func (l *ledgerWS) db(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(l.root, ".retrieve", "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func (l *ledgerWS) exec(t *testing.T, q string, args ...any) {
	t.Helper()
	if _, err := l.db(t).Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// audit runs ledger audit and returns its report and exit code.
func (l *ledgerWS) audit(t *testing.T, args ...string) (*ledger.Report, int) {
	t.Helper()
	out, errOut, code := runCLI(t, append([]string{"--root", l.root, "ledger", "audit", "--json"}, args...)...)
	var rep ledger.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("audit: exit %d, output %q, stderr %s", code, out, errOut)
	}
	return &rep, code
}

// kinds lists the findings as "kind id", sorted.
func kinds(rep *ledger.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		out = append(out, f.Kind+" "+f.ID)
	}
	sort.Strings(out)
	return out
}

func TestLedgerAuditNamesTampering(t *testing.T) {
	cases := []struct {
		name   string
		tamper func(t *testing.T, l *ledgerWS)
		want   func(l *ledgerWS) []string
	}{
		{"Untouched", func(*testing.T, *ledgerWS) {}, func(*ledgerWS) []string { return nil }},
		{"RowDeleted", func(t *testing.T, l *ledgerWS) {
			l.exec(t, `DELETE FROM ledger WHERE id = ?`, l.ids[1])
		}, func(l *ledgerWS) []string { return []string{"removed " + l.ids[1]} }},
		{"ResultHashChanged", func(t *testing.T, l *ledgerWS) {
			l.exec(t, `UPDATE ledger SET result = CAST(json_set(CAST(result AS TEXT), '$.citation.hash', 'sha256:0000') AS BLOB) WHERE id = ?`, l.ids[2])
		}, func(l *ledgerWS) []string { return []string{ledger.Altered + " " + l.ids[2]} }},
		{"RowsSwapped", func(t *testing.T, l *ledgerWS) {
			l.exec(t, `UPDATE ledger SET pos = -1 WHERE pos = 0; UPDATE ledger SET pos = 0 WHERE pos = 3; UPDATE ledger SET pos = 3 WHERE pos = -1`)
		}, func(l *ledgerWS) []string {
			return []string{ledger.Reordered + " " + l.ids[0], ledger.Reordered + " " + l.ids[3]}
		}},
		{"RowAndLeafRewrittenTogether", func(t *testing.T, l *ledgerWS) {
			l.exec(t, `UPDATE ledger SET hash = 'sha256:0000' WHERE id = ?`, l.ids[2])
			l.exec(t, `UPDATE ledger SET leaf = (SELECT retrieve_leaf(2, id, time, op, target, source, reference, hash, source_hash,
				snapshot, status, code, duration_ns, request, result, data_in_snapshot) FROM ledger WHERE id = ?) WHERE pos = 2`, l.ids[2])
		}, func(l *ledgerWS) []string { return []string{ledger.Rewritten + " " + l.ids[2]} }},
		{"PublishedLeavesEditedToo", func(t *testing.T, l *ledgerWS) {
			l.exec(t, `UPDATE ledger SET hash = 'sha256:0000' WHERE id = ?`, l.ids[2])
			l.exec(t, `UPDATE ledger SET leaf = (SELECT retrieve_leaf(2, id, time, op, target, source, reference, hash, source_hash,
				snapshot, status, code, duration_ns, request, result, data_in_snapshot) FROM ledger WHERE id = ?) WHERE pos = 2`, l.ids[2])
			names, _ := filepath.Glob(filepath.Join(l.root, ".retrieve", "checkpoints", "*.leaves"))
			if len(names) != 1 {
				t.Fatalf("leaf-hash files %q, want one", names)
			}
			b, err := os.ReadFile(names[0])
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)-1] ^= 1
			if err := os.WriteFile(names[0], b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, func(l *ledgerWS) []string { return []string{ledger.Rewritten + " ", ledger.Rewritten + " "} }},
		{"RowInserted", func(t *testing.T, l *ledgerWS) {
			l.exec(t, `INSERT INTO ledger (id, time, op, target, source, reference, hash, source_hash, snapshot, status, code, duration_ns, request, result, data_in_snapshot) SELECT 'ffffffff-0000-7000-8000-000000000000', time, op, target, source, reference, hash, source_hash, snapshot, status, code, duration_ns, request, result, data_in_snapshot FROM ledger WHERE id = ?`, l.ids[0])
		}, func(*ledgerWS) []string { return []string{ledger.Inserted + " ffffffff-0000-7000-8000-000000000000"} }},
		{"LeafDeletedWithItsRow", func(t *testing.T, l *ledgerWS) {
			l.exec(t, `DELETE FROM ledger WHERE id = ?`, l.ids[3])
			l.exec(t, `DELETE FROM ledger_tombstones WHERE id = ?`, l.ids[3])
		}, func(*ledgerWS) []string { return []string{ledger.Rewritten + " "} }},
		{"GCTombstoneIsNotTampering", func(t *testing.T, l *ledgerWS) {
			if _, errOut, code := runCLI(t, "--root", l.root, "gc", "--retention", "1ns"); code != ExitOK {
				t.Fatalf("gc: exit %d: %s", code, errOut)
			}
		}, func(*ledgerWS) []string { return nil }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := newLedgerWS(t)
			c.tamper(t, l)
			rep, code := l.audit(t)
			got, want := kinds(rep), c.want(l)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("findings:\n got %q\nwant %q", got, want)
			}
			wantCode := ExitOK
			if len(want) > 0 {
				wantCode = ExitChanged
			}
			if code != wantCode || rep.Consistent != (len(want) == 0) {
				t.Errorf("exit %d, consistent %v; want exit %d", code, rep.Consistent, wantCode)
			}
			if rep.Checkpoint == nil || rep.Checkpoint.Size != 4 {
				t.Errorf("audited against checkpoint %+v, want the one of size 4", rep.Checkpoint)
			}
		})
	}
	t.Run("GCTombstones", func(t *testing.T) {
		l := newLedgerWS(t)
		runCLI(t, "--root", l.root, "gc", "--retention", "1ns")
		rep, _ := l.audit(t)
		if rep.Tombstones != 4 || rep.Size != 4 {
			t.Errorf("tombstones %d, size %d; want 4 and 4", rep.Tombstones, rep.Size)
		}
	})
}

func TestLedgerCheckpointErrors(t *testing.T) {
	l := newLedgerWS(t)
	t.Setenv(ledgerKeyEnv, "")
	_, errOut, code := runCLI(t, "--root", l.root, "ledger", "checkpoint")
	if code != ExitUsage || !strings.Contains(errOut, "no ledger signing key") {
		t.Errorf("without a key: exit %d, stderr %q; want %d and the missing key named", code, errOut, ExitUsage)
	}
	key, err := os.ReadFile(l.key)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(ledgerKeyEnv, string(key))
	if _, errOut, code := runCLI(t, "--root", l.root, "ledger", "checkpoint"); code != ExitOK {
		t.Fatalf("key from the environment: exit %d: %s", code, errOut)
	}
	t.Run("ForgedSignature", func(t *testing.T) {
		other := filepath.Join(t.TempDir(), "other.key")
		if _, errOut, code := runCLI(t, "ledger", "keygen", "--out", other); code != ExitOK {
			t.Fatalf("keygen: %s", errOut)
		}
		otherKey, _ := os.ReadFile(other)
		pub, err := ledger.PublicKey(string(key))
		if err != nil {
			t.Fatal(err)
		}
		pubFile := filepath.Join(t.TempDir(), "key.pub")
		if err := os.WriteFile(pubFile, []byte(pub), 0o644); err != nil {
			t.Fatal(err)
		}
		// A checkpoint signed by another key, saved as the newest.
		t.Setenv(ledgerKeyEnv, string(otherKey))
		l.exec(t, `UPDATE ledger SET leaf = NULL WHERE pos = 3`) // so that the forgery would hide this
		if _, errOut, code := runCLI(t, "--root", l.root, "ledger", "checkpoint"); code != ExitOK {
			t.Fatalf("checkpoint: %s", errOut)
		}
		_, errOut, code := runCLI(t, "--root", l.root, "ledger", "audit", "--pubkey", pubFile)
		if code != ExitChanged || !strings.Contains(errOut, "bad checkpoint") {
			t.Errorf("forged checkpoint: exit %d, stderr %q; want %d and bad checkpoint", code, errOut, ExitChanged)
		}
	})
}

func TestLedgerProofs(t *testing.T) {
	l := newLedgerWS(t)
	runCLI(t, "--root", l.root, "get", "f.txt:1-2") // a fifth leaf
	out, errOut, code := runCLI(t, "--root", l.root, "ledger", "proof", l.ids[2], "--json")
	if code != ExitOK {
		t.Fatalf("proof: exit %d: %s", code, errOut)
	}
	var p proofResult
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if p.Size != 5 || p.Index != 2 || p.LeafHash == nil {
		t.Fatalf("proof of %s: size %d, index %d; want 5 and 2", l.ids[2], p.Size, p.Index)
	}
	if err := tlog.CheckRecord(p.Proof, p.Size, p.Root, p.Index, *p.LeafHash); err != nil {
		t.Errorf("the printed inclusion proof does not verify: %v", err)
	}
	if err := tlog.CheckRecord(p.Proof, p.Size, p.Root, p.Index+1, *p.LeafHash); err == nil {
		t.Error("the inclusion proof also verifies at another index")
	}
	out, errOut, code = runCLI(t, "--root", l.root, "ledger", "proof", "--from", "4", "--json")
	if code != ExitOK {
		t.Fatalf("consistency proof: exit %d: %s", code, errOut)
	}
	var c proofResult
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	if err := tlog.CheckTree(c.Proof, c.Size, c.Root, c.From, *c.FromRoot); err != nil {
		t.Errorf("the printed consistency proof 4 → 5 does not verify: %v", err)
	}
	// The checkpoint of size 4 taken before is the consistency proof's old head.
	rep, _ := l.audit(t)
	if rep.Checkpoint == nil || rep.Checkpoint.Root != *c.FromRoot {
		t.Errorf("the proof's old root %v is not the checkpoint's %+v", c.FromRoot, rep.Checkpoint)
	}
	if _, errOut, code := runCLI(t, "--root", l.root, "ledger", "proof", "no-such-id"); code != ExitNotFound {
		t.Errorf("unknown id: exit %d, stderr %q; want %d", code, errOut, ExitNotFound)
	}
	if _, _, code := runCLI(t, "--root", l.root, "ledger", "proof", "--from", "9"); code != ExitUsage {
		t.Errorf("--from past the log: exit %d, want %d", code, ExitUsage)
	}
}

// The ledger commands on a PostgreSQL store: checkpoint, audit and proof
// work, and an entry edited in the database is named.
func TestLedgerOnPostgres(t *testing.T) {
	pg := pgtest.URL(t, "postgres_ledgercli")
	ws := testws.New(t)
	ws.Write("f.txt", "one\ntwo\nthree\n")
	for _, r := range []string{"1-1", "2-2", "3-3"} {
		if _, errOut, code := runCLI(t, "--root", ws.Root, "--store", pg, "get", "f.txt:"+r); code != ExitOK {
			t.Fatalf("get: exit %d: %s", code, errOut)
		}
	}
	key := filepath.Join(t.TempDir(), "ledger.key")
	if _, errOut, code := runCLI(t, "ledger", "keygen", "--out", key); code != ExitOK {
		t.Fatalf("keygen: exit %d: %s", code, errOut)
	}
	if _, errOut, code := runCLI(t, "--root", ws.Root, "--store", pg, "ledger", "checkpoint", "--key", key); code != ExitOK {
		t.Fatalf("checkpoint: exit %d: %s", code, errOut)
	}
	audit := func() (*ledger.Report, int) {
		out, errOut, code := runCLI(t, "--root", ws.Root, "--store", pg, "ledger", "audit", "--json")
		var rep ledger.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("audit: exit %d, output %q, stderr %s", code, out, errOut)
		}
		return &rep, code
	}
	if rep, code := audit(); code != ExitOK || !rep.Consistent || rep.Size != 3 || rep.Checkpoint == nil {
		t.Fatalf("audit: exit %d, %+v", code, rep)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var id string
	if err := conn.QueryRow(ctx, `SELECT id FROM ledger_leaves WHERE idx = 1`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "--root", ws.Root, "--store", pg, "ledger", "proof", id, "--json")
	var p proofResult
	if err := json.Unmarshal([]byte(out), &p); code != ExitOK || err != nil {
		t.Fatalf("proof: exit %d, %v: %s", code, err, errOut)
	}
	if err := tlog.CheckRecord(p.Proof, p.Size, p.Root, p.Index, *p.LeafHash); err != nil || p.Index != 1 {
		t.Fatalf("inclusion proof of position %d: %v", p.Index, err)
	}
	if _, err := conn.Exec(ctx, `UPDATE ledger SET reference = 'f.txt:9-9' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	rep, code := audit()
	if got := kinds(rep); code != ExitChanged || strings.Join(got, ",") != ledger.Altered+" "+id {
		t.Fatalf("after an edit: exit %d, findings %q; want %s %s", code, got, ledger.Altered, id)
	}
}

// ledger witness asks a (loopback) RFC 3161 authority to timestamp the
// newest checkpoint; audit checks the token and names one that does not
// cover the checkpoint.
func TestLedgerWitness(t *testing.T) {
	l := newLedgerWS(t)
	tsaURL := tsatest.New(t).Serve(t)
	out, errOut, code := runCLI(t, "--root", l.root, "ledger", "witness", "--tsa", tsaURL, "--json")
	if code != ExitOK {
		t.Fatalf("witness: exit %d: %s", code, errOut)
	}
	var w ledger.Witness
	if err := json.Unmarshal([]byte(out), &w); err != nil || w.TSA != "CN=loopback test TSA" || !strings.HasSuffix(w.File, ".tsr") {
		t.Fatalf("witness output %q (%v)", out, err)
	}
	rep, code := l.audit(t)
	if code != ExitOK || !rep.Consistent || rep.Witness == nil || !rep.Witness.Time.Equal(w.Time) {
		t.Fatalf("audit: exit %d, %+v, witness %+v", code, rep.Findings, rep.Witness)
	}
	// A token of another checkpoint (another workspace's) does not witness this one.
	other := newLedgerWS(t)
	if _, errOut, code := runCLI(t, "--root", other.root, "ledger", "witness", "--tsa", tsaURL); code != ExitOK {
		t.Fatalf("witness: exit %d: %s", code, errOut)
	}
	tsrs, _ := filepath.Glob(filepath.Join(other.root, ".retrieve", "checkpoints", "*.tsr"))
	b, err := os.ReadFile(tsrs[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.File, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, code = l.audit(t)
	if code != ExitChanged || rep.Consistent || rep.Witness != nil || len(rep.Findings) != 1 || !strings.Contains(rep.Findings[0].Detail, "does not witness") {
		t.Fatalf("audit with another checkpoint's token: exit %d, %+v", code, rep.Findings)
	}
}

func TestLedgerWitnessErrors(t *testing.T) {
	l := newLedgerWS(t)
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer failing.Close()
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("<html>not a TSA</html>"))
	}))
	defer garbage.Close()
	empty := testws.New(t)
	for _, c := range []struct {
		name string
		args []string
		code string
	}{
		{"NoTSA", []string{"--root", l.root, "ledger", "witness"}, "INPUT_VALIDATION_FAILED"},
		{"NotHTTP", []string{"--root", l.root, "ledger", "witness", "--tsa", "file:///etc/passwd"}, "INPUT_VALIDATION_FAILED"},
		{"NoCheckpoint", []string{"--root", empty.Root, "ledger", "witness", "--tsa", failing.URL}, "NOT_FOUND"},
		{"TSADown", []string{"--root", l.root, "ledger", "witness", "--tsa", failing.URL}, "UPSTREAM_STATUS"},
		{"NotATSA", []string{"--root", l.root, "ledger", "witness", "--tsa", garbage.URL}, "UPSTREAM_STATUS"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, code := runCLI(t, append(c.args, "--json")...)
			if code == ExitOK || !strings.Contains(errOut, c.code) {
				t.Errorf("exit %d, stderr %s; want %s", code, errOut, c.code)
			}
		})
	}
	if tsrs, _ := filepath.Glob(filepath.Join(l.root, ".retrieve", "checkpoints", "*.tsr")); len(tsrs) != 0 {
		t.Errorf("a failed witness left %q", tsrs)
	}
}
