package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
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
