package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/testws"
)

// scoreGetter retrieves a target, the CLI's way or the MCP server's, and
// returns the result (failures included).
type scoreGetter func(t *testing.T, target string, fallback bool) retrieve.Result

// TestTransportDoesNotChangeTheScore holds docs/CONTRACT.md's "Transport
// does not change the score" from the CLI and over MCP (`retrieve serve
// --stdio` driven by the Go SDK client): a web page revalidated by a 304
// scores and reads exactly as the live read of the same bytes, and the
// snapshot served by `--fallback snapshot` when the server fails is marked
// (retrieved_from: snapshot, an assumption naming the failed live read and
// the recording retrieval) and scores at most the recording read.
func TestTransportDoesNotChangeTheScore(t *testing.T) {
	var down atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt":
			http.NotFound(w, r)
		case down.Load():
			http.Error(w, "gone", http.StatusGone) // no retries: a 5xx would be retried with backoff
		default:
			w.Header().Set("ETag", `"e1"`)
			if r.Header.Get("If-None-Match") == `"e1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><title>Post</title></head><body><nav>Home | About</nav><article><h1>Post</h1>
<p>The article text, long enough to be taken for the content of the page, with commas, and a second clause.</p>
<p>A second paragraph of the article, also with commas, so that readability keeps it.</p></article></body></html>`)
		}
	}))
	defer srv.Close()
	workspace := func(t *testing.T) *testws.Workspace {
		ws := testws.New(t)
		ws.Write(".retrieve/config.yaml", "web:\n  allow_hosts: [127.0.0.1]\n")
		ws.Write("guide.md", "# Guide\n\nStep one: install.\nStep two: run.\n")
		return ws
	}
	cli := func(ws *testws.Workspace) scoreGetter {
		return func(t *testing.T, target string, fallback bool) retrieve.Result {
			t.Helper()
			args := []string{"--root", ws.Root, "get", target, "--json"}
			if fallback {
				args = append(args, "--fallback", "snapshot")
			}
			out, _, _ := runCLI(t, args...)
			contracttest.Check(t, []byte(out))
			var res retrieve.Result
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("%v: %v\n%s", args, err, out)
			}
			return res
		}
	}
	overMCP := func(ws *testws.Workspace) scoreGetter {
		cmd := exec.Command(binary(t), "--root", ws.Root, "serve", "--stdio")
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "transport", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return func(t *testing.T, target string, fallback bool) retrieve.Result {
			t.Helper()
			args := map[string]any{"target": target}
			if fallback {
				args["fallback"] = "snapshot"
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "retrieve", Arguments: args})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(res.StructuredContent)
			contracttest.Check(t, b)
			var r retrieve.Result
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatalf("%v: %v\n%s", args, err, b)
			}
			return r
		}
	}
	for name, getter := range map[string]func(*testws.Workspace) scoreGetter{"CLI": cli, "MCP": overMCP} {
		t.Run(name+"/Web", func(t *testing.T) {
			down.Store(false)
			ws := workspace(t)
			get := getter(ws)
			url := srv.URL + "/post"
			live := get(t, url, false)
			if live.Error != nil || live.Provenance.RetrievedFrom != retrieve.FromLive || live.Confidence >= 1 {
				t.Fatalf("live read: from %s, confidence %v, error %v", live.Provenance.RetrievedFrom, live.Confidence, live.Error)
			}
			again := get(t, url, false)
			if again.Provenance.RetrievedFrom != retrieve.FromRevalidated {
				t.Fatalf("second read: from %s, want revalidated", again.Provenance.RetrievedFrom)
			}
			if *again.Citation.Hash != *live.Citation.Hash || again.Confidence != live.Confidence ||
				!slices.Equal(again.Assumptions, live.Assumptions) || again.Provenance.Freshness != live.Provenance.Freshness {
				t.Errorf("the 304 of the same bytes differs from the live read:\n live: %v %v %s\n 304:  %v %v %s",
					live.Confidence, live.Assumptions, live.Provenance.Freshness, again.Confidence, again.Assumptions, again.Provenance.Freshness)
			}

			down.Store(true)
			defer down.Store(false)
			if failed := get(t, url, false); failed.Error == nil || failed.Error.Code != retrieve.CodeUpstreamStatus {
				t.Fatalf("a failing server without fallback: error %v", failed.Error)
			}
			snap := get(t, url, true)
			checkFallback(t, snap, again)
			if *snap.Citation.Hash != *live.Citation.Hash {
				t.Errorf("the snapshot's data differs from the live read's: %s vs %s", *snap.Citation.Hash, *live.Citation.Hash)
			}
			all := strings.Join(snap.Assumptions, "\n")
			for _, a := range live.Assumptions { // the readability note stays with the bytes it describes
				if !strings.Contains(all, a) {
					t.Errorf("the fallback lost the live read's assumption %q: %v", a, snap.Assumptions)
				}
			}
		})
		t.Run(name+"/File", func(t *testing.T) {
			ws := workspace(t)
			get := getter(ws)
			// The recording read was cut (max_bytes: 0.9); the snapshot
			// holds the whole file, yet serves no more than 0.9.
			cut := get(t, "guide.md", false)
			if cut.Error != nil || cut.Confidence != 1 {
				t.Fatalf("live read: confidence %v, error %v", cut.Confidence, cut.Error)
			}
			if _, _, code := runCLI(t, "--root", ws.Root, "get", "guide.md", "--max-bytes", "20", "--json"); code != ExitOK {
				t.Fatalf("get --max-bytes: exit %d", code)
			}
			if err := os.Remove(filepath.Join(ws.Root, "guide.md")); err != nil {
				t.Fatal(err)
			}
			if gone := get(t, "guide.md", false); gone.Error == nil || gone.Error.Code != retrieve.CodePathNotFound {
				t.Fatalf("a deleted file without fallback: error %v", gone.Error)
			}
			snap := get(t, "guide.md", true)
			recorded := lastGood(t, ws)
			checkFallback(t, snap, recorded)
			if snap.Retrieved.Data != "# Guide\n\nStep one: install.\nStep two: run.\n" {
				t.Errorf("fallback data %q", snap.Retrieved.Data)
			}
			if recorded.Confidence >= 1 || snap.Confidence > recorded.Confidence {
				t.Errorf("fallback confidence %v, the recording read's %v", snap.Confidence, recorded.Confidence)
			}
		})
	}
}

// lastGood is the successful retrieval of the workspace's ledger before the
// newest one (the newest is the fallback itself).
func lastGood(t *testing.T, ws *testws.Workspace) retrieve.Result {
	t.Helper()
	out, errOut, code := runCLI(t, "--root", ws.Root, "log", "--status", "ok", "--limit", "2", "--json")
	if code != ExitOK {
		t.Fatalf("log: exit %d %s", code, errOut)
	}
	var page struct {
		Entries []struct {
			ID string `json:"retrieval_id"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(out), &page); err != nil || len(page.Entries) != 2 {
		t.Fatalf("log: %v\n%s", err, out)
	}
	out, _, _ = runCLI(t, "--root", ws.Root, "show", page.Entries[1].ID, "--json")
	var res retrieve.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("show: %v\n%s", err, out)
	}
	res.RetrievalID = page.Entries[1].ID
	return res
}

// checkFallback: a snapshot fallback result is marked as docs/CONTRACT.md
// says and scores at most the retrieval that recorded it.
func checkFallback(t *testing.T, snap, recorded retrieve.Result) {
	t.Helper()
	if snap.Error != nil || !snap.Retrieved.Complete {
		t.Fatalf("fallback failed: %v", snap.Error)
	}
	if snap.Provenance.RetrievedFrom != retrieve.FromSnapshot {
		t.Errorf("fallback retrieved_from %q, want snapshot", snap.Provenance.RetrievedFrom)
	}
	marked := false
	for _, a := range snap.Assumptions {
		if strings.Contains(a, "live retrieval failed") && strings.Contains(a, recorded.RetrievalID) {
			marked = true
		}
	}
	if !marked {
		t.Errorf("no assumption names the failed live read and the recording retrieval %s: %v", recorded.RetrievalID, snap.Assumptions)
	}
	if snap.Confidence >= recorded.Confidence {
		t.Errorf("fallback confidence %v, want below the recording read's %v", snap.Confidence, recorded.Confidence)
	}
}
