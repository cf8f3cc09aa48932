//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/internal/testws"
)

// runWithin runs the CLI with stdin and fails the test when it does not
// end within limit (a FIFO opened for reading used to block forever).
func runWithin(t *testing.T, limit time.Duration, stdin []byte, args ...string) (string, string, int) {
	t.Helper()
	type res struct {
		out, errOut string
		code        int
	}
	done := make(chan res, 1)
	go func() {
		var out, errOut bytes.Buffer
		code := run(context.Background(), &Streams{In: bytes.NewReader(stdin), Out: &out, ErrOut: &errOut}, args)
		done <- res{out.String(), errOut.String(), code}
	}()
	select {
	case r := <-done:
		return r.out, r.errOut, r.code
	case <-time.After(limit):
		t.Fatalf("%v did not end within %s", args, limit)
		return "", "", 0
	}
}

// TestSecuritySpecialFilesCLI: FIFOs, sockets and links to /dev/zero in the
// workspace give a typed error at once for get, quote, check (as a
// citation and as the document), memory details and the Claude Code hook;
// a FIFO in place of the configuration or a session journal does not hang
// either. Before: get, quote, check and the hook hung forever.
func TestSecuritySpecialFilesCLI(t *testing.T) {
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	ws := testws.New(t)
	ws.Write("notes.txt", "alpha\nbeta\n")
	ws.AddSpecialFiles(t)
	const limit = 10 * time.Second
	want := map[string]string{
		testws.SpecialFIFO: "NOT_A_FILE", testws.SpecialSocket: "NOT_A_FILE",
		testws.SpecialZeroLink: "OUTSIDE_ROOT", testws.SpecialZeroInDir: "OUTSIDE_ROOT",
	}
	for name, code := range want {
		t.Run("get/"+name, func(t *testing.T) {
			out, errOut, exit := runWithin(t, limit, nil, "--root", ws.Root, "--json", "get", name)
			if exit == ExitOK || !strings.Contains(out+errOut, code) {
				t.Errorf("exit %d, want %s\n%s%s", exit, code, out, errOut)
			}
		})
		t.Run("quote/"+name, func(t *testing.T) {
			out, errOut, exit := runWithin(t, limit, nil, "--root", ws.Root, "--json", "quote", name, "alpha")
			if exit == ExitOK || !strings.Contains(out+errOut, code) {
				t.Errorf("exit %d, want %s\n%s%s", exit, code, out, errOut)
			}
		})
	}
	t.Run("check/citation", func(t *testing.T) {
		doc := ws.Write("answer.md", "See [p](special/pipe.md:1-1) and [s](special/socket.md:1-1) and [z](special/zero.md:1-1).\n")
		out, errOut, exit := runWithin(t, limit, nil, "--root", ws.Root, "check", "--format", "json", doc)
		if exit != ExitChanged || !strings.Contains(out, "NOT_A_FILE") || !strings.Contains(out, "OUTSIDE_ROOT") {
			t.Errorf("exit %d, want %d with NOT_A_FILE and OUTSIDE_ROOT findings\n%s%s", exit, ExitChanged, out, errOut)
		}
	})
	t.Run("check/document", func(t *testing.T) {
		out, errOut, exit := runWithin(t, limit, nil, "--root", ws.Root, "check", filepath.Join(ws.Root, testws.SpecialFIFO))
		if exit == ExitOK || !strings.Contains(errOut, "NOT_A_FILE") {
			t.Errorf("exit %d, want NOT_A_FILE\n%s%s", exit, out, errOut)
		}
	})
	t.Run("memory", func(t *testing.T) {
		out, errOut, exit := runWithin(t, limit, nil, "--root", ws.Root, "--json", "memory", "details", testws.SpecialMemFIFO)
		// The memory index lists regular files only: the FIFO is no note.
		if exit == ExitOK || !strings.Contains(out+errOut, "NOT_A_FILE") && !strings.Contains(out+errOut, "PATH_NOT_FOUND") {
			t.Errorf("exit %d, want NOT_A_FILE or PATH_NOT_FOUND\n%s%s", exit, out, errOut)
		}
	})
	t.Run("hook", func(t *testing.T) {
		in := bytes.ReplaceAll(fixture(t, "01-read.json", ws.Root), []byte("notes.txt"), []byte(testws.SpecialFIFO))
		runWithin(t, limit, in, "--root", ws.Root, "hook", "claude-code")
		out, errOut, _ := runWithin(t, limit, nil, "--root", ws.Root, "--json", "session", "show", "9ecf22fa-edf8-4332-ae85-b6d5456eda64")
		if strings.Contains(out, `"`+testws.SpecialFIFO+`:1-`) {
			t.Errorf("the FIFO was recorded as a read span:\n%s%s", out, errOut)
		}
	})
	t.Run("session", func(t *testing.T) {
		dir := filepath.Join(ws.Root, ".retrieve", "sessions")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(filepath.Join(dir, "fifo-session.jsonl"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, exit := runWithin(t, limit, nil, "--root", ws.Root, "--json", "session", "show", "fifo-session")
		if exit == ExitOK {
			t.Errorf("session show of a FIFO journal: exit 0\n%s%s", out, errOut)
		}
		runWithin(t, limit, nil, "--root", ws.Root, "--json", "session", "list")
	})
	t.Run("config", func(t *testing.T) {
		ws2 := testws.New(t)
		if err := os.MkdirAll(filepath.Join(ws2.Root, ".retrieve"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(filepath.Join(ws2.Root, ".retrieve", "config.yaml"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, exit := runWithin(t, limit, nil, "--root", ws2.Root, "--json", "get", "notes.txt")
		if exit == ExitOK || !strings.Contains(out+errOut, "config.yaml") {
			t.Errorf("a FIFO configuration: exit %d\n%s%s", exit, out, errOut)
		}
	})
}

// TestSecuritySIGTERMEndsCheck: SIGTERM ends `retrieve check` within a
// second while its citations wait on a page that never answers and on
// special files. Before, check blocked in openat on a FIFO ignored
// SIGTERM for ten minutes.
func TestSecuritySIGTERMEndsCheck(t *testing.T) {
	bin := binary(t)
	release := make(chan struct{})
	waiting := make(chan struct{}, 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		waiting <- struct{}{}
		select { // never answers while the test runs
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ws := testws.New(t)
	ws.AddSpecialFiles(t)
	ws.Write(".retrieve/config.yaml", "web:\n  allow_hosts: [127.0.0.1]\n")
	var doc strings.Builder
	for i := range 20 {
		fmt.Fprintf(&doc, "See [slow %d](%s/slow%d#:~:text=never) and [pipe](%s:1-1).\n", i, srv.URL, i, testws.SpecialFIFO)
	}
	name := ws.Write("answer.md", doc.String())
	cmd := exec.Command(bin, "--root", ws.Root, "check", name)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-waiting: // a citation is being checked, and waits
	case err := <-done:
		t.Fatalf("check ended before any citation waited: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("check never asked the slow page")
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("retrieve check did not end within 1 s of SIGTERM")
	}
}
