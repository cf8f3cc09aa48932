package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/memory"
)

// A note's text over time (issue 30): an update keeps the text it replaced
// in the index; memory history lists both versions with their hashes and
// times, memory why carries them, and memory overview --as-of a time
// between shows the text as it was then and says so.
func TestMemoryHistory(t *testing.T) {
	ws := testws.New(t)
	ws.InitGit()
	run := func(args ...string) string {
		t.Helper()
		out, errOut, code := runCLI(t, append([]string{"--root", ws.Root}, args...)...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d\nstdout %s\nstderr %s", args, code, out, errOut)
		}
		return out
	}
	run("memory", "init")
	var w memory.WriteOutput
	if err := json.Unmarshal([]byte(run("memory", "create", "--type", "semantic", "--title", "Deploy token", "--content", "Deploys need the staging token.", "--json")), &w); err != nil {
		t.Fatal(err)
	}
	run("memory", "overview", "token", "--json") // indexes the first text
	run("memory", "update", w.ID, "--content", "Deploys need the production token now.", "--json")
	var h memory.HistoryOutput
	if out := run("memory", "history", w.ID, "--json"); json.Unmarshal([]byte(out), &h) != nil || len(h.Versions) != 2 ||
		h.Versions[0].Hash == h.Versions[1].Hash || h.Versions[0].To == "" || !h.Versions[1].Current || h.Versions[1].From != h.Versions[0].To {
		t.Fatalf("history: %s", out)
	}
	var why memory.WhyOutput
	if out := run("memory", "why", w.ID, "--no-verify", "--json"); json.Unmarshal([]byte(out), &why) != nil || len(why.Versions) != 2 {
		t.Fatalf("why: %s", out)
	}
	var ov struct {
		Result memory.OverviewOutput `json:"result"`
	}
	out := run("memory", "overview", "token", "--as-of", h.Versions[0].To, "--json")
	if json.Unmarshal([]byte(out), &ov) != nil || len(ov.Result.SourceMap) != 1 || !strings.Contains(ov.Result.SourceMap[0].Snippet, "staging") ||
		!strings.Contains(strings.Join(ov.Result.Assumptions, "\n"), "as their text was then") {
		t.Fatalf("overview as of %s: %s", h.Versions[0].To, out)
	}
	out = run("memory", "overview", "token", "--json")
	if json.Unmarshal([]byte(out), &ov) != nil || len(ov.Result.SourceMap) != 1 || !strings.Contains(ov.Result.SourceMap[0].Snippet, "production") {
		t.Fatalf("overview now: %s", out)
	}
}
