package mcpserver_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve/mcpserver"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// graph_verify and graph_forget over MCP: annotated as the table says
// (verify writes only its marks: neither read-only nor destructive;
// forget destructive), and a call with a progress token gets
// notifications/progress before its result; one without gets none.
func TestGraphCurateProgress(t *testing.T) {
	env := opstest.NewFull(t)
	srv := mcpserver.New(env.Table, mcpserver.Options{Store: env.Deps.Store})
	ctx := context.Background()
	var (
		mu    sync.Mutex
		notes []*mcp.ProgressNotificationParams
	)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			notes = append(notes, r.Params)
			mu.Unlock()
		}}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tl := range list.Tools {
		tools[tl.Name] = tl
	}
	v, f := tools["graph_verify"], tools["graph_forget"]
	if v == nil || f == nil {
		t.Fatal("graph_verify or graph_forget not listed")
	}
	if v.Annotations.ReadOnlyHint || v.Annotations.DestructiveHint == nil || *v.Annotations.DestructiveHint ||
		f.Annotations.ReadOnlyHint || f.Annotations.DestructiveHint == nil || !*f.Annotations.DestructiveHint {
		t.Fatalf("annotations: verify %+v, forget %+v", v.Annotations, f.Annotations)
	}
	call := func(name string, args map[string]any, token any) *mcp.CallToolResult {
		t.Helper()
		p := &mcp.CallToolParams{Name: name, Arguments: args}
		if token != nil {
			p.SetProgressToken(token)
		}
		res, err := cs.CallTool(ctx, p)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		return res
	}
	call("graph_ingest", map[string]any{"doc_id": "notes", "title": "Notes", "target": "notes.txt", "extraction": map[string]any{
		"entities":  []any{map[string]any{"name": "alpha", "type": "letter"}, map[string]any{"name": "beta", "type": "letter"}},
		"relations": []any{map[string]any{"source": "alpha", "target": "beta", "type": "precedes", "confidence": 1, "supporting_text": "alpha"}}}}, nil)
	call("graph_verify", map[string]any{}, nil)
	mu.Lock()
	if len(notes) != 0 {
		t.Fatalf("progress without a token: %+v", notes)
	}
	mu.Unlock()
	call("graph_verify", map[string]any{}, "v1")
	call("graph_forget", map[string]any{"source": "notes.txt"}, "f1")
	// Notifications are sent before the result; a client may handle them
	// after it returns.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(notes)
		mu.Unlock()
		if n >= 2 {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 2 || notes[0].ProgressToken != "v1" || notes[0].Progress != 1 || notes[0].Total != 1 || notes[0].Message != "verifying documents" ||
		notes[1].ProgressToken != "f1" || notes[1].Progress != 1 || notes[1].Total != 1 || notes[1].Message != "forgetting edges" {
		for _, n := range notes {
			t.Logf("%+v", n)
		}
		t.Fatal("progress notifications are not the calls'")
	}
}
