package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/testws"
)

func TestWebCLI(t *testing.T) {
	const secret = "sekrit-value-8f3a"
	t.Setenv("RETRIEVE_TEST_WEB_SECRET", secret)
	var bodies atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/page":
			w.Header().Set("ETag", `"e1"`)
			if r.Header.Get("If-None-Match") == `"e1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			bodies.Add(1)
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><head><title>T</title></head><body><article><p>Some article text, with commas, long enough to be content.</p></article></body></html>")
		case "/api":
			if r.Header.Get("Authorization") != "Bearer "+secret {
				http.Error(w, "denied", http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"user":{"name":"ada"}}`)
		}
	}))
	defer srv.Close()
	ws := testws.New(t)
	ws.Write(".retrieve/config.yaml", "web:\n  allow_hosts: [127.0.0.1]\n")

	t.Run("Blocked", func(t *testing.T) {
		other := testws.New(t)
		out, _, code := runCLI(t, "--root", other.Root, "get", srv.URL+"/page", "--json")
		if code != exitCode(retrieve.CodeBlockedAddress) || !strings.Contains(out, "BLOCKED_ADDRESS") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		contracttest.Check(t, []byte(out))
		out, _, code = runCLI(t, "--root", other.Root, "get", srv.URL+"/page", "--allow-host", "127.0.0.1", "--json")
		if code != ExitOK {
			t.Fatalf("--allow-host: exit %d\n%s", code, out)
		}
	})
	t.Run("Revalidated", func(t *testing.T) {
		bodies.Store(0)
		var froms []string
		for range 2 {
			out, errOut, code := runCLI(t, "--root", ws.Root, "get", srv.URL+"/page", "--json")
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			contracttest.Check(t, []byte(out))
			var res retrieve.Result
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatal(err)
			}
			froms = append(froms, res.Provenance.RetrievedFrom)
		}
		if froms[0] != "live" || froms[1] != "revalidated" || bodies.Load() != 1 {
			t.Fatalf("retrieved_from %v, bodies sent %d", froms, bodies.Load())
		}
		out, _, _ := runCLI(t, "--root", ws.Root, "get", srv.URL+"/page", "--max-age", "1h", "--json")
		if !strings.Contains(out, `"retrieved_from": "snapshot"`) {
			t.Fatalf("--max-age:\n%s", out)
		}
	})
	t.Run("SecretHeader", func(t *testing.T) {
		out, errOut, code := runCLI(t, "--root", ws.Root, "get", srv.URL+"/api", "--source", "api",
			"--header", "Authorization: Bearer ${env:RETRIEVE_TEST_WEB_SECRET}", "--select", ".user.name", "--json")
		if code != ExitOK || !strings.Contains(out, `"data": "ada"`) {
			t.Fatalf("exit %d: %s\n%s", code, errOut, out)
		}
		// And a failing call (wrong header) through the same paths.
		runCLI(t, "--root", ws.Root, "get", srv.URL+"/api", "--source", "api", "--header", "Authorization: Bearer x${env:RETRIEVE_TEST_WEB_SECRET}", "--json")
		logOut, _, _ := runCLI(t, "--root", ws.Root, "log", "--json")
		for name, s := range map[string]string{"stdout": out, "stderr": errOut, "log": logOut} {
			if strings.Contains(s, secret) {
				t.Errorf("the secret appears in %s", name)
			}
		}
		filepath.WalkDir(filepath.Join(ws.Root, ".retrieve"), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			b, _ := os.ReadFile(p)
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("the secret appears in %s", p)
			}
			return nil
		})
	})
	t.Run("Batch", func(t *testing.T) {
		list := ws.Write("urls.txt", fmt.Sprintf("# pages\n%s/page\n%s/api\n\n%s/page\n", srv.URL, srv.URL, srv.URL))
		out, _, code := runCLI(t, "--root", ws.Root, "get", "--batch", list, "--json")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 3 || code == ExitOK {
			t.Fatalf("exit %d, %d lines:\n%s", code, len(lines), out)
		}
		for i, l := range lines {
			contracttest.Check(t, []byte(l))
			if i == 1 && !strings.Contains(l, "UPSTREAM_STATUS") {
				t.Errorf("the /api line (no credentials, web source) should fail: %s", l)
			}
		}
	})
}
