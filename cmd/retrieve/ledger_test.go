package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// binary returns the retrieve command: this test binary under the name
// retrieve (see TestMain), linked once per test run.
func binary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "retrieve-bin-")
		if err != nil {
			binErr = err
			return
		}
		exe, err := os.Executable()
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, cliName)
		binErr = os.Symlink(exe, binPath)
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// The whole ledger flow from the CLI: get → log → show → change → verify →
// quote → fallback.
func TestLedgerFlow(t *testing.T) {
	ws := testws.New(t)
	ws.Write("guide.md", "# Guide\n\nStep one: install.\nStep two: run.\n")
	ws.InitGit()
	root := []string{"--root", ws.Root}

	out, errOut, code := runCLI(t, append(root, "get", "guide.md:3-4", "--json")...)
	if code != ExitOK {
		t.Fatalf("get: exit %d: %s", code, errOut)
	}
	contracttest.Check(t, []byte(out))
	var res struct {
		RetrievalID string `json:"retrieval_id"`
	}
	json.Unmarshal([]byte(out), &res)
	if res.RetrievalID == "" {
		t.Fatal("get recorded nothing")
	}
	out, _, code = runCLI(t, append(root, "log", "--json")...)
	if code != ExitOK || !strings.Contains(out, res.RetrievalID) {
		t.Fatalf("log (exit %d) lacks %s:\n%s", code, res.RetrievalID, out)
	}
	out, _, code = runCLI(t, append(root, "show", res.RetrievalID, "--json")...)
	if code != ExitOK {
		t.Fatalf("show: exit %d", code)
	}
	contracttest.Check(t, []byte(out))

	if _, _, code = runCLI(t, append(root, "verify", res.RetrievalID)...); code != ExitOK {
		t.Fatalf("verify of an unchanged file: exit %d", code)
	}
	ws.Write("guide.md", "# Guide\n\nStep one: download.\nStep two: run.\n")
	out, _, code = runCLI(t, append(root, "verify", res.RetrievalID)...)
	if code != ExitChanged || !strings.Contains(out, "status: changed") || !strings.Contains(out, "+Step one: download.") {
		t.Fatalf("verify after a change: exit %d\n%s", code, out)
	}
	if _, _, code = runCLI(t, append(root, "quote", "guide.md", "Step one: download.")...); code != ExitOK {
		t.Fatalf("quote of present text: exit %d", code)
	}
	if _, _, code = runCLI(t, append(root, "quote", "guide.md", "Step one: install.")...); code != ExitNotFound {
		t.Fatalf("quote of absent text: exit %d, want %d", code, ExitNotFound)
	}
	os.Remove(filepath.Join(ws.Root, "guide.md"))
	out, errOut, code = runCLI(t, append(root, "get", "guide.md:3-4", "--fallback", "snapshot", "--json")...)
	if code != ExitOK || !strings.Contains(out, `"retrieved_from": "snapshot"`) || !strings.Contains(out, "Step one: install.") {
		t.Fatalf("fallback: exit %d %s\n%s", code, errOut, out)
	}
	out, _, code = runCLI(t, append(root, "verify", "--all", "--json")...)
	if code == ExitOK || !strings.Contains(out, `"summary"`) {
		t.Fatalf("verify --all with a changed and a gone file: exit %d\n%s", code, out)
	}
	// verify --all a page at a time: the cursor of page one leads to the
	// rest, and a cursor of another list is refused.
	all := strings.Count(out, `"retrieval_id"`)
	_, errOut, _ = runCLI(t, append(root, "verify", "--all", "--limit", "1", "--json")...)
	cursor, ok := strings.CutPrefix(strings.TrimSpace(errOut[strings.LastIndex(errOut, "more: --cursor "):]), "more: --cursor ")
	if !ok || all < 2 {
		t.Fatalf("verify --all --limit 1 printed no next cursor (%d entries): %s", all, errOut)
	}
	out, _, _ = runCLI(t, append(root, "verify", "--all", "--limit", "100", "--cursor", cursor, "--json")...)
	if n := strings.Count(out, `"retrieval_id"`); n != all-1 {
		t.Errorf("the second page has %d verifications, want %d", n, all-1)
	}
	if _, errOut, code = runCLI(t, append(root, "log", "--cursor", cursor)...); code == ExitOK || !strings.Contains(errOut, "INPUT_VALIDATION_FAILED") {
		t.Errorf("a verify cursor given to log: exit %d %s", code, errOut)
	}
	out, _, code = runCLI(t, append(root, "gc", "--json")...)
	if code != ExitOK || !strings.Contains(out, "snapshots_deleted") || !strings.Contains(out, "outlines_deleted") {
		t.Fatalf("gc: exit %d\n%s", code, out)
	}
}

// 50 processes at once on one workspace: 50 entries, no "database is locked".
func TestConcurrentProcesses(t *testing.T) {
	bin := binary(t)
	ws := testws.New(t)
	ws.Write("a.txt", "alpha\n")
	var wg sync.WaitGroup
	errs := make(chan string, 50)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := exec.Command(bin, "--root", ws.Root, "get", "a.txt", "--json").CombinedOutput()
			if err != nil || strings.Contains(string(out), "locked") || strings.Contains(string(out), "not recorded") {
				errs <- fmt.Sprintf("process %d: %v\n%s", i, err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	db := openDB(t, ws.Root)
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM ledger`).Scan(&n); err != nil || n != 50 {
		t.Fatalf("ledger has %d entries (%v), want 50", n, err)
	}
}

func openDB(t *testing.T, root string) *sql.DB {
	t.Helper()
	st, err := sqlite.Open(context.Background(), storePath(root))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.SQL()
}

// A process killed with SIGKILL while it writes leaves a database that
// opens, passes integrity_check, and keeps every committed entry.
func TestKilledWriter(t *testing.T) {
	bin := binary(t)
	ws := testws.New(t)
	ws.Write("a.txt", "alpha\n")
	// A few committed entries first.
	for range 3 {
		if out, err := exec.Command(bin, "--root", ws.Root, "get", "a.txt").CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	// Then writers killed at once, repeatedly, mid-flight.
	big := strings.Repeat("a line of a large file to snapshot\n", 300000)
	ws.Write("big.txt", big)
	for i := range 5 {
		cmd := exec.Command(bin, "--root", ws.Root, "get", "big.txt")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(20+i*15) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}
	db := openDB(t, ws.Root)
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q, %v", check, err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM ledger WHERE target = 'a.txt'`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("committed entries = %d (%v), want 3", n, err)
	}
	if out, err := exec.Command(bin, "--root", ws.Root, "get", "a.txt").CombinedOutput(); err != nil {
		t.Fatalf("the store is unusable after the kill: %v\n%s", err, out)
	}
}

func TestBadStore(t *testing.T) {
	t.Run("ErrCorrupt", func(t *testing.T) {
		ws := testws.New(t)
		ws.Write("a.txt", "alpha\n")
		ws.Write(".retrieve/retrieve.db", strings.Repeat("this is not a database\n", 200))
		out, errOut, code := runCLI(t, "--root", ws.Root, "get", "a.txt", "--json")
		if code != ExitOK || !strings.Contains(out, "not recorded") {
			t.Fatalf("get with a corrupt store: exit %d %s\n%s", code, errOut, out)
		}
		_, errOut, code = runCLI(t, "--root", ws.Root, "log")
		if code != ExitUpstream || !strings.Contains(errOut, "STORE_UNAVAILABLE") || !strings.Contains(errOut, "hint:") {
			t.Fatalf("log with a corrupt store: exit %d: %s", code, errOut)
		}
	})
	t.Run("ErrNewerSchema", func(t *testing.T) {
		ws := testws.New(t)
		ws.Write("a.txt", "alpha\n")
		if _, _, code := runCLI(t, "--root", ws.Root, "init"); code != ExitOK {
			t.Fatalf("init: exit %d", code)
		}
		db := openDB(t, ws.Root)
		if _, err := db.Exec(`INSERT INTO schema_migrations (component, version, applied_at) VALUES ('ledger', 99, 'x')`); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := runCLI(t, "--root", ws.Root, "log")
		if code != ExitUpstream || !strings.Contains(errOut, "newer than this retrieve knows") || !strings.Contains(errOut, "upgrade retrieve") {
			t.Fatalf("log with a newer schema: exit %d: %s", code, errOut)
		}
	})
	t.Run("OKInitIdempotent", func(t *testing.T) {
		ws := testws.New(t)
		for range 2 {
			if _, errOut, code := runCLI(t, "--root", ws.Root, "init"); code != ExitOK {
				t.Fatalf("init: exit %d %s", code, errOut)
			}
		}
		b, err := os.ReadFile(filepath.Join(ws.Root, ".retrieve", "config.yaml"))
		if err != nil || !strings.Contains(string(b), "# record: true") {
			t.Fatalf("config.yaml: %v\n%s", err, b)
		}
	})
}
