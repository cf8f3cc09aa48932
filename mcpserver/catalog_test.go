package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve/mcpserver"
	"github.com/retrieve-dev/retrieve/ops/opstest"
	"github.com/retrieve-dev/retrieve/wiki"
)

// connectFull serves a full env with the wiki listed, as serve wires it,
// and counts the resource list_changed notifications the client receives.
func connectFull(t *testing.T, env *opstest.Env) (*mcp.ClientSession, chan struct{}) {
	t.Helper()
	ctx := context.Background()
	srv := mcpserver.New(env.Table, mcpserver.Options{Store: env.Deps.Store, Wiki: env.Wiki,
		Resources: []mcpserver.Resource{mcpserver.WikiResource(env.Wiki)}})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	changed := make(chan struct{}, 64)
	cl := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := cl.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, changed
}

func listResources(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Resource {
	t.Helper()
	out := map[string]*mcp.Resource{}
	for r, err := range cs.Resources(context.Background(), nil) {
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
		out[r.URI] = r
	}
	return out
}

func TestPromptsList(t *testing.T) {
	env := opstest.NewFull(t)
	cs, _ := connectFull(t, env)
	ctx := context.Background()
	res, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, p := range res.Prompts {
		got[p.Name] = true
	}
	for _, w := range mcpserver.Workflows {
		served := true
		for _, tool := range w.Tools {
			if _, ok := env.Table.Lookup(tool); !ok {
				served = false
			}
		}
		if got[w.Prompt.Name] != served {
			t.Errorf("prompt %s listed = %v, want %v (its tools %v)", w.Prompt.Name, got[w.Prompt.Name], served, w.Tools)
		}
	}
	if !got["cite_span"] || !got["check_citations"] {
		t.Fatalf("prompts %v: want cite_span and check_citations on a full server", got)
	}

	t.Run("OK", func(t *testing.T) {
		p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "cite_span", Arguments: map[string]string{"target": "README.md:1-3", "question": "What is it?"}})
		if err != nil {
			t.Fatal(err)
		}
		text := p.Messages[0].Content.(*mcp.TextContent).Text
		for _, want := range []string{`"README.md:1-3"`, "What is it?", "retrieve tool", "check_quote"} {
			if !strings.Contains(text, want) {
				t.Errorf("cite_span text lacks %q:\n%s", want, text)
			}
		}
	})
	t.Run("ErrMissingArgument", func(t *testing.T) {
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "cite_span", Arguments: map[string]string{}}); err == nil || !strings.Contains(err.Error(), "target") {
			t.Fatalf("got %v, want an error naming the required argument target", err)
		}
	})
}

// TestPromptsNameServedTools holds every prompt to the tools it names: a
// server without them (--tools, --read-only) does not offer the prompt.
func TestPromptsNameServedTools(t *testing.T) {
	env := opstest.New(t) // core tools only: no sessions, no graph
	cs := connect(t, env)
	res, err := cs.ListPrompts(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Prompts {
		if p.Name == "verify_session" || p.Name == "ask_graph" {
			t.Errorf("prompt %s is offered by a server without its tools", p.Name)
		}
	}
	for _, w := range mcpserver.Workflows {
		for _, tool := range w.Tools {
			if !strings.Contains(w.Text(map[string]string{"target": "x", "document": "x", "question": "x"}), tool) {
				t.Errorf("prompt %s lists tool %s its text does not name", w.Prompt.Name, tool)
			}
		}
	}
}

func TestResourcesCatalog(t *testing.T) {
	env := opstest.NewFull(t)
	ctx := context.Background()
	if _, err := env.Wiki.Write(ctx, wikiPage()); err != nil {
		t.Fatal(err)
	}
	cs, changed := connectFull(t, env)

	before := listResources(t, cs)
	note := "retrieve://memory/sem-20250120-001"
	if before[note] == nil || before[note].Title != "Deploys need the staging token" {
		t.Fatalf("resources %v: want the memory note %s with its title", keys(before), note)
	}
	if before["retrieve://wiki/topic/why-deploys-fail"] == nil {
		t.Fatalf("resources %v: want the wiki page", keys(before))
	}

	// A recorded retrieval joins the list, and the client is told.
	time.Sleep(300 * time.Millisecond) // the notifications of the first listing
	for len(changed) > 0 {
		<-changed
	}
	res, m := call(t, cs, "retrieve", map[string]any{"target": "notes.txt", "lines": "1-2"})
	if res.IsError {
		t.Fatalf("retrieve: %v", m["error"])
	}
	id, _ := m["retrieval_id"].(string)
	if id == "" {
		t.Fatalf("no retrieval_id in %v", m)
	}
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/resources/list_changed after a recorded retrieval")
	}
	uri := "retrieve://retrieval/" + id
	var r *mcp.Resource
	for deadline := time.Now().Add(5 * time.Second); r == nil && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		r = listResources(t, cs)[uri]
	}
	if r == nil {
		t.Fatalf("resources %v: want %s", keys(listResources(t, cs)), uri)
	}
	if !strings.Contains(r.Title, "notes.txt") || !strings.Contains(r.Description, "notes.txt:1-2") {
		t.Errorf("retrieval resource title %q description %q: want the target and the reference", r.Title, r.Description)
	}

	// Each listed resource reads.
	for _, u := range []string{uri, note, "retrieve://wiki/topic/why-deploys-fail"} {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: u})
		if err != nil {
			t.Fatalf("read %s: %v", u, err)
		}
		if len(rr.Contents) != 1 || rr.Contents[0].Text == "" {
			t.Fatalf("read %s: %+v", u, rr.Contents)
		}
	}
	rr, _ := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	var rec struct {
		Citation struct{ Reference string } `json:"citation"`
	}
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &rec); err != nil || rec.Citation.Reference != "notes.txt:1-2" {
		t.Fatalf("the retrieval resource is not the recorded result (%v): %s", err, rr.Contents[0].Text)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "retrieve://retrieval/nope"}); err == nil {
		t.Fatal("an unknown retrieval id read without an error")
	}
}

func wikiPage() wiki.WriteInput {
	return wiki.WriteInput{Category: "topic", Title: "Why deploys fail", Content: "They need the staging token.\n"}
}

func keys(m map[string]*mcp.Resource) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
