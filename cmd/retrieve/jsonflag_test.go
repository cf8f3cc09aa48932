package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/testws"
)

// jsonRun is one command run with --json: args (without --json), the exit
// code it must end with, and what its output must be.
type jsonRun struct {
	args []string
	code int
	// lines: one JSON object per line (several targets).
	lines bool
	// list names the array of a list's page object ({entries, next_cursor}
	// …), as the tool and the /v1 route return it.
	list string
	// keys must be in the object.
	keys []string
}

// TestJSONEverywhere: every command the documentation shows with --json
// prints JSON (docs: README.md, docs/*.md; a command documented with
// --json and missing from the table fails the test), lists print the
// page object of their tool, and a failure with --json prints the HTTP
// API's error object.
func TestJSONEverywhere(t *testing.T) {
	ws := testws.New(t)
	ws.Write("README.md", "# Demo\n\nhello world\n\n## Install\n\nRun make.\n")
	ws.Write("notes.txt", "alpha\nbeta\n")
	ws.Write("x.go", "package x\n\n// Foo does nothing.\nfunc Foo() {}\n")
	ws.Write("src/y.go", "package src\n\ntype Y struct{}\n")
	ws.Write("answer.md", "It says \"alpha\" [notes.txt:1](notes.txt:1).\n")
	ws.Write("batch.txt", "notes.txt\n# a comment\nREADME.md\n")
	ws.Write("inc.md", "System crashes due to memory leaks.\n")
	ws.Write("x.json", `{"entities": [{"name": "memory leak", "type": "issue"}, {"name": "system crash", "type": "issue"}], "relations": [{"source": "memory leak", "target": "system crash", "type": "causes", "confidence": 1.0, "supporting_text": "crashes due to memory leaks"}]}`)
	ws.InitGit()
	root := ws.Root
	abs := func(p string) string { return filepath.Join(root, p) } // files named on the command line are read from the working directory
	key := filepath.Join(t.TempDir(), "ledger.key")
	cli := func(args ...string) (string, string, int) {
		return runCLI(t, append([]string{"--root", root}, append(args, "--json")...)...)
	}
	if _, errOut, code := cli("init"); code != ExitOK {
		t.Fatalf("init: %s", errOut)
	}
	out, errOut, _ := cli("get", "notes.txt", "--lines", "1")
	var res struct {
		RetrievalID string `json:"retrieval_id"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.RetrievalID == "" {
		t.Fatalf("get: %v %s %s", err, out, errOut)
	}
	id := res.RetrievalID
	resultFile := filepath.Join(t.TempDir(), "cite.json")
	if err := os.WriteFile(resultFile, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}

	runs := []jsonRun{
		{args: []string{"version"}, keys: []string{"version"}},
		{args: []string{"init"}},
		{args: []string{"get", "README.md", "--lines", "1-2"}, keys: []string{"retrieved", "citation"}},
		{args: []string{"get", "README.md", "notes.txt"}, lines: true},
		{args: []string{"get", "--batch", abs("batch.txt")}, lines: true},
		{args: []string{"get", "missing.txt"}, code: ExitNotFound, keys: []string{"error"}},
		{args: []string{"verify", id}, keys: []string{"status"}},
		{args: []string{"verify", resultFile}, keys: []string{"status"}},
		{args: []string{"verify", "--all"}, list: "verifications"},
		{args: []string{"verify", "no-such-id"}, code: ExitNotFound, keys: []string{"error"}},
		{args: []string{"log"}, list: "entries", keys: []string{"next_cursor"}},
		{args: []string{"log", "--target", "README.md", "--status", "error", "--since", "24h"}, list: "entries"},
		{args: []string{"show", id}, keys: []string{"citation"}},
		{args: []string{"quote", "README.md", "hello world"}},
		{args: []string{"cite", id}, keys: []string{"citation"}},
		{args: []string{"cite", id, "--style", "csl-json"}, keys: []string{"citation"}},
		{args: []string{"check", abs("answer.md")}, keys: []string{"findings"}},
		{args: []string{"check", "missing.md"}, code: ExitNotFound, keys: []string{"error"}},
		{args: []string{"outline", "x.go"}, keys: []string{"symbols"}},
		{args: []string{"outline", "src"}, list: "outlines", keys: []string{"next_cursor", "files"}},
		{args: []string{"outline", "x.go", "src/y.go"}, list: "outlines"},
		{args: []string{"memory", "init"}},
		{args: []string{"memory", "create", "--type", "semantic", "--title", "A note", "--content", "Body text here"}},
		{args: []string{"memory", "list"}, list: "entries", keys: []string{"total", "next_cursor"}},
		{args: []string{"memory", "read", "semantic/a-note.md"}},
		{args: []string{"memory", "overview", "body"}},
		{args: []string{"memory", "details", "semantic/a-note.md"}},
		{args: []string{"memory", "update", "semantic/a-note.md", "--add-tag", "x"}},
		{args: []string{"memory", "extract", "extract_overview", "body"}},
		{args: []string{"memory", "reindex"}},
		{args: []string{"wiki", "write", "--category", "topic", "--title", "Why", "--content", "See [[x]]."}},
		{args: []string{"wiki", "read", "topic/why"}},
		{args: []string{"wiki", "search", "why"}, list: "hits", keys: []string{"next_cursor"}},
		{args: []string{"wiki", "lint"}, code: ExitChanged},
		{args: []string{"wiki", "read", "nope"}, code: ExitNotFound, keys: []string{"error"}},
		{args: []string{"graph", "ingest", "--doc-id", "doc_001", "--title", "Incident", "--file", "inc.md", "--extraction", abs("x.json")}},
		{args: []string{"graph", "ingest", "--doc-id", "doc_002", "--title", "Saved", "--result", resultFile, "--extraction", abs("x.json")}, code: ExitNotFound, keys: []string{"error"}},
		{args: []string{"graph", "query", "system crash"}, keys: []string{"nodes", "edges"}},
		{args: []string{"graph", "evidence", "Why does the system crash?"}},
		{args: []string{"graph", "ask", "Why does the system crash?"}},
		{args: []string{"graph", "stats"}},
		{args: []string{"session", "list"}, list: "sessions"},
		{args: []string{"session", "show", "no-such-session"}, code: ExitNotFound, keys: []string{"error"}},
		{args: []string{"store", "status"}},
		{args: []string{"ledger", "keygen", "--out", key}},
		{args: []string{"ledger", "checkpoint", "--key", key}},
		{args: []string{"ledger", "audit"}},
		{args: []string{"ledger", "proof", id}},
		{args: []string{"gc"}},
		{args: []string{"mcp", "install", "--client", "cursor", "--print"}},
	}
	ran := map[string]bool{}
	for _, r := range runs {
		ran[commandPath(r.args)] = true
		t.Run(strings.Join(r.args, " "), func(t *testing.T) {
			out, errOut, code := cli(r.args...)
			if code != r.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, r.code, errOut)
			}
			docs := []string{out}
			if r.lines {
				docs = strings.Split(strings.TrimSpace(out), "\n")
			}
			for _, d := range docs {
				var v map[string]any
				if err := json.Unmarshal([]byte(d), &v); err != nil {
					t.Fatalf("not a JSON object (%v):\n%s", err, out)
				}
				for _, k := range r.keys {
					if _, ok := v[k]; !ok {
						t.Errorf("no %q in %s", k, d)
					}
				}
				if r.list != "" {
					if _, ok := v[r.list].([]any); !ok {
						t.Errorf("no list %q in %s", r.list, d)
					}
				}
				if e, ok := v["error"].(map[string]any); ok && r.code != ExitOK && !r.lines {
					if e["code"] == "" || e["message"] == "" {
						t.Errorf("error object %v", e)
					}
				}
			}
		})
	}
	for _, p := range documentedJSONCommands(t) {
		if !ran[p] {
			t.Errorf("%q is documented with --json and not run here", p)
		}
	}
}

// commandPath is the command an argument list runs ("memory list").
func commandPath(args []string) string {
	c, _, err := newRootCmd(&Streams{}).Find(args)
	if err != nil || c == nil {
		return ""
	}
	return strings.TrimPrefix(c.CommandPath(), "retrieve ")
}

// documentedJSONCommands are the commands README.md and docs/*.md show
// with --json: on the same line, "retrieve <command…>" and "--json".
func documentedJSONCommands(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md")
	mention := regexp.MustCompile("retrieve ((?:[a-z][a-z-]*)(?: [a-z][a-z_-]*)?)")
	var paths []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			line := sc.Text()
			if !strings.Contains(line, "--json") {
				continue
			}
			for _, m := range mention.FindAllStringSubmatch(line, -1) {
				p := commandPath(strings.Fields(m[1]))
				if p != "" && p != "retrieve" && !slices.Contains(paths, p) {
					paths = append(paths, p)
				}
			}
		}
	}
	if len(paths) < 7 {
		t.Fatalf("documented --json commands: %v (the docs scan is broken)", paths)
	}
	return paths
}
