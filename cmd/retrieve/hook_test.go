package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/session"
)

// fixtureDir holds hook inputs written from Claude Code's hooks reference
// (docs/sessions.md names the sources); {{ROOT}} is the workspace.
const fixtureDir = "testdata/sessions/claude-code"

func fixture(t *testing.T, name, root string) []byte {
	t.Helper()
	b, err := readFixture(name, root)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readFixture(name, root string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(fixtureDir, name))
	return bytes.ReplaceAll(b, []byte("{{ROOT}}"), []byte(root)), err
}

// runHookInput runs `retrieve hook claude-code` (the CLI's code path) with
// input on stdin.
func runHookInput(t *testing.T, kind string, input []byte, args ...string) (string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), &Streams{In: bytes.NewReader(input), Out: &out, ErrOut: &errOut}, append(args, "hook", kind))
	if errOut.Len() > 0 {
		t.Errorf("hook wrote to stderr: %s", errOut.String())
	}
	return out.String(), code
}

func sessionWorkspace(t *testing.T) *testws.Workspace {
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	ws := testws.New(t)
	ws.Write("guide.md", "# Guide\n\nStep one: install.\nStep two: run.\n")
	ws.Write("notes.txt", "alpha beta\ngamma delta\nepsilon\n")
	ws.Write(".env", "TOKEN=do-not-leak\n")
	ws.InitGit()
	return ws
}

// A Claude Code session replayed from its documented hook inputs: recorded,
// verified after one source file is edited (exactly one changed, with its
// diff), its final answer blocked for the two citations that fail (a
// changed hash, a fabricated quote) and passing once corrected.
func TestClaudeCodeSessionReplay(t *testing.T) {
	ws := sessionWorkspace(t)
	const id = "9ecf22fa-edf8-4332-ae85-b6d5456eda64"
	for _, name := range []string{"01-read.json", "02-grep.json", "03-webfetch.json", "04-read-failure.json", "05-glob.json"} {
		out, code := runHookInput(t, "claude-code", fixture(t, name, ws.Root))
		if code != ExitOK || out != "" {
			t.Fatalf("%s: exit %d, stdout %q", name, code, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(ws.Root, ".retrieve", hookLogName)); err == nil {
		t.Fatalf("the hook logged errors on valid input:\n%s", b)
	}

	out, errOut, code := runCLI(t, "--root", ws.Root, "session", "show", id, "--json")
	if code != ExitOK {
		t.Fatalf("session show: exit %d: %s", code, errOut)
	}
	var sess session.Session
	if err := json.Unmarshal([]byte(out), &sess); err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, s := range sess.Sources {
		refs = append(refs, s.Kind+" "+s.Reference+" "+s.Seen)
		if (s.Kind == "file" || s.Kind == "web") && s.RetrievalID == "" {
			t.Errorf("%s %s has no ledger entry after show", s.Kind, s.Reference)
		}
	}
	want := []string{
		"file guide.md:3-3 match", "file guide.md:4-4 match", "file notes.txt:1-3 match",
		"listed guide.md listed", "web http://127.0.0.1:9/changelog summary",
	}
	sort.Strings(refs)
	if strings.Join(refs, "\n") != strings.Join(want, "\n") {
		t.Fatalf("sources:\n%s\nwant:\n%s", strings.Join(refs, "\n"), strings.Join(want, "\n"))
	}
	if len(sess.Failures) != 1 || sess.Failures[0].Error.Message != "File does not exist." {
		t.Fatalf("failures = %+v", sess.Failures)
	}
	logOut, _, _ := runCLI(t, "--root", ws.Root, "log", "--op", "observe", "--json")
	if n := strings.Count(logOut, `"op": "observe"`); n != 4 {
		t.Fatalf("%d observe entries in the ledger, want 4:\n%s", n, logOut)
	}

	// Nothing changed: every re-checkable source verifies; the web page
	// the agent saw summarized cannot be re-checked.
	out, _, code = runCLI(t, "--root", ws.Root, "session", "verify", id, "--json")
	var v session.Verification
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if v.Verified != 4 || v.Changed != 0 || v.Unavailable != 1 || code != ExitNotFound {
		t.Fatalf("before the edit: %d verified, %d changed, %d unavailable, exit %d", v.Verified, v.Changed, v.Unavailable, code)
	}

	ws.Write("notes.txt", "alpha beta\ngamma DELTA\nepsilon\n")
	out, _, code = runCLI(t, "--root", ws.Root, "session", "verify", id, "--json")
	v = session.Verification{}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if code != ExitChanged || v.Changed != 1 {
		t.Fatalf("after the edit: exit %d, %d changed", code, v.Changed)
	}
	for _, c := range v.Sources {
		if c.Verification.Status != "changed" {
			continue
		}
		if c.Source.Reference != "notes.txt:1-3" || !strings.Contains(c.Verification.Diff, "-gamma delta") || !strings.Contains(c.Verification.Diff, "+gamma DELTA") {
			t.Fatalf("changed source %s, diff:\n%s", c.Source.Reference, c.Verification.Diff)
		}
	}
	// The table names it too.
	out, _, _ = runCLI(t, "--root", ws.Root, "session", "verify", id)
	if !regexp.MustCompile(`CHANGED\s+file\s+Read\s+notes.txt:1-3`).MatchString(out) {
		t.Fatalf("verify table:\n%s", out)
	}

	// The Stop hook: off by default.
	copyTranscript(t, ws, "transcript-bad.jsonl")
	if out, code := runHookInput(t, "claude-code", fixture(t, "06-stop.json", ws.Root)); out != "" || code != ExitOK {
		t.Fatalf("stop with the check off: exit %d, %q", code, out)
	}
	ws.Write(".retrieve/config.yaml", "provenance:\n  check_on_stop: true\n")
	out, code = runHookInput(t, "claude-code", fixture(t, "06-stop.json", ws.Root))
	if code != ExitOK {
		t.Fatalf("stop: exit %d", code)
	}
	var decision map[string]string
	if err := json.Unmarshal([]byte(out), &decision); err != nil {
		t.Fatalf("stop output %q: %v", out, err)
	}
	reason := decision["reason"]
	if decision["decision"] != "block" {
		t.Fatalf("decision = %q", decision["decision"])
	}
	items := regexp.MustCompile(`(?m)^\d+\. line \d+: (\S+) — (.*)$`).FindAllStringSubmatch(reason, -1)
	if len(items) != 2 {
		t.Fatalf("the block names %d citations, want exactly 2:\n%s", len(items), reason)
	}
	if items[0][1] != "notes.txt:1-2" || !strings.Contains(items[0][2], "hash mismatch") {
		t.Errorf("first failure: %q", items[0][0])
	}
	if items[1][1] != "notes.txt:2" || !strings.Contains(items[1][2], `"gamma omega" is not in notes.txt:2`) {
		t.Errorf("second failure: %q", items[1][0])
	}
	if strings.Contains(reason, "guide.md") {
		t.Errorf("the true citation is named:\n%s", reason)
	}

	// Corrected, the answer passes: no decision, the turn ends.
	copyTranscript(t, ws, "transcript-corrected.jsonl")
	out, code = runHookInput(t, "claude-code", fixture(t, "06-stop.json", ws.Root))
	if out != "" || code != ExitOK {
		t.Fatalf("corrected answer: exit %d, %q", code, out)
	}
	sess = session.Session{}
	out, _, _ = runCLI(t, "--root", ws.Root, "session", "show", id, "--json")
	_ = json.Unmarshal([]byte(out), &sess)
	if len(sess.Stops) != 2 || sess.Stops[0].Decision != "block" || sess.Stops[1].Decision != "pass" {
		t.Fatalf("stops = %+v", sess.Stops)
	}
}

func copyTranscript(t *testing.T, ws *testws.Workspace, name string) {
	t.Helper()
	ws.Write("transcript.jsonl", string(fixture(t, name, ws.Root)))
}

// Bad input never fails the agent's tool call: exit 0, nothing on stdout,
// the reason in .retrieve/hook.log.
func TestHookBadInput(t *testing.T) {
	ws := sessionWorkspace(t)
	huge := append([]byte(`{"session_id": "s", "x": "`), bytes.Repeat([]byte("a"), session.MaxHookInput)...)
	cases := map[string]struct {
		input []byte
		log   string
	}{
		"malformed":           {[]byte(`{"session_id": `), "PARSE_FAILED"},
		"truncated":           {fixture(t, "01-read.json", ws.Root)[:200], "PARSE_FAILED"},
		"not an object":       {[]byte(`[1, 2]`), "PARSE_FAILED"},
		"no session":          {[]byte(`{"hook_event_name": "PostToolUse"}`), "no session_id"},
		"unknown event":       {[]byte(`{"session_id": "s", "hook_event_name": "Teleport"}`), `event "Teleport" is not recorded`},
		"unknown tool":        {[]byte(`{"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}`), `tool "Bash" is not recorded`},
		"bad tool input":      {[]byte(`{"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Read", "tool_input": {"file_path": 7}}`), "PARSE_FAILED"},
		"huge":                {huge, "larger than"},
		"stop, no transcript": {[]byte(`{"session_id": "s", "hook_event_name": "Stop", "transcript_path": "/nonexistent/t.jsonl", "cwd": "` + ws.Root + `"}`), "check is off"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			logPath := filepath.Join(ws.Root, ".retrieve", hookLogName)
			_ = os.Remove(logPath)
			out, code := runHookInput(t, "claude-code", c.input, "--root", ws.Root)
			if code != ExitOK || out != "" {
				t.Fatalf("exit %d, stdout %q", code, out)
			}
			b, _ := os.ReadFile(logPath)
			if !strings.Contains(string(b), c.log) {
				t.Fatalf("log %q does not say %q", b, c.log)
			}
		})
	}
	// With the check on, a missing transcript still never blocks.
	ws.Write(".retrieve/config.yaml", "provenance:\n  check_on_stop: true\n")
	out, code := runHookInput(t, "claude-code", []byte(`{"session_id": "s", "hook_event_name": "Stop", "transcript_path": "/nonexistent/t.jsonl"}`), "--root", ws.Root)
	if code != ExitOK || out != "" {
		t.Fatalf("missing transcript: exit %d, %q", code, out)
	}
}

// Denied and outside-root reads are recorded as refused, never read.
func TestHookRefusedPaths(t *testing.T) {
	ws := sessionWorkspace(t)
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte("secret outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(ws.Root, ".env"), outside} {
		in, _ := json.Marshal(map[string]any{"session_id": "r", "cwd": ws.Root, "hook_event_name": "PostToolUse", "tool_name": "Read",
			"tool_input": map[string]any{"file_path": p}, "tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": p, "content": "x", "numLines": 1, "startLine": 1}}})
		if out, code := runHookInput(t, "claude-code", in); code != ExitOK || out != "" {
			t.Fatalf("exit %d %q", code, out)
		}
	}
	recs, _, err := sessionJournal(ws.Root).Read("r")
	if err != nil {
		t.Fatal(err)
	}
	codes := []string{}
	for _, r := range recs {
		if r.Seen != session.SeenRefused || r.Hash != "" || r.Blob != "" {
			t.Errorf("record %+v: want refused with no hash or bytes", r)
		}
		codes = append(codes, string(r.Error.Code))
	}
	if strings.Join(codes, ",") != "SENSITIVE_PATH,OUTSIDE_ROOT" {
		t.Fatalf("codes = %v", codes)
	}
	b, _ := os.ReadFile(filepath.Join(ws.Root, ".retrieve", "sessions", "r.jsonl"))
	if strings.Contains(string(b), "do-not-leak") || strings.Contains(string(b), "secret outside") {
		t.Fatal("a refused file's content reached the journal")
	}
}

// The generic schema: a read, a mismatching read, and a stop that checks
// the given text and answers with its decision.
func TestHookJSON(t *testing.T) {
	ws := sessionWorkspace(t)
	ws.Write(".retrieve/config.yaml", "provenance:\n  check_on_stop: true\n")
	read := `{"session_id": "g", "host": "my-agent", "event": "read", "path": "notes.txt", "start_line": 1, "end_line": 2, "content": "alpha beta\ngamma delta\n"}`
	lie := `{"session_id": "g", "event": "read", "path": "notes.txt", "start_line": 3, "end_line": 3, "content": "zeta\n"}`
	for _, in := range []string{read, lie} {
		if out, code := runHookInput(t, "json", []byte(in), "--root", ws.Root); code != ExitOK || out != "" {
			t.Fatalf("exit %d %q", code, out)
		}
	}
	recs, _, _ := sessionJournal(ws.Root).Read("g")
	if len(recs) != 2 || recs[0].Seen != session.SeenMatch || recs[1].Seen != session.SeenMismatch || recs[1].ToolHash == "" {
		t.Fatalf("records = %+v", recs)
	}
	stop := `{"session_id": "g", "event": "stop", "text": "It says \"alpha beta\" [notes.txt:1](notes.txt:1) and \"omega\" [notes.txt:3](notes.txt:3)."}`
	out, code := runHookInput(t, "json", []byte(stop), "--root", ws.Root)
	var d struct {
		Decision string `json:"decision"`
		Failures []struct {
			Reference string `json:"reference"`
		} `json:"failures"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || code != ExitOK {
		t.Fatalf("exit %d, %q: %v", code, out, err)
	}
	if d.Decision != "block" || len(d.Failures) != 1 || d.Failures[0].Reference != "notes.txt:3" {
		t.Fatalf("decision %+v", d)
	}
	// An unknown field is refused by the strict schema (and logged).
	if out, code := runHookInput(t, "json", []byte(`{"session_id": "g", "event": "read", "path": "a", "bogus": 1}`), "--root", ws.Root); code != ExitOK || out != "" {
		t.Fatalf("exit %d %q", code, out)
	}
	b, _ := os.ReadFile(filepath.Join(ws.Root, ".retrieve", hookLogName))
	if !strings.Contains(string(b), `unknown field "bogus"`) {
		t.Fatalf("log: %s", b)
	}
}
