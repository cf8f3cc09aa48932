package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/internal/testws"
)

// TestSecurityServeWeakToken: off loopback, a guessable RETRIEVE_TOKEN is
// refused at startup with a hint to generate one, and the token is not
// echoed. (The server stops before it listens.)
func TestSecurityServeWeakToken(t *testing.T) {
	ws := serveWorkspace(t)
	for _, tok := range []string{"a", " ", "password1234", "tok-123tok-123tok-123"} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, binary(t), "--root", ws.Root, "serve", "--http", "0.0.0.0:0")
		cmd.Env = append(os.Environ(), "RETRIEVE_TOKEN="+tok)
		out, err := cmd.CombinedOutput()
		cancel()
		if err == nil || !strings.Contains(string(out), "PERMISSION_DENIED") || !strings.Contains(string(out), "openssl rand -hex 32") {
			t.Errorf("token %q: %v %s", tok, err, out)
		}
		if len(strings.TrimSpace(tok)) > 1 && strings.Contains(string(out), tok) {
			t.Errorf("token %q echoed: %s", tok, out)
		}
	}
}

// TestSecurityServeRebinding drives the real server: a rebound name in
// Host is refused on /v1/log (recorded data), /metrics and /healthz.
func TestSecurityServeRebinding(t *testing.T) {
	ws := serveWorkspace(t)
	base, _ := startHTTP(t, ws.Root, nil, "--http", "127.0.0.1:0")
	for _, p := range []string{"/v1/log", "/v1/show?id=x", "/metrics", "/healthz"} {
		req, _ := http.NewRequest("GET", base+p, nil)
		req.Host = "rebound.attacker.example"
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 403 || !strings.Contains(string(b), "PERMISSION_DENIED") {
			t.Errorf("%s with a rebound Host: %d %s", p, resp.StatusCode, b)
		}
	}
	resp, err := http.Get(base + "/v1/log")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("loopback Host: %d", resp.StatusCode)
	}
}

// procStatus reads a field (in kB) of /proc/PID/status; the test skips
// where there is no /proc.
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc here (%v): cannot read the server's memory", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, field+":"); ok {
			f := strings.Fields(rest)
			n, _ := strconv.ParseInt(f[0], 10, 64)
			return n << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// jqBombs build huge values in steps no deadline interrupts.
var jqBombs = []string{
	`"a" * 1e9`,
	`[] | .[536870000] = 1`,
	`reduce range(40) as $i ([1]; [., .]) | tojson`,
	`reduce range(31) as $i ("a"; . + .)`,
}

// TestSecurityJQBombCLI: the CLI refuses a jq memory bomb with TOO_LARGE
// (exit code 6) at once.
func TestSecurityJQBombCLI(t *testing.T) {
	skipUnderRace(t)
	ws := serveWorkspace(t)
	ws.Write("d.json", `{"a":[1,2,3]}`)
	for _, e := range jqBombs[:2] {
		cmd := exec.Command(binary(t), "--root", ws.Root, "get", "d.json", "--select", e, "--json")
		out, err := cmd.Output()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != ExitFormat || !strings.Contains(string(out), `"TOO_LARGE"`) {
			t.Errorf("get --select %q: %v %s", e, err, out)
		}
	}
}

// refusedBomb reports whether a reply refuses a jq bomb: TOO_LARGE, or
// TIMEOUT when the bombs queued for the sandbox past the 5 s limit on a
// loaded machine. Either way no data came back.
func refusedBomb(body string) bool {
	return (strings.Contains(body, `"TOO_LARGE"`) || strings.Contains(body, `"TIMEOUT"`)) && strings.Contains(body, `"data":null`)
}

// TestSecurityJQBombServer sends a batch of jq memory bombs to a real
// server, concurrently over /v1/retrieve and MCP: each is refused with
// TOO_LARGE (or TIMEOUT when queued past 5 s), and the server's peak resident memory stays bounded (the
// bombs run in children capped by the kernel).
func TestSecurityJQBombServer(t *testing.T) {
	skipUnderRace(t)
	ws := serveWorkspace(t)
	ws.Write("d.json", `{"a":[1,2,3]}`)
	base, cmd := startHTTP(t, ws.Root, nil, "--http", "127.0.0.1:0")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bomb", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for round := 0; round < 1; round++ {
		for _, e := range jqBombs {
			wg.Add(2)
			go func() {
				defer wg.Done()
				body, _ := json.Marshal(map[string]any{"target": "d.json", "select": e})
				resp, err := http.Post(base+"/v1/retrieve", "application/json", bytes.NewReader(body))
				if err != nil {
					errs <- err.Error()
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !refusedBomb(string(b)) || resp.StatusCode != 413 && resp.StatusCode != 504 {
					errs <- fmt.Sprintf("/v1 %q: %d %.300s", e, resp.StatusCode, b)
				}
			}()
			go func() {
				defer wg.Done()
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "retrieve", Arguments: map[string]any{"target": "d.json", "select": e}})
				if err != nil {
					errs <- err.Error()
					return
				}
				b, _ := json.Marshal(res.StructuredContent)
				if !res.IsError || !refusedBomb(string(b)) {
					errs <- fmt.Sprintf("mcp %q: %.300s", e, b)
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	// VmHWM is the peak resident set of the server process since it
	// started; one bomb in-process reached gigabytes.
	if peak := procStatus(t, cmd.Process.Pid, "VmHWM"); peak > 200<<20 {
		t.Errorf("server peak RSS %d MiB after the bombs, want < 200 MiB", peak>>20)
	} else {
		t.Logf("server peak RSS after %d bombs: %d MiB", 2*len(jqBombs), peak>>20)
	}
	// The server still answers.
	resp, err := http.Post(base+"/v1/retrieve", "application/json", strings.NewReader(`{"target":"d.json","select":".a[1]"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"data":2`) {
		t.Fatalf("after the bombs: %d %s", resp.StatusCode, b)
	}
}

// TestSecurityURLSecretsNotAtRest: credentials in a URL (userinfo, token
// query parameters) reach the server they are meant for, and appear in no
// output of the CLI, /v1 or MCP — target, source, reference, anchors,
// errors, log, show — nor anywhere in the workspace's store files.
func TestSecurityURLSecretsNotAtRest(t *testing.T) {
	secrets := []string{"pw-S3CRET-cli", "tok-S3CRET-cli", "key-S3CRET-api", "pw-S3CRET-404", "pw-S3CRET-srv", "tok-S3CRET-mcp"}
	var gotAuth atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pw, ok := r.BasicAuth(); ok && strings.HasPrefix(pw, "pw-S3CRET") {
			gotAuth.Add(1) // the credential is used for the fetch
		}
		switch r.URL.Path {
		case "/robots.txt", "/missing":
			http.NotFound(w, r)
		case "/page":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><head><title>T</title></head><body><article><p>Some article text, long enough to be the content of a page.</p></article></body></html>")
		case "/api":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"ok":true}`)
		}
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	ws := serveWorkspace(t)
	ws.Write(".retrieve/config.yaml", "web:\n  allow_hosts: [127.0.0.1]\n")
	var seen strings.Builder
	cli := func(args ...string) string {
		t.Helper()
		out, errOut, _ := runCLI(t, append([]string{"--root", ws.Root}, args...)...)
		seen.WriteString(out + errOut)
		return out
	}
	out := cli("get", "http://alice:pw-S3CRET-cli@"+host+"/page?token=tok-S3CRET-cli&x=1", "--json")
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil || res["error"] != nil {
		t.Fatalf("get: %v %s", err, out)
	}
	if tgt := res["retrieved"].(map[string]any)["target"]; tgt != "http://"+host+"/page?token=REDACTED&x=1" {
		t.Errorf("retrieved.target = %v", tgt)
	}
	id := res["retrieval_id"].(string)
	cli("get", "http://"+host+"/api?api_key=key-S3CRET-api", "--source", "api", "--json")
	out = cli("get", "http://carol:pw-S3CRET-404@"+host+"/missing", "--json")
	if !strings.Contains(out, "UPSTREAM_STATUS") {
		t.Errorf("404: %s", out)
	}
	cli("log", "--json")
	cli("show", id, "--json")
	cli("log", "--target", "http://alice:pw-S3CRET-cli@"+host+"/page?token=tok-S3CRET-cli&x=1", "--json")

	base, cmd := startHTTP(t, ws.Root, nil, "--http", "127.0.0.1:0")
	post := func(path, body string) {
		resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		seen.Write(b)
	}
	get := func(path string) {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		seen.Write(b)
	}
	post("/v1/retrieve", `{"target":"http://dave:pw-S3CRET-srv@`+host+`/page?x=2"}`)
	get("/v1/log")
	get("/v1/show?id=" + id)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "sec", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, call := range []*mcp.CallToolParams{
		{Name: "retrieve", Arguments: map[string]any{"target": "http://" + host + "/page?access_token=tok-S3CRET-mcp"}},
		{Name: "log", Arguments: map[string]any{}},
		{Name: "show", Arguments: map[string]any{"id": id}},
	} {
		r, err := cs.CallTool(context.Background(), call)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(r)
		seen.Write(b)
	}
	cs.Close()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()

	if gotAuth.Load() == 0 {
		t.Error("the server never received the URL's credentials: the test proves nothing")
	}
	for _, s := range secrets {
		if strings.Contains(seen.String(), s) {
			t.Errorf("secret %s appears in an output", s)
		}
	}
	// Nothing at rest: every file of the workspace's state.
	_ = filepath.WalkDir(filepath.Join(ws.Root, ".retrieve"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("secret %s is stored in %s", s, p)
			}
		}
		return nil
	})
}

// TestSecurityBlockedSchemesCLI: the CLI refuses file: and gopher:
// targets with BLOCKED_ADDRESS (exit 4), as docs/web.md says.
func TestSecurityBlockedSchemesCLI(t *testing.T) {
	ws := testws.New(t)
	for _, target := range []string{"file:///etc/passwd", "file:/etc/passwd", "gopher://127.0.0.1:70/_x", "gopher:x"} {
		out, errOut, code := runCLI(t, "--root", ws.Root, "get", target, "--json")
		if code != ExitRefused || !strings.Contains(out, `"BLOCKED_ADDRESS"`) || strings.Contains(out+errOut, "root:") {
			t.Errorf("get %s: exit %d %s %s", target, code, out, errOut)
		}
	}
}

// TestSecurityCacheControl: a page that says Cache-Control: no-store is
// never snapshotted, recorded with its data, nor served again from the
// ledger (revalidation, --fallback snapshot); "private" is kept by the
// workspace's own SQLite store but not by a shared PostgreSQL store.
func TestSecurityCacheControl(t *testing.T) {
	var failing atomic.Bool
	var bodies atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		if failing.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		switch r.URL.Path {
		case "/nostore":
			w.Header().Set("Cache-Control", "max-age=600, no-store")
		case "/private":
			w.Header().Set("Cache-Control", "private, max-age=600")
		}
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		bodies.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><head><title>T</title></head><body><article><p>PRIVATE-BODY-TEXT of %s, long enough to be the content of a page.</p></article></body></html>", r.URL.Path)
	}))
	defer srv.Close()
	type outcome struct {
		from, data string
		failed     bool
	}
	get := func(ws *testws.Workspace, store string, path string, extra ...string) outcome {
		t.Helper()
		args := []string{"--root", ws.Root}
		if store != "" {
			args = append(args, "--store", store)
		}
		out, _, _ := runCLI(t, append(append(args, "get", srv.URL+path, "--json"), extra...)...)
		var res retrieve.Result
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%s: %v %s", path, err, out)
		}
		d, _ := res.Retrieved.Data.(string)
		return outcome{from: res.Provenance.RetrievedFrom, data: d, failed: res.Error != nil}
	}
	storeFilesHold := func(ws *testws.Workspace, text string) bool {
		found := false
		_ = filepath.WalkDir(filepath.Join(ws.Root, ".retrieve"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(text)) {
					found = true
				}
			}
			return nil
		})
		return found
	}

	t.Run("NoStore", func(t *testing.T) {
		ws := testws.New(t)
		ws.Write(".retrieve/config.yaml", "web:\n  allow_hosts: [127.0.0.1]\n")
		bodies.Store(0)
		for i := range 2 {
			o := get(ws, "", "/nostore")
			if o.from != "live" || !strings.Contains(o.data, "PRIVATE-BODY-TEXT") {
				t.Fatalf("get %d: %+v", i, o)
			}
		}
		if bodies.Load() != 2 {
			t.Errorf("the page was sent %d times, want 2: a no-store page is never revalidated from a snapshot", bodies.Load())
		}
		failing.Store(true)
		defer failing.Store(false)
		if o := get(ws, "", "/nostore", "--fallback", "snapshot"); !o.failed {
			t.Errorf("--fallback snapshot served a no-store page: %+v", o)
		}
		if storeFilesHold(ws, "PRIVATE-BODY-TEXT") {
			t.Error("the no-store page's text is in the store files")
		}
		out, _, _ := runCLI(t, "--root", ws.Root, "log", "--json")
		if strings.Contains(out, "PRIVATE-BODY-TEXT") {
			t.Error("log shows the no-store page's text")
		}
	})
	t.Run("PrivateOnOwnStore", func(t *testing.T) {
		ws := testws.New(t)
		ws.Write(".retrieve/config.yaml", "web:\n  allow_hosts: [127.0.0.1]\n")
		get(ws, "", "/private")
		if o := get(ws, "", "/private"); o.from != "revalidated" {
			t.Errorf("a private page on the workspace's own store: %+v, want revalidated", o)
		}
	})
	t.Run("PrivateOnSharedStore", func(t *testing.T) {
		if os.Getenv("RETRIEVE_TEST_POSTGRES") == "" {
			if os.Getenv("CI") != "" {
				t.Fatal("RETRIEVE_TEST_POSTGRES is unset under CI")
			}
			t.Skip("RETRIEVE_TEST_POSTGRES is unset: the shared-store case needs PostgreSQL (CI sets it)")
		}
		pg := pgtest.URL(t, "sec_private")
		ws := testws.New(t)
		ws.Write(".retrieve/config.yaml", "web:\n  allow_hosts: [127.0.0.1]\n")
		get(ws, pg, "/private")
		if o := get(ws, pg, "/private"); o.from != "live" {
			t.Errorf("a private page on a shared store: %+v, want live (never kept)", o)
		}
		out, _, _ := runCLI(t, "--root", ws.Root, "--store", pg, "log", "--json")
		if strings.Contains(out, "PRIVATE-BODY-TEXT") {
			t.Error("the shared ledger holds the private page's text")
		}
	})
}

// skipUnderRace skips a test that runs jq in its sandbox child through this
// test binary: built with -race, the child cannot start under the
// sandbox's address-space limit (RLIMIT_AS; "too many address space
// collisions for -race mode"). The plain `go test ./...` (the README's, and
// CI's first test step) runs these tests.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("the jq sandbox's address-space limit leaves no room for the race runtime; go test ./... without -race runs this test")
	}
}
