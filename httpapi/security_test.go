package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/httpapi"
)

// TestSecurityDNSRebinding: a page whose name was rebound to 127.0.0.1
// reaches the loopback listener with its own name in Host (and, from a
// browser, its own Origin). Every route refuses it with PERMISSION_DENIED
// before it runs — open routes included — and no recorded data leaks.
func TestSecurityDNSRebinding(t *testing.T) {
	env, c := start(t, httpapi.Options{})
	// Something worth stealing in the ledger.
	if status, _ := c.do("POST", "/v1/retrieve", `{"target":"notes.txt"}`); status != 200 {
		t.Fatalf("setup retrieve: %d", status)
	}
	routes := [][2]string{{"GET", "/metrics"}, {"GET", "/healthz"}, {"GET", "/readyz"}, {"GET", "/openapi.yaml"}, {"POST", "/mcp"}, {"GET", "/mcp"}, {"GET", "/v1/nope"}}
	for _, op := range env.Table.Ops() {
		routes = append(routes, [2]string{op.Method, "/v1/" + op.Name})
	}
	send := func(method, path, host, origin string) (int, []byte) {
		t.Helper()
		body := ""
		if method == "POST" {
			body = `{"target":"notes.txt"}`
		}
		req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if host != "" {
			req.Host = host // the dial still goes to c.base, on loopback
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	for _, r := range routes {
		for name, hdr := range map[string][2]string{
			"RebindHost":             {"attacker.example:80", ""},
			"RebindHostNoPort":       {"attacker.example", ""},
			"RebindHostAndOrigin":    {"attacker.example", "http://attacker.example"},
			"LoopbackHostEvilOrigin": {"", "http://attacker.example"},
			"NullOrigin":             {"", "null"},
		} {
			status, b := send(r[0], r[1], hdr[0], hdr[1])
			var e struct{ Error struct{ Code, Hint string } }
			_ = json.Unmarshal(b, &e)
			if status != 403 || e.Error.Code != "PERMISSION_DENIED" {
				t.Errorf("%s %s %s: %d %s", name, r[0], r[1], status, b)
			}
			for _, leak := range []string{"alpha", "retrieve_requests_total", "notes.txt", "openapi"} {
				if bytes.Contains(b, []byte(leak)) {
					t.Errorf("%s %s %s leaks %q: %s", name, r[0], r[1], leak, b)
				}
			}
		}
	}
	// Loopback names, either scheme of a loopback Origin, pass.
	for _, hdr := range [][2]string{{"localhost:8765", ""}, {"127.0.0.1", "https://localhost"}, {"[::1]:9", "http://[::1]:3000"}, {"LOCALHOST", "https://127.0.0.1:8443"}} {
		if status, b := send("GET", "/v1/log", hdr[0], hdr[1]); status != 200 {
			t.Errorf("host %q origin %q: %d %s", hdr[0], hdr[1], status, b)
		}
	}
}

// TestSecurityAllowedHost: a name passed with --allow-host-header is accepted on
// a loopback listener, and only that name.
func TestSecurityAllowedHost(t *testing.T) {
	_, c := start(t, httpapi.Options{AllowedHosts: []string{"retrieve.internal"}})
	for host, want := range map[string]int{"retrieve.internal": 200, "retrieve.internal:8080": 200, "other.internal": 403} {
		req, _ := http.NewRequest("GET", c.base+"/healthz", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
}

// TestSecurityWeakToken: tokens off loopback need 128 estimated bits.
func TestSecurityWeakToken(t *testing.T) {
	for tok, ok := range map[string]bool{
		"":                                    false,
		" ":                                   false,
		"a":                                   false,
		"s3cret-token":                        false,
		strings.Repeat("a", 200):              false,
		strings.Repeat("ab", 100):             false,
		"correct horse battery staple":        false, // spaces
		"0123456789abcdef0123456789abcdef":    false, // a progression, repeated (issue #32)
		strings.Repeat("abcdefgh", 4):         false, // a progression, repeated (issue #32)
		"9f86d081884c7d659a2feaa0c55ad015":    true,  // 32 hex characters (openssl rand -hex 16)
		"3q2+7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAA": false, // runs collapse: too few characters left
		"Zm9vYmFyYmF6cXV4cXV1eHF1dXg0MjQyNDI": true,
	} {
		err := httpapi.CheckToken(tok)
		if (err == nil) != ok {
			t.Errorf("token %q (%.0f bits): err %v, want ok=%v", tok, httpapi.TokenBits(tok), err, ok)
		}
		if err == nil {
			continue
		}
		e := retrieve.AsError(err)
		if e.Code != retrieve.CodePermissionDenied || !strings.Contains(e.Hint, "openssl rand -hex 32") {
			t.Errorf("token %q: %s %q, want PERMISSION_DENIED with a hint to generate one", tok, e.Code, e.Hint)
		}
		if len(tok) > 1 && strings.Contains(e.Message+e.Hint, tok) {
			t.Errorf("the error repeats the token: %v", err)
		}
	}
}

// TestSecurityBlockedSchemes: a file:, gopher: or other non-http target is
// BLOCKED_ADDRESS over /v1 and MCP, and nothing of the named file comes
// back.
func TestSecurityBlockedSchemes(t *testing.T) {
	_, c := start(t, httpapi.Options{})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "sec", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: c.base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, target := range []string{"file:///etc/passwd", "FILE:///etc/passwd", "file:/etc/passwd", "file:etc/passwd", "gopher://127.0.0.1:70/_x", "gopher:x", "dict://127.0.0.1:11211/stats", "ftp://127.0.0.1/x", "data:text/plain,hi"} {
		body, _ := json.Marshal(map[string]string{"target": target})
		status, b := c.do("POST", "/v1/retrieve", string(body))
		if status != 403 || !bytes.Contains(b, []byte(`"BLOCKED_ADDRESS"`)) || bytes.Contains(b, []byte("root:")) {
			t.Errorf("/v1 %s: %d %s", target, status, b)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "retrieve", Arguments: map[string]any{"target": target}})
		if err != nil {
			t.Fatal(err)
		}
		mb, _ := json.Marshal(res.StructuredContent)
		if !res.IsError || !bytes.Contains(mb, []byte(`"BLOCKED_ADDRESS"`)) || bytes.Contains(mb, []byte("root:")) {
			t.Errorf("MCP %s: %s", target, mb)
		}
	}
}
