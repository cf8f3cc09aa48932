package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/retrieve-dev/retrieve/store/postgres"

	"github.com/retrieve-dev/retrieve/graph/graphtest"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/internal/testws"
)

// withPassword adds a password to a test URL (the test server trusts
// loopback, so any password works) to check that it is never shown.
func withPassword(t *testing.T, raw, pw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), pw)
	return u.String()
}

// The whole flow on PostgreSQL from the CLI: init → get → log → show →
// snapshot → status → copy to SQLite and back; the password never shows.
func TestStorePostgresFlow(t *testing.T) {
	const pw = "pw-Never-Shown"
	pg := withPassword(t, pgtest.URL(t, "postgres_cli"), pw)
	ws := testws.New(t)
	ws.Write("guide.md", "# Guide\n\nStep one: install.\nStep two: run.\n")
	root := []string{"--root", ws.Root, "--store", pg}
	var all strings.Builder
	run := func(want int, args ...string) string {
		t.Helper()
		out, errOut, code := runCLI(t, append(append([]string{}, root...), args...)...)
		all.WriteString(out + errOut)
		if code != want {
			t.Fatalf("%v: exit %d, want %d\n%s%s", args, code, want, out, errOut)
		}
		return out + errOut
	}
	out := run(ExitOK, "init")
	if !strings.Contains(out, "postgres://") || strings.Contains(out, "retrieve.db") {
		t.Errorf("init does not name the PostgreSQL store: %s", out)
	}
	if _, err := os.Stat(filepath.Join(ws.Root, ".retrieve", "retrieve.db")); err == nil {
		t.Error("init created a SQLite store although the store is PostgreSQL")
	}
	out, _, _ = runCLI(t, append(append([]string{}, root...), "get", "guide.md:3-4", "--json")...)
	contracttest.Check(t, []byte(out))
	var res struct {
		RetrievalID string `json:"retrieval_id"`
		Citation    struct {
			SourceHash string `json:"source_hash"`
		} `json:"citation"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.RetrievalID == "" {
		t.Fatalf("get recorded nothing: %v\n%s", err, out)
	}
	if out := run(ExitOK, "log", "--json"); !strings.Contains(out, res.RetrievalID) {
		t.Fatalf("log lacks %s:\n%s", res.RetrievalID, out)
	}
	run(ExitOK, "show", res.RetrievalID, "--json")
	if out := run(ExitOK, "snapshot", res.Citation.SourceHash); !strings.Contains(out, "Step one") {
		t.Errorf("snapshot: %s", out)
	}
	run(ExitOK, "verify", res.RetrievalID)
	if out := run(ExitOK, "get", "guide.md", "--fallback", "snapshot", "--json"); !strings.Contains(out, "Step two") {
		t.Errorf("get --fallback snapshot: %s", out)
	}
	run(ExitOK, "gc")
	var st storeStatus
	if err := json.Unmarshal([]byte(run(ExitOK, "store", "status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	if st.Kind != "postgres" || st.Entries != 3 || st.Snapshots != 1 || st.Pending {
		t.Errorf("status = %+v", st)
	}
	back := filepath.Join(ws.Root, "back.db")
	var rep struct {
		Report struct {
			EntriesCopied int64 `json:"entries_copied"`
			Verified      bool  `json:"verified"`
			From, To      struct{ Digest string }
		} `json:"report"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(run(ExitOK, "store", "copy", "--to", "sqlite://"+back, "--json"), "\n}\n", 2)[0]+"\n}"), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Report.Verified || rep.Report.EntriesCopied != 3 {
		t.Errorf("copy to SQLite: %+v", rep)
	}
	if out := run(ExitOK, "--store", back, "log", "--json"); !strings.Contains(out, res.RetrievalID) {
		t.Errorf("the SQLite copy lacks the entry:\n%s", out)
	}
	// And a copy back into PostgreSQL is a verified no-op (a resumed copy).
	out = run(ExitOK, "store", "copy", "--from", back, "--to", pg)
	if !strings.Contains(out, "verified: 3 entries and 1 snapshots") || !strings.Contains(out, "entries_skipped: 3") {
		t.Errorf("copy back:\n%s", out)
	}
	if strings.Contains(all.String(), pw) {
		t.Fatal("the password appears in the output")
	}
}

// The store named in the configuration with ${env:NAME}, and an
// unreachable PostgreSQL: a clear STORE_UNAVAILABLE without the password.
func TestStoreConfigAndUnavailable(t *testing.T) {
	pg := pgtest.URL(t, "postgres_cfg")
	ws := testws.New(t)
	ws.Write(".retrieve/config.yaml", "store: ${env:RETRIEVE_TEST_STORE_URL}\n")
	t.Setenv("RETRIEVE_TEST_STORE_URL", pg)
	out, errOut, code := runCLI(t, "--root", ws.Root, "store", "migrate", "--json")
	if code != ExitOK || !strings.Contains(out, `"kind": "postgres"`) || !strings.Contains(out, "ledger/0001_init.sql") {
		t.Fatalf("migrate: exit %d\n%s%s", code, out, errOut)
	}
	t.Setenv("RETRIEVE_STORE", "postgres://u:s3cret-pw@127.0.0.1:1/x?connect_timeout=2")
	out, errOut, code = runCLI(t, "--root", ws.Root, "log")
	if code != ExitUpstream || !strings.Contains(errOut, "STORE_UNAVAILABLE") || !strings.Contains(errOut, "hint:") {
		t.Fatalf("log on a down store: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, "s3cret-pw") {
		t.Fatalf("the password appears: %s", errOut)
	}
}

// Many processes on one new PostgreSQL schema at once: they migrate once,
// every retrieval is recorded, no id twice.
func TestStorePostgresProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	bin := binary(t)
	pg := pgtest.URL(t, "postgres_procs")
	ws := testws.New(t)
	ws.Write("a.txt", "alpha\n")
	const n = 12
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(bin, "--root", ws.Root, "--store", pg, "get", "a.txt", "--json")
			out, err := cmd.CombinedOutput()
			if err != nil || strings.Contains(string(out), "not recorded") {
				errs <- fmt.Sprintf("process %d: %v\n%s", i, err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	out, errOut, code := runCLI(t, "--root", ws.Root, "--store", pg, "store", "status", "--json")
	var st storeStatus
	if code != ExitOK || json.Unmarshal([]byte(out), &st) != nil {
		t.Fatalf("status: exit %d %s", code, errOut)
	}
	if st.Entries != n || st.Snapshots != 1 || len(st.Components) == 0 || st.Components[0].Component != "ledger" {
		t.Fatalf("after %d processes: %+v", n, st)
	}
	for _, c := range st.Components {
		if c.Version != c.Latest {
			t.Errorf("component %s at version %d of %d after %d processes started at once", c.Component, c.Version, c.Latest, n)
		}
	}
	out, _, _ = runCLI(t, "--root", ws.Root, "--store", pg, "log", "--json")
	var page struct {
		Entries []struct {
			ID string `json:"retrieval_id"`
		} `json:"entries"`
	}
	_ = json.Unmarshal([]byte(out), &page)
	seen := map[string]bool{}
	for _, e := range page.Entries {
		if seen[e.ID] {
			t.Errorf("id %s twice", e.ID)
		}
		seen[e.ID] = true
	}
	if len(seen) != n {
		t.Errorf("log lists %d distinct ids, want %d", len(seen), n)
	}
}

// Memory on PostgreSQL from the CLI: a note created and found by overview
// through the PostgreSQL index; the graph and the wiki index there too.
func TestStorePostgresMemoryAndGraph(t *testing.T) {
	pg := pgtest.URL(t, "postgres_memcli")
	ws := testws.New(t)
	root := []string{"--root", ws.Root, "--store", pg}
	cli := func(args ...string) (string, string, int) {
		return runCLI(t, append(append([]string{}, root...), args...)...)
	}
	if out, errOut, code := cli("memory", "init"); code != ExitOK {
		t.Fatalf("memory init: exit %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code := cli("memory", "create", "--type", "semantic", "--title", "Replica pools", "--content", "Eight connections per replica behind the balancer."); code != ExitOK {
		t.Fatalf("memory create: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := cli("memory", "overview", "replica balancer", "--json")
	if code != ExitOK || !strings.Contains(out, "Replica pools") || strings.Contains(errOut, "unavailable") {
		t.Fatalf("memory overview: exit %d\n%s%s", code, out, errOut)
	}
	var n int
	st, err := postgres.OpenStore(context.Background(), pg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Pool().QueryRow(context.Background(), `SELECT count(*) FROM memory_notes`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("the PostgreSQL memory index holds %d notes (%v), want 1", n, err)
	}
	// The graph and the wiki index live in PostgreSQL too.
	ws.Write("notes/incident.md", graphtest.AcceptanceText+"\n")
	x := ws.Write("x.json", extractionJSON)
	if out, errOut, code = cli("graph", "ingest", "--doc-id", "doc_001", "--title", "Incident report", "--file", "notes/incident.md", "--extraction", x, "--json"); code != ExitOK || !strings.Contains(out, `"edges_added": 1`) {
		t.Fatalf("graph ingest: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = cli("graph", "evidence", "Why does the system crash?", "--json")
	if code != ExitOK || !strings.Contains(out, `"evidence_chain": "memory leak --[causes]--> system crash"`) {
		t.Fatalf("graph evidence: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = cli("graph", "query", "system crash", "--json")
	if code != ExitOK || !strings.Contains(out, "doc_001_chunk_000") {
		t.Fatalf("graph query: exit %d\n%s%s", code, out, errOut)
	}
	out, _, code = cli("get", "doc:doc_001#doc_001_chunk_000", "--json")
	contracttest.Check(t, []byte(out))
	if code != ExitOK || !strings.Contains(out, "memory leak in the cache service") {
		t.Fatalf("get doc: exit %d\n%s", code, out)
	}
	if _, errOut, code = cli("wiki", "write", "--category", "entity", "--title", "Memory Leak", "--content", "Leaks until a crash."); code != ExitOK {
		t.Fatalf("wiki write: exit %d\n%s", code, errOut)
	}
	if out, errOut, code = cli("wiki", "search", "memory", "leak", "--json"); code != ExitOK || !strings.Contains(out, "memory-leak") {
		t.Fatalf("wiki search: exit %d\n%s%s", code, out, errOut)
	}
	// Export, then import into another PostgreSQL schema: the same graph.
	exp := filepath.Join(t.TempDir(), "export")
	if _, errOut, code = cli("graph", "export", exp); code != ExitOK {
		t.Fatalf("graph export: exit %d\n%s", code, errOut)
	}
	pg2 := pgtest.URL(t, "postgres_graphimp")
	if out, errOut, code = runCLI(t, "--root", testws.New(t).Root, "--store", pg2, "graph", "import", exp, "--json"); code != ExitOK {
		t.Fatalf("graph import: exit %d\n%s%s", code, out, errOut)
	}
	if out, _, code = runCLI(t, "--root", ws.Root, "--store", pg2, "graph", "stats", "--json"); code != ExitOK || !strings.Contains(out, `"nodes": 2`) || !strings.Contains(out, `"edges": 1`) {
		t.Fatalf("stats after import: exit %d\n%s", code, out)
	}
	var nodes, pages int
	if err := st.Pool().QueryRow(context.Background(), `SELECT (SELECT count(*) FROM graph_nodes), (SELECT count(*) FROM wiki_pages)`).Scan(&nodes, &pages); err != nil || nodes != 2 || pages != 1 {
		t.Fatalf("PostgreSQL holds %d nodes, %d wiki pages (%v), want 2 and 1", nodes, pages, err)
	}
}
