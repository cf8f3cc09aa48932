package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeMemoryWatcher: a note edited in place while `retrieve serve`
// runs — same size, its mtime put back, so that no stat comparison can
// see it — is found by the next extract_overview: the server's memory
// service watches the folder.
func TestServeMemoryWatcher(t *testing.T) {
	ws := serveWorkspace(t)
	for _, args := range [][]string{{"memory", "init"}, {"memory", "create", "--type", "semantic", "--title", "Sea notes", "--content", "the walrus sleeps"}} {
		if out, err := exec.Command(binary(t), append([]string{"--root", ws.Root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v %s", args, err, out)
		}
	}
	note := filepath.Join(ws.Root, "memory", "semantic", "sea-notes.md")
	// Settled long ago: indexed with its mtime (not as "racy"), so only
	// the watcher can make the server read it again.
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{note, filepath.Dir(note)} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	base, _ := startHTTP(t, ws.Root, nil, "--http", "127.0.0.1:0")
	hits := func(q string) int {
		t.Helper()
		resp, err := http.Post(base+"/v1/extract_overview", "application/json", strings.NewReader(`{"target":"`+q+`","depth":"shallow"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var env struct {
			Success bool `json:"success"`
			Result  struct {
				SourceMap []any `json:"source_map"`
			} `json:"result"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || !env.Success {
			t.Fatalf("%s: %d %v %+v", q, resp.StatusCode, err, env)
		}
		return len(env.Result.SourceMap)
	}
	if n := hits("walrus"); n != 1 {
		t.Fatalf("walrus: %d hits", n)
	}
	b, err := os.ReadFile(note)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(note, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(strings.Replace(string(b), "the walrus sleeps", "the narwhal naps!", 1))); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(note, old, old); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(note); fi.Size() != int64(len(b)) || !fi.ModTime().Equal(old) {
		t.Fatal("the edit moved the size or the mtime")
	}
	if n := hits("narwhal"); n != 1 {
		t.Fatalf("an in-place edit was not seen by the next query (%d hits)", n)
	}
	if n := hits("walrus"); n != 0 {
		t.Fatalf("the old text is still found (%d hits)", n)
	}
}
