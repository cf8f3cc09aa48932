package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecuritySessionSecretsAtRest runs a hostile session — hooked WebFetch
// calls whose URLs carry a password and a token, a no-store page retrieved
// with a selection (its text would go into a #:~:text= anchor) — then
// scans every file under .retrieve/ and the output of session show and
// session verify for the planted secrets. Before: the URL's password and
// token were in .retrieve/sessions/*.jsonl and printed by show and verify,
// and the no-store page's text was in the ledger's evidence anchor.
func TestSecuritySessionSecretsAtRest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><head><title>T</title></head><body><article><h1>Account</h1><p>NOSTORE-PAGE-TEXT for the account page, long enough to be the content.</p><h2>Other</h2><p>More text here.</p></article></body></html>")
	}))
	defer srv.Close()
	ws := sessionWorkspace(t)
	ws.Write(".retrieve/config.yaml", "web:\n  allow_hosts: [127.0.0.1]\n")
	secrets := []string{"HOOKPASS-91f2", "HOOKTOKEN-5c3e", "NOSTORE-PAGE-TEXT", "NOSTORE%2DPAGE%2DTEXT"}
	hostile := "http://agent:HOOKPASS-91f2@127.0.0.1:9/private?token=HOOKTOKEN-5c3e&page=2"
	fetch := bytes.ReplaceAll(fixture(t, "03-webfetch.json", ws.Root), []byte("http://127.0.0.1:9/changelog"), []byte(hostile))
	runHookInput(t, "claude-code", fixture(t, "01-read.json", ws.Root), "--root", ws.Root)
	runHookInput(t, "claude-code", fetch, "--root", ws.Root)
	generic := fmt.Sprintf(`{"event": "fetch", "session_id": "generic-1", "url": %q, "content": "page"}`, hostile)
	runHookInput(t, "json", []byte(generic), "--root", ws.Root)
	if out, errOut, code := runCLI(t, "--root", ws.Root, "get", srv.URL+"/account", "--section", "Account", "--json"); code != ExitOK || !strings.Contains(out, "NOSTORE") {
		t.Fatalf("get of the no-store page: exit %d\n%s%s", code, out, errOut)
	}
	var outputs []string
	for _, args := range [][]string{
		{"session", "show", "9ecf22fa-edf8-4332-ae85-b6d5456eda64"},
		{"session", "verify", "9ecf22fa-edf8-4332-ae85-b6d5456eda64"},
		{"session", "show", "generic-1"},
		{"log"},
	} {
		out, errOut, _ := runCLI(t, append([]string{"--root", ws.Root, "--json"}, args...)...)
		outputs = append(outputs, out+errOut)
		if args[0] == "session" && args[1] == "show" && !strings.Contains(out, "127.0.0.1:9/private") {
			t.Errorf("%v does not show the fetch at all:\n%s%s", args, out, errOut)
		}
	}
	for i, o := range outputs {
		for _, s := range secrets[:2] {
			if strings.Contains(o, s) {
				t.Errorf("output %d prints the secret %s:\n%.1500s", i, s, o)
			}
		}
	}
	files := 0
	err := filepath.WalkDir(filepath.Join(ws.Root, ".retrieve"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds %s", p, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 2 {
		t.Fatalf("%d files under .retrieve/, want the store and the session journals", files)
	}
}

// TestSecurityForgedSessionLines: session verify over forged journal lines
// (a blob that is no hash, a retrieval id that is no id, an unknown kind,
// a reference out of the root) reports each source unavailable with a
// typed error, never INTERNAL.
func TestSecurityForgedSessionLines(t *testing.T) {
	ws := sessionWorkspace(t)
	ws.Write(".retrieve/sessions/forged.jsonl", strings.Join([]string{
		`{"type":"source","id":"1","session":"forged","time":"2026-01-01T00:00:00Z","kind":"file","reference":"notes.txt:1-1","blob":"sha256:zz","hash":"sha256:00"}`,
		`{"type":"source","id":"2","session":"forged","time":"2026-01-01T00:00:00Z","kind":"file","reference":"notes.txt:1-1","retrieval_id":"not-an-id"}`,
		`{"type":"source","id":"3","session":"forged","time":"2026-01-01T00:00:00Z","kind":"nope","reference":"::::","hash":"sha256:00"}`,
		`{"type":"source","id":"4","session":"forged","time":"2026-01-01T00:00:00Z","kind":"file","reference":"notes.txt:1-1","blob":"sha256:../../../../etc/passwd","hash":"sha256:00"}`,
		`{"type":"source","id":"5","session":"forged","time":"bogus","kind":"listed","reference":"../../etc/passwd"}`,
	}, "\n")+"\n")
	out, errOut, _ := runCLI(t, "--root", ws.Root, "--json", "session", "verify", "forged")
	if strings.Contains(out+errOut, "INTERNAL") {
		t.Errorf("session verify answers INTERNAL for forged lines:\n%s%s", out, errOut)
	}
	if !strings.Contains(out, "PARSE_FAILED") || !strings.Contains(out, `"unavailable": 4`) {
		t.Errorf("want each forged source unavailable with a typed error:\n%.3000s%s", out, errOut)
	}
}

// TestSecurityMCPInstallHooksAllOrNothing: when .claude/settings.json
// cannot take the hooks (read-only, or not JSON), `mcp install --hooks`
// writes nothing at all. Before, .mcp.json was written and the install
// stopped half-done.
func TestSecurityMCPInstallHooksAllOrNothing(t *testing.T) {
	for name, setup := range map[string]func(t *testing.T, settings string){
		"ErrReadOnly": func(t *testing.T, settings string) {
			if err := os.WriteFile(settings, []byte(`{"model": "opus"}`), 0o444); err != nil {
				t.Fatal(err)
			}
		},
		"ErrNotJSON": func(t *testing.T, settings string) {
			if err := os.WriteFile(settings, []byte(`{"model": `), 0o644); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("HOME", t.TempDir())
			root := t.TempDir()
			settings := filepath.Join(root, ".claude", "settings.json")
			if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
				t.Fatal(err)
			}
			setup(t, settings)
			out, errOut, code := runCLI(t, "--root", root, "mcp", "install", "--client", "claude-code", "--hooks")
			if code == ExitOK {
				t.Fatalf("exit 0 with an unusable settings.json:\n%s%s", out, errOut)
			}
			if _, err := os.Stat(filepath.Join(root, ".mcp.json")); err == nil {
				t.Errorf(".mcp.json was written although the hooks could not be:\n%s%s", out, errOut)
			}
		})
	}
}
