package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve/ops/opstest"
	"github.com/retrieve-dev/retrieve/ui"
)

// verify_citation and check_citations with session_id, called by an MCP
// client: each is recorded as a check of that session, which session_show
// lists and the UI's session page shows (as the CLI's --session does);
// without session_id nothing is recorded.
func TestSessionChecksOverMCP(t *testing.T) {
	env := opstest.NewFull(t)
	cs := connect(t, env)
	ctx := context.Background()
	const sid = "4b2e9c1a-0f3d-4e5b-9a7c-1d2e3f4a5b6c"
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		return m
	}
	r := call("retrieve", map[string]any{"target": "notes.txt", "lines": "1-2"})
	id := r["retrieval_id"].(string)
	call("verify_citation", map[string]any{"retrieval_id": id}) // no session: not recorded
	if v := call("verify_citation", map[string]any{"retrieval_id": id, "session_id": sid}); v["status"] != "verified" || len(v["notes"].([]any)) != 0 {
		t.Fatalf("verify: %v", v)
	}
	env.WS.Write("notes.txt", "omega\nbeta\ngamma\ndelta\n")
	if c := call("check_citations", map[string]any{"text": "The notes say \"alpha\" [notes.txt:1](notes.txt:1).\n", "session_id": sid}); c["failed"] != float64(1) {
		t.Fatalf("check: %v", c)
	}
	s := call("session_show", map[string]any{"session_id": sid})
	checks, _ := s["checks"].([]any)
	if len(checks) != 2 {
		t.Fatalf("session_show: %d checks, want 2: %v", len(checks), s)
	}
	v, c := checks[0].(map[string]any), checks[1].(map[string]any)
	if v["tool"] != "verify_citation" || v["status"] != "verified" || v["retrieval_id"] != id ||
		c["tool"] != "check_citations" || c["status"] != "fail" || c["reference"] != "draft" {
		t.Fatalf("session_show checks: %v", checks)
	}
	h, err := ui.New(env.Table, ui.Options{Workspace: env.WS.Root, Wiki: env.Wiki})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/ui/sessions/" + sid)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(b)
	for _, want := range []string{"Checks run in the session", "<code>verify_citation (MCP/HTTP)</code>", "<code>check_citations (MCP/HTTP)</code>",
		`<a href="/ui/r/` + id + `">`, `<span class="badge changed">fail</span>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the session page lacks %q", want)
		}
	}
}
