package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/session"
)

// TestSessionJoinFromCLI: the agent's shell gets RETRIEVE_SESSION_ID from
// the SessionStart hook; `retrieve verify` and `retrieve check` run with it
// (or with --session) are recorded on the session, which `session show`
// (and so the UI's session page) lists as its checks.
func TestSessionJoinFromCLI(t *testing.T) {
	ws := sessionWorkspace(t)
	const sid = "9ecf22fa-edf8-4332-ae85-b6d5456eda64"
	envFile := filepath.Join(t.TempDir(), "claude-env.sh")
	t.Setenv("CLAUDE_ENV_FILE", envFile)
	t.Setenv(sessionEnv, "")
	if _, code := runHookInput(t, "claude-code", fixture(t, "00-session-start.json", ws.Root)); code != ExitOK {
		t.Fatalf("hook exit %d", code)
	}
	b, err := os.ReadFile(envFile)
	if want := "export RETRIEVE_SESSION_ID='" + sid + "'\n"; err != nil || string(b) != want {
		t.Fatalf("CLAUDE_ENV_FILE holds %q (%v), want %q", b, err, want)
	}

	out, errOut, code := runCLI(t, "--root", ws.Root, "get", "notes.txt", "--lines", "1", "--json")
	var res retrieve.Result
	if code != ExitOK || json.Unmarshal([]byte(out), &res) != nil || res.RetrievalID == "" {
		t.Fatalf("get: exit %d, %s %s", code, out, errOut)
	}
	// Without a session, nothing is recorded.
	if _, errOut, code := runCLI(t, "--root", ws.Root, "verify", res.RetrievalID); code != ExitOK {
		t.Fatalf("verify: exit %d: %s", code, errOut)
	}
	// As the agent's shell runs it: the id from the environment.
	t.Setenv(sessionEnv, sid)
	if _, errOut, code := runCLI(t, "--root", ws.Root, "get", "notes.txt", "guide.md", "missing.txt", "--json"); code != ExitNotFound {
		t.Fatalf("get: exit %d: %s", code, errOut)
	}
	if _, errOut, code := runCLI(t, "--root", ws.Root, "verify", res.RetrievalID); code != ExitOK {
		t.Fatalf("verify: exit %d: %s", code, errOut)
	}
	ws.Write("answer.md", "It says \"omega\" [notes.txt:1](notes.txt:1).\n")
	if _, errOut, code := runCLI(t, "--root", ws.Root, "check", filepath.Join(ws.Root, "answer.md")); code != ExitChanged {
		t.Fatalf("check: exit %d, want %d: %s", code, ExitChanged, errOut)
	}
	// --session names another session.
	t.Setenv(sessionEnv, "")
	if _, errOut, code := runCLI(t, "--root", ws.Root, "verify", res.RetrievalID, "--session", "other-session"); code != ExitOK {
		t.Fatalf("verify --session: exit %d: %s", code, errOut)
	}

	out, errOut, code = runCLI(t, "--root", ws.Root, "session", "show", sid, "--json")
	var s session.Session
	if code != ExitOK || json.Unmarshal([]byte(out), &s) != nil {
		t.Fatalf("session show: exit %d: %s %s", code, out, errOut)
	}
	if len(s.Checks) != 2 {
		t.Fatalf("checks %+v, want the verify and the check run with RETRIEVE_SESSION_ID", s.Checks)
	}
	v, c := s.Checks[0], s.Checks[1]
	if v.Tool != "verify" || v.Status != retrieve.Verified || v.RetrievalID != res.RetrievalID || v.Reference != "notes.txt:1-1" {
		t.Errorf("verify record %+v", v)
	}
	if c.Tool != "check" || c.Status != "fail" || !strings.HasSuffix(c.Reference, "answer.md") || len(c.Failures) != 1 || !strings.Contains(c.Failures[0], "omega") {
		t.Errorf("check record %+v", c)
	}
	var joined []string
	for _, src := range s.Sources {
		if src.Kind == "retrieval" && src.Tool == "get" && src.RetrievalID != "" {
			joined = append(joined, src.Reference)
		}
	}
	if strings.Join(joined, " ") != "notes.txt:1-3 guide.md:1-4" {
		t.Errorf("sources from retrieve get: %q, want notes.txt and guide.md (the failed one is not a source)", joined)
	}
	out, _, _ = runCLI(t, "--root", ws.Root, "session", "show", "other-session", "--json")
	if json.Unmarshal([]byte(out), &s) != nil || len(s.Checks) != 1 || s.Checks[0].RetrievalID != res.RetrievalID {
		t.Errorf("--session other-session: %s", out)
	}
}
