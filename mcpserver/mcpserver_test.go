package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/mcpserver"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/")

// connect runs the server of env over the in-memory transport and returns
// a connected Go SDK client session.
func connect(t *testing.T, env *opstest.Env) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	srv := mcpserver.New(env.Table, mcpserver.Options{Store: env.Deps.Store})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// transcript is a txtar-style golden file: "-- name --" sections of JSON.
type transcript struct {
	buf  bytes.Buffer
	root string
}

var scrubs = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`), "<time>"},
	{regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}`), "<uuid>"},
	{regexp.MustCompile(`"(age_seconds|duration_ms)": [0-9.e-]+`), `"$1": <n>`},
	{regexp.MustCompile(`"version": "[^"]*"`), `"version": "<version>"`},
	{regexp.MustCompile(`\b(sem|epi|proc)-\d{8}-`), "$1-<date>-"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\d`), "<date>"},
}

func (tr *transcript) add(name string, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	s := fmt.Sprintf("-- %s --\n%s\n", name, strings.ReplaceAll(string(b), tr.root, "<root>"))
	for _, sc := range scrubs {
		s = sc.re.ReplaceAllString(s, sc.with)
	}
	tr.buf.WriteString(s)
}

func (tr *transcript) check(t *testing.T, file string) {
	t.Helper()
	p := filepath.Join("testdata", file)
	if *update {
		if err := os.WriteFile(p, tr.buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./mcpserver -update)", err)
	}
	if !bytes.Equal(want, tr.buf.Bytes()) {
		t.Fatalf("transcript %s differs (go test ./mcpserver -update rewrites it); got:\n%s", p, tr.buf.String())
	}
}

// TestGoldenTranscript records initialize, tools/list and a success and an
// error of every tool.
func TestGoldenTranscript(t *testing.T) {
	env := opstest.New(t)
	cs := connect(t, env)
	ctx := context.Background()
	tr := &transcript{root: env.WS.Root}
	init := cs.InitializeResult()
	if init.ServerInfo == nil || init.ServerInfo.Version != retrieve.Version {
		t.Errorf("serverInfo = %+v, want version %s", init.ServerInfo, retrieve.Version)
	}
	tr.add("initialize", init)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr.add("tools/list", tools)
	for _, tool := range tools.Tools {
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s is not marked read-only", tool.Name)
		}
		if len(tool.Description) < 80 {
			t.Errorf("%s: description too thin for a model", tool.Name)
		}
	}
	call := func(name string, args any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: protocol error %v: tool failures must be results", name, err)
		}
		tr.add(fmt.Sprintf("tools/call %s %s", name, mustJSON(args)), res)
		return res
	}
	ok := call("retrieve", map[string]any{"target": "README.md", "sections": []string{"Install"}})
	if ok.IsError {
		t.Fatalf("retrieve failed: %+v", ok)
	}
	if err := contracttest.Validate(ok.StructuredContent); err != nil {
		t.Fatal(err)
	}
	id := ok.StructuredContent.(map[string]any)["retrieval_id"].(string)
	for _, c := range []struct {
		name   string
		args   any
		failed bool
		code   string
	}{
		{"retrieve", map[string]any{"target": "missing.md"}, true, "PATH_NOT_FOUND"},
		{"retrieve", map[string]any{"target": "README.md", "bogus": true}, true, "INPUT_VALIDATION_FAILED"},
		{"retrieve", map[string]any{"target": "notes.txt", "max_bytes": 8}, false, ""},
		{"verify", map[string]any{"id": id}, false, ""},
		{"verify", map[string]any{}, true, "INPUT_VALIDATION_FAILED"},
		{"quote", map[string]any{"ref": "README.md", "text": "a known place"}, false, ""},
		{"quote", map[string]any{"ref": "README.md", "text": "an unknown place"}, true, "QUOTE_NOT_FOUND"},
		{"log", map[string]any{"op": "get", "status": "error", "limit": 5}, false, ""},
		{"log", map[string]any{"since": "yesterday"}, true, "INPUT_VALIDATION_FAILED"},
		{"show", map[string]any{"id": id}, false, ""},
		{"show", map[string]any{"id": "nope"}, true, "NOT_FOUND"},
	} {
		res := call(c.name, c.args)
		if res.IsError != c.failed {
			t.Errorf("%s %v: isError %v", c.name, c.args, res.IsError)
		}
		sc, _ := res.StructuredContent.(map[string]any)
		if c.failed {
			e, _ := sc["error"].(map[string]any)
			if e == nil || e["code"] != c.code || e["hint"] == "" {
				t.Errorf("%s %v: structured error %v, want code %s with a hint", c.name, c.args, sc, c.code)
			}
		}
		if _, isResult := sc["retrieved"]; isResult {
			if err := contracttest.Validate(sc); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		}
		validateOutput(t, env.Table, c.name, res)
		if len(res.Content) != 1 {
			t.Errorf("%s: want one text content", c.name)
		}
	}
	trunc := call("retrieve", map[string]any{"target": "notes.txt", "max_bytes": 8})
	if ex := trunc.StructuredContent.(map[string]any)["extraction"].(map[string]any); ex["truncated"] != true {
		t.Errorf("max_bytes did not truncate: %v", ex)
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr.add("resources/templates/list", templates)
	hash := ok.StructuredContent.(map[string]any)["citation"].(map[string]any)["source_hash"].(string)
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "retrieve://snapshot/" + hash})
	if err != nil {
		t.Fatal(err)
	}
	if rr.Contents[0].Text != opstest.Files["README.md"] {
		t.Fatalf("snapshot resource: %+v", rr.Contents[0])
	}
	tr.add("resources/read snapshot", rr)
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "retrieve://snapshot/sha256:" + strings.Repeat("0", 64)}); err == nil {
		t.Fatal("reading a missing snapshot succeeded")
	}
	tr.check(t, "transcript.txtar")
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
