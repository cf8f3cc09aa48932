package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve/httpapi"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/mcpserver"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// hostileServers serves a hostile workspace's table as /v1 routes (on a
// loopback httptest server) and as an MCP server (in memory), with the
// wiki resource.
type hostileServers struct {
	h   *testws.Hostile
	v1  *client
	mcp *mcp.ClientSession
}

func startHostile(t *testing.T) *hostileServers {
	t.Helper()
	env, h := opstest.NewHostile(t)
	m := mcpserver.New(env.Table, mcpserver.Options{Store: env.Deps.Store, Resources: []mcpserver.Resource{mcpserver.WikiResource(env.Wiki)}})
	srv := httptest.NewServer(httpapi.New(env.Table, httpapi.Options{}))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := m.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return &hostileServers{h: h, v1: &client{t: t, base: srv.URL}, mcp: cs}
}

// hasCode reports whether a decoded JSON value holds "code": want anywhere.
func hasCode(v any, want string) bool {
	switch x := v.(type) {
	case map[string]any:
		if c, ok := x["code"].(string); ok && c == want {
			return true
		}
		for _, y := range x {
			if hasCode(y, want) {
				return true
			}
		}
	case []any:
		for _, y := range x {
			if hasCode(y, want) {
				return true
			}
		}
	}
	return false
}

// refuse calls op with args on /v1 and over MCP and checks that both
// answer the typed error want and leak no secret.
func (s *hostileServers) refuse(t *testing.T, op string, args map[string]any, want string) {
	t.Helper()
	body, _ := json.Marshal(args)
	var status int
	var raw []byte
	if s.isGET(op) {
		q := url.Values{}
		for k, v := range args {
			q.Set(k, v.(string))
		}
		status, raw = s.v1.do("GET", "/v1/"+op+"?"+q.Encode(), "")
	} else {
		status, raw = s.v1.do("POST", "/v1/"+op, string(body))
	}
	var m any
	_ = json.Unmarshal(raw, &m)
	if status < 400 || !hasCode(m, want) {
		t.Errorf("/v1/%s %s: status %d, want an error %s: %s", op, body, status, want, raw)
	}
	s.h.AssertNoLeak(t, string(raw))

	res, err := s.mcp.CallTool(context.Background(), &mcp.CallToolParams{Name: op, Arguments: args})
	if err != nil {
		t.Fatalf("mcp %s: %v", op, err)
	}
	out, _ := json.Marshal(res)
	var r any
	_ = json.Unmarshal(out, &r)
	if !res.IsError || !hasCode(r, want) {
		t.Errorf("mcp %s %s: want an error %s: %s", op, body, want, out)
	}
	s.h.AssertNoLeak(t, string(out))
}

func (s *hostileServers) isGET(op string) bool {
	return op == "memory_read" || op == "memory_list" || op == "wiki_read" || op == "wiki_search"
}

// Finding 1: memory details (extract_details), memory_read and memory:
// targets refuse a note that links out of the root or to a denied file.
func TestSecurityMemorySymlinkServers(t *testing.T) {
	s := startHostile(t)
	s.refuse(t, "extract_details", map[string]any{"target": testws.HostileMemoryLink}, "OUTSIDE_ROOT")
	s.refuse(t, "extract_details", map[string]any{"target": testws.HostileMemoryEnvLink}, "SENSITIVE_PATH")
	s.refuse(t, "memory_read", map[string]any{"target": testws.HostileMemoryLink}, "OUTSIDE_ROOT")
	s.refuse(t, "memory_read", map[string]any{"target": testws.HostileMemoryEnvLink}, "SENSITIVE_PATH")
	s.refuse(t, "retrieve", map[string]any{"target": "memory:semantic/evil.md"}, "OUTSIDE_ROOT")
	s.refuse(t, "retrieve", map[string]any{"target": "memory:semantic/dotenv.md"}, "SENSITIVE_PATH")
	s.h.AssertOutsideUntouched(t)
}

// Finding 2: folder links under memory/ and wiki/ escape for neither
// reads (targets, quote, wiki_read, the wiki resource, the memory index)
// nor writes (memory_write, wiki_write).
func TestSecurityDirectorySymlinkServers(t *testing.T) {
	s := startHostile(t)
	s.refuse(t, "retrieve", map[string]any{"target": "memory:episodic/secret.md"}, "OUTSIDE_ROOT")
	s.refuse(t, "retrieve", map[string]any{"target": "wiki:topic/secret"}, "OUTSIDE_ROOT")
	s.refuse(t, "retrieve", map[string]any{"target": testws.HostileDirLink + "/secret.md"}, "OUTSIDE_ROOT")
	s.refuse(t, "quote", map[string]any{"ref": testws.HostileDirLink + "/secret.md", "text": "SENTINEL"}, "OUTSIDE_ROOT")
	s.refuse(t, "quote", map[string]any{"ref": "memory:semantic/evil.md", "text": "SENTINEL"}, "OUTSIDE_ROOT")
	s.refuse(t, "wiki_read", map[string]any{"slug": "topic/secret"}, "OUTSIDE_ROOT")
	s.refuse(t, "memory_write", map[string]any{"memory_type": "episodic", "title": "Escape", "content": "x"}, "OUTSIDE_ROOT")
	s.refuse(t, "wiki_write", map[string]any{"category": "topic", "title": "Escape", "content": "x"}, "OUTSIDE_ROOT")
	// The wiki resource refuses the page.
	rr, err := s.mcp.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "retrieve://wiki/topic/secret"})
	if err == nil {
		out, _ := json.Marshal(rr)
		s.h.AssertNoLeak(t, string(out))
		t.Errorf("wiki resource topic/secret: no error: %s", out)
	} else {
		s.h.AssertNoLeak(t, err.Error())
	}
	// Listings and searches (the memory index, the wiki index) hold no secret.
	for _, c := range []struct {
		op   string
		args map[string]any
	}{
		{"memory_list", map[string]any{}},
		{"extract_overview", map[string]any{"target": "SENTINEL"}},
		{"wiki_search", map[string]any{"query": "SENTINEL"}},
		{"wiki_lint", map[string]any{}},
	} {
		res, err := s.mcp.CallTool(context.Background(), &mcp.CallToolParams{Name: c.op, Arguments: c.args})
		if err != nil {
			t.Fatal(err)
		}
		out, _ := json.Marshal(res)
		s.h.AssertNoLeak(t, string(out))
	}
	s.h.AssertOutsideUntouched(t)
}

// Findings 5 and 8: the built-in deny list is a floor (.retrieveignore's
// "!.env" re-allows nothing) and matches in any letter case.
func TestSecurityDenyListServers(t *testing.T) {
	s := startHostile(t)
	for _, p := range []string{".env", ".ssh/config", ".ENV.production", "keys/ID_RSA", "SERVER.KEY", testws.HostileEnvLink} {
		s.refuse(t, "retrieve", map[string]any{"target": p}, "SENSITIVE_PATH")
	}
	s.refuse(t, "quote", map[string]any{"ref": ".ENV.production", "text": "SENTINEL"}, "SENSITIVE_PATH")
}

// Finding 12: a hard link to a denied file is refused; NUL bytes and
// over-long names are INVALID_PATH, never INTERNAL.
func TestSecurityHardLinkAndBadNamesServers(t *testing.T) {
	s := startHostile(t)
	s.refuse(t, "retrieve", map[string]any{"target": testws.HostileHardLink}, "SENSITIVE_PATH")
	long := strings.Repeat("x", 300) + ".md"
	for _, c := range []struct {
		op   string
		args map[string]any
	}{
		{"retrieve", map[string]any{"target": "notes.txt\x00.env"}},
		{"retrieve", map[string]any{"target": long}},
		{"retrieve", map[string]any{"target": "memory:semantic/" + long}},
		{"quote", map[string]any{"ref": "a\x00b", "text": "x"}},
		{"extract_details", map[string]any{"target": "memory/semantic/a\x00b.md"}},
		{"extract_details", map[string]any{"target": "memory/semantic/" + long}},
		{"memory_read", map[string]any{"target": "semantic/a\x00b.md"}},
	} {
		s.refuse(t, c.op, c.args, "INVALID_PATH")
	}
}
