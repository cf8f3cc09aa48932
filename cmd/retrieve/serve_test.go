package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/ops"
)

func serveWorkspace(t *testing.T) *testws.Workspace {
	ws := testws.New(t)
	ws.Write("a.txt", "one\ntwo\nthree\n")
	ws.Write("README.md", "# Title\n\nSome text.\n")
	if out, err := exec.Command(binary(t), "--root", ws.Root, "init").CombinedOutput(); err != nil {
		t.Fatalf("init: %v %s", err, out)
	}
	return ws
}

// exercise lists the tools and calls retrieve, then log, through a real
// client session, and returns the retrieval id.
func exercise(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"retrieve", "verify", "quote", "log", "show"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Fatalf("tools %v lack %s", names, want)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "retrieve", Arguments: map[string]any{"target": "a.txt", "lines": "2"}})
	if err != nil || res.IsError {
		t.Fatalf("retrieve: %v %+v", err, res)
	}
	if err := contracttest.Validate(res.StructuredContent); err != nil {
		t.Fatal(err)
	}
	sc := res.StructuredContent.(map[string]any)
	if sc["retrieved"].(map[string]any)["data"] != "two\n" {
		t.Fatalf("data: %v", sc["retrieved"])
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "retrieve", Arguments: map[string]any{"target": "../outside"}})
	if err != nil || !res.IsError {
		t.Fatalf("outside root: %v %+v", err, res)
	}
	return sc["retrieval_id"].(string)
}

// TestServeStdio drives the built binary over real stdio with the Go SDK client.
func TestServeStdio(t *testing.T) {
	ws := serveWorkspace(t)
	cmd := exec.Command(binary(t), "--root", ws.Root, "serve", "--stdio")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := exercise(t, cs)
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	out, err := exec.Command(binary(t), "--root", ws.Root, "show", id, "--json").CombinedOutput()
	if err != nil || !strings.Contains(string(out), id) {
		t.Fatalf("the stdio retrieval is not in the ledger: %v %s", err, out)
	}
}

// startHTTP runs `retrieve serve --http 127.0.0.1:0` and returns its base URL.
func startHTTP(t *testing.T, root string, env []string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"--root", root, "serve"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	re := regexp.MustCompile(`api=http://([^/ ]+)/v1/`)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			return "http://" + m[1], cmd
		}
	}
	t.Fatal("the server did not say where it listens")
	return "", nil
}

func TestServeHTTP(t *testing.T) {
	ws := serveWorkspace(t)
	base, cmd := startHTTP(t, ws.Root, []string{"RETRIEVE_TOKEN=tok-123"}, "--http", "127.0.0.1:0")
	hc := &http.Client{Transport: bearer{"tok-123"}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := exercise(t, cs)
	_ = cs.Close()

	resp, err := hc.Get(base + "/v1/show?id=" + id)
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&r)
	resp.Body.Close()
	if resp.StatusCode != 200 || r["retrieval_id"] != id {
		t.Fatalf("show over /v1: %d %v", resp.StatusCode, r)
	}
	resp, err = http.Post(base+"/v1/retrieve", "application/json", strings.NewReader(`{"target":"a.txt"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("no token: %d", resp.StatusCode)
	}
	// SIGTERM: the server drains and exits 0.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not stop on SIGTERM")
	}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestServeRefusesOpenBindWithoutToken(t *testing.T) {
	ws := serveWorkspace(t)
	cmd := exec.Command(binary(t), "--root", ws.Root, "serve", "--http", "0.0.0.0:0")
	cmd.Env = append(os.Environ(), "RETRIEVE_TOKEN=")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "PERMISSION_DENIED") || !strings.Contains(string(out), "RETRIEVE_TOKEN") {
		t.Fatalf("open bind without token: %v %s", err, out)
	}
	out, err = exec.Command(binary(t), "--root", ws.Root, "serve").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--stdio or --http") {
		t.Fatalf("no transport: %v %s", err, out)
	}
}

// TestServeStdioSignal: SIGTERM to an idle stdio server ends it with
// status 0, and what it answered before is in the ledger.
func TestServeStdioSignal(t *testing.T) {
	ws := serveWorkspace(t)
	cmd := exec.Command(binary(t), "--root", ws.Root, "serve", "--stdio")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"retrieve","arguments":{"target":"a.txt"}}}`,
	} {
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	var id string
	for id == "" {
		s, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if m := regexp.MustCompile(`"retrieval_id":"([^"]+)"`).FindStringSubmatch(s); m != nil {
			id = m[1]
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the stdio server did not stop on SIGTERM")
	}
	if out, err := exec.Command(binary(t), "--root", ws.Root, "show", id, "--json").CombinedOutput(); err != nil {
		t.Fatalf("retrieval %s not in the ledger: %v %s", id, err, out)
	}
}

// A client that writes its requests and closes stdin at once (a shell
// pipe) gets every reply before the server exits.
func TestServeStdioRepliesBeforeEOF(t *testing.T) {
	ws := serveWorkspace(t)
	cmd := exec.Command(binary(t), "--root", ws.Root, "serve", "--stdio")
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"retrieve","arguments":{"target":"a.txt"}}}`,
	}, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("serve: %v", err)
	}
	seen := map[float64]bool{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		var m struct {
			ID     *float64        `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON-RPC: %q", line)
		}
		if m.ID != nil && m.Result != nil {
			seen[*m.ID] = true
		}
	}
	for _, id := range []float64{0, 1, 2} {
		if !seen[id] {
			t.Errorf("no reply to request %v before exit; got:\n%s", id, out)
		}
	}
	if !strings.Contains(string(out), `"retrieval_id"`) {
		t.Errorf("the retrieve call did not answer with a result:\n%s", out)
	}
}

// stdioToolNames lists the tools of `serve --stdio ARGS…` and calls an old
// tool name (verify → verify_citation) through its alias.
func stdioToolNames(t *testing.T, root string, args ...string) ([]string, string) {
	t.Helper()
	return stdioToolNamesEnv(t, root, nil, args...)
}

// stdioToolNamesEnv is stdioToolNames with env added to the environment.
func stdioToolNamesEnv(t *testing.T, root string, env []string, args ...string) ([]string, string) {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"--root", root, "serve", "--stdio"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"quote","arguments":{"ref":"a.txt","text":"hello"}}}`,
	}, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("serve %v: %v", args, err)
	}
	var names []string
	var call string
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		var m struct {
			ID     float64 `json:"id"`
			Result struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			} `json:"result"`
		}
		_ = json.Unmarshal([]byte(line), &m)
		switch m.ID {
		case 1:
			for _, tl := range m.Result.Tools {
				names = append(names, tl.Name)
			}
		case 2:
			call = line
		}
	}
	return names, call
}

// TestServeToolSelection: --tools lists only the named tools, --read-only
// leaves every write tool out, an unknown name fails at startup, and a
// former tool name still answers tools/call.
func TestServeToolSelection(t *testing.T) {
	ws := serveWorkspace(t)
	names, call := stdioToolNames(t, ws.Root, "--tools", "retrieve,quote")
	if slices.Sort(names); strings.Join(names, ",") != "check_quote,retrieve" {
		t.Errorf("--tools retrieve,quote listed %v", names)
	}
	if !strings.Contains(call, `"FOUND at`) && !strings.Contains(call, "a.txt") {
		t.Errorf("the alias quote did not reach check_quote: %s", call)
	}
	names, _ = stdioToolNames(t, ws.Root, "--read-only")
	for _, n := range names {
		if strings.Contains(n, "write") || n == "graph_ingest" || n == "graph_ask" {
			t.Errorf("--read-only listed the write tool %s", n)
		}
	}
	if len(names) < 5 {
		t.Errorf("--read-only listed %v", names)
	}
	out, err := exec.Command(binary(t), "--root", ws.Root, "serve", "--stdio", "--tools", "nope").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "retrieve_many") {
		t.Errorf("--tools nope: %v %s", err, out)
	}
}

// TestServeToolsets: the default MCP tool list is the default toolsets;
// --toolsets and RETRIEVE_TOOLSETS choose others ("all" for every tool), the
// flag over the variable; an unknown toolset fails at startup with the list.
func TestServeToolsets(t *testing.T) {
	ws := serveWorkspace(t)
	sorted := func(n []string) string { slices.Sort(n); return strings.Join(n, ",") }
	var want []string
	for _, set := range ops.DefaultToolsets {
		want = append(want, ops.Toolsets[set]...)
	}
	names, _ := stdioToolNames(t, ws.Root)
	if got := sorted(names); got != sorted(want) {
		t.Errorf("default tool list %s, want the default toolsets' %s", got, sorted(want))
	}
	names, _ = stdioToolNames(t, ws.Root, "--toolsets", "graph,wiki")
	if got := sorted(names); got != sorted(append(append([]string{}, ops.Toolsets["graph"]...), ops.Toolsets["wiki"]...)) {
		t.Errorf("--toolsets graph,wiki listed %s", got)
	}
	names, _ = stdioToolNamesEnv(t, ws.Root, []string{"RETRIEVE_TOOLSETS=session"})
	if got := sorted(names); got != sorted(append([]string{}, ops.Toolsets["session"]...)) {
		t.Errorf("RETRIEVE_TOOLSETS=session listed %s", got)
	}
	names, _ = stdioToolNamesEnv(t, ws.Root, []string{"RETRIEVE_TOOLSETS=session"}, "--toolsets", "ledger")
	if got := sorted(names); got != "cite_retrieval,retrieval_log,show_retrieval" {
		t.Errorf("--toolsets ledger with RETRIEVE_TOOLSETS=session listed %s: the flag wins", got)
	}
	all, _ := stdioToolNames(t, ws.Root, "--toolsets", "all")
	if len(all) <= len(want) {
		t.Errorf("--toolsets all listed %d tools, the default %d", len(all), len(want))
	}
	names, _ = stdioToolNamesEnv(t, ws.Root, []string{"RETRIEVE_READ_ONLY=1"}, "--toolsets", "all")
	for _, n := range names {
		if n == "memory_write" || n == "wiki_write" || n == "graph_ingest" {
			t.Errorf("RETRIEVE_READ_ONLY=1 listed the write tool %s", n)
		}
	}
	out, err := exec.Command(binary(t), "--root", ws.Root, "serve", "--stdio", "--toolsets", "nope").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "no toolset") || !strings.Contains(string(out), "ledger") {
		t.Errorf("--toolsets nope: %v %s", err, out)
	}
}

// Every retrieval `serve` acknowledged is in the ledger for another process
// at once while the server runs, and after the server is killed with
// SIGKILL: the server acknowledges from its journal (docs/ledger.md), which
// the next reader folds.
func TestServeStdioKilledKeepsAcknowledged(t *testing.T) {
	ws := serveWorkspace(t)
	bin := binary(t)
	cmd := exec.Command(bin, "--root", ws.Root, "serve", "--stdio")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	r := bufio.NewReader(stdout)
	send := func(line string) {
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	idRE := regexp.MustCompile(`"retrieval_id":"([^"]+)"`)
	// Calls 10 and on read files never read before: their small snapshots
	// wait in the journal with their entries.
	for i := 10; i < 40; i++ {
		ws.Write(fmt.Sprintf("f%d.txt", i), fmt.Sprintf("the content of file %d\n", i))
	}
	call := func(i int) string {
		args := fmt.Sprintf(`{"target":"a.txt","lines":"%d-%d"}`, i%3+1, i%3+1)
		if i >= 10 {
			args = fmt.Sprintf(`{"target":"f%d.txt"}`, i)
		}
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"retrieve","arguments":%s}}`, i+1, args))
		s, err := r.ReadString('\n')
		// Notifications (resources/list_changed) may come between responses.
		for err == nil && strings.HasPrefix(s, `{"jsonrpc":"2.0","method":"notifications/`) {
			s, err = r.ReadString('\n')
		}
		if err != nil {
			t.Fatal(err)
		}
		m := idRE.FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("call %d: no retrieval_id in %s", i, s)
		}
		return m[1]
	}
	var ids []string
	for i := range 10 {
		ids = append(ids, call(i))
	}
	// Another process reads the ledger right after the acknowledgement.
	out, err := exec.Command(bin, "--root", ws.Root, "show", ids[9], "--json").CombinedOutput()
	if err != nil || !strings.Contains(string(out), ids[9]) {
		t.Fatalf("the live server's last acknowledged retrieval is not visible to another process: %v %s", err, out)
	}
	for i := 10; i < 40; i++ {
		ids = append(ids, call(i))
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	pending, _ := filepath.Glob(filepath.Join(ws.Root, ".retrieve", "retrieve.db-pending", "*.jnl"))
	t.Logf("journal files left by the killed server: %d", len(pending))
	out, err = exec.Command(bin, "--root", ws.Root, "log", "--json", "--limit", "100").CombinedOutput()
	if err != nil {
		t.Fatalf("log after the kill: %v %s", err, out)
	}
	for i, id := range ids {
		if !strings.Contains(string(out), id) {
			t.Fatalf("acknowledged retrieval %d (%s) is lost after SIGKILL", i, id)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(ws.Root, ".retrieve", "retrieve.db-pending", "*.jnl")); len(left) != 0 {
		t.Fatalf("the killed server's journal was not removed after it was folded: %v", left)
	}
	// Its data is rebuilt from the snapshot that waited in the journal.
	if out, err := exec.Command(bin, "--root", ws.Root, "show", ids[len(ids)-1], "--json").CombinedOutput(); err != nil || !strings.Contains(string(out), "the content of file 39") {
		t.Fatalf("show the last acknowledged retrieval after the kill: %v %s", err, out)
	}
}
