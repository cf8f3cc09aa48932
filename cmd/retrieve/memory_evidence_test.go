package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/memory"
)

// claudeRead is a Claude Code PostToolUse input of a Read of a whole file
// (the cat -n format the host returns), as the hooks reference shows it.
func claudeRead(t *testing.T, session, root, rel, content string) []byte {
	t.Helper()
	var numbered []string
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	for i, l := range lines {
		numbered = append(numbered, fmt.Sprintf("%6d→%s", i+1, l))
	}
	in := map[string]any{
		"session_id": session, "transcript_path": "/t.jsonl", "cwd": root, "hook_event_name": "PostToolUse", "tool_name": "Read",
		"tool_input": map[string]any{"file_path": filepath.Join(root, rel)}, "tool_use_id": "toolu_" + rel,
		"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": filepath.Join(root, rel),
			"content": strings.Join(numbered, "\n"), "numLines": len(lines), "startLine": 1, "totalLines": len(lines)}},
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type overviewEnv struct {
	Success bool `json:"success"`
	Result  struct {
		SourceMap []struct {
			Path   string `json:"path"`
			Status string `json:"status"`
		} `json:"source_map"`
		Assumptions []string `json:"assumptions"`
	} `json:"result"`
}

func (o overviewEnv) paths() []string {
	var out []string
	for _, s := range o.Result.SourceMap {
		p := s.Path
		if s.Status != "" {
			p += "(" + s.Status + ")"
		}
		out = append(out, p)
	}
	return out
}

// The done-when scenario of issue 30, scripted: an agent session recorded
// through the hooks reads two files and writes notes from them; one file
// changes; memory verify flags exactly the notes that depended on it, with
// the diff; default retrieval ranks them down and says why; forget
// --source removes what came from it and the ledger records it; --as-of
// before the change answers as before.
func TestMemoryEvidenceScenario(t *testing.T) {
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	ws := testws.New(t)
	ws.Write("docs/deploy.md", "# Deploy\n\nDeploys need the staging token.\nRun make deploy.\n")
	ws.Write("docs/rollback.md", "# Rollback\n\nRoll back with make rollback.\n")
	ws.InitGit()
	const sess = "3d0f4b1e-5c2a-4e8b-9f61-2a7c9d0e1b42"
	run := func(want int, args ...string) string {
		t.Helper()
		out, errOut, code := runCLI(t, append([]string{"--root", ws.Root}, args...)...)
		if code != want {
			t.Fatalf("%v: exit %d, want %d\nstdout %s\nstderr %s", args, code, want, out, errOut)
		}
		return out
	}
	for _, f := range []string{"docs/deploy.md", "docs/rollback.md"} {
		b, _ := os.ReadFile(filepath.Join(ws.Root, f))
		if out, code := runHookInput(t, "claude-code", claudeRead(t, sess, ws.Root, f, string(b))); code != ExitOK || out != "" {
			t.Fatalf("hook %s: exit %d %q", f, code, out)
		}
	}
	run(ExitOK, "memory", "init")
	create := func(title, content string, extra ...string) memory.WriteOutput {
		t.Helper()
		out := run(ExitOK, append([]string{"memory", "create", "--type", "semantic", "--title", title, "--content", content, "--session", sess, "--json"}, extra...)...)
		var w memory.WriteOutput
		if err := json.Unmarshal([]byte(out), &w); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return w
	}
	token := create("Deploy token", "Deploys need the staging token.", "--evidence", "docs/deploy.md")
	roll := create("Rollback command", "Deploy rollback is make rollback.", "--evidence", "docs/rollback.md:3")
	all := create("Deploy session summary", "Deploy and rollback both go through make.") // the session's reads
	// Bad input: evidence that does not resolve is a typed error and
	// nothing is written.
	before, _ := os.ReadDir(filepath.Join(ws.Root, "memory", "semantic"))
	out, errOut, code := runCLI(t, "--root", ws.Root, "memory", "create", "--type", "semantic", "--title", "Ghost", "--content", "x", "--evidence", "docs/missing.md", "--json")
	if code != ExitNotFound || !strings.Contains(out, "EVIDENCE_NOT_FOUND") || !strings.Contains(errOut, "docs/missing.md") {
		t.Fatalf("unresolved evidence: exit %d\n%s\n%s", code, out, errOut)
	}
	if after, _ := os.ReadDir(filepath.Join(ws.Root, "memory", "semantic")); len(after) != len(before) {
		t.Fatalf("a note was written with unresolved evidence: %d files, was %d", len(after), len(before))
	}
	// The evidence is in the note's frontmatter (a key the X-IPE tools do
	// not read) and in extract_details.
	b, _ := os.ReadFile(filepath.Join(ws.Root, token.Path))
	parsed := memory.ParseNote(b).Note
	prov, err := parsed.Provenance()
	if err != nil || !strings.Contains(string(b), "\nretrieve:\n") || len(prov.Evidence) != 1 || !strings.HasPrefix(prov.Evidence[0].Reference, "docs/deploy.md") || prov.Session != sess {
		t.Fatalf("frontmatter (%v):\n%s", err, b)
	}
	out = run(ExitOK, "memory", "details", token.Path, "--json")
	var det struct {
		Result memory.DetailsOutput `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &det); err != nil || len(det.Result.Evidence) != 1 || det.Result.Evidence[0].RetrievalID == "" || det.Result.Session != sess {
		t.Fatalf("details evidence: %v %s", err, out)
	}
	// A note written in the session without evidence cites the session's
	// reads (the tool reads behind it).
	out = run(ExitOK, "memory", "details", all.Path, "--json")
	det = struct {
		Result memory.DetailsOutput `json:"result"`
	}{}
	if err := json.Unmarshal([]byte(out), &det); err != nil || len(det.Result.Evidence) != 2 || det.Result.Evidence[0].Via != "session" || det.Result.Session != sess {
		t.Fatalf("the session's reads as evidence: %v %s", err, out)
	}

	time.Sleep(1100 * time.Millisecond)
	asOfBefore := time.Now().UTC().Format(time.RFC3339)
	time.Sleep(1100 * time.Millisecond)

	overview := func(args ...string) overviewEnv {
		t.Helper()
		var o overviewEnv
		out := run(ExitOK, append([]string{"memory", "overview", "deploy", "--depth", "shallow", "--json"}, args...)...)
		if err := json.Unmarshal([]byte(out), &o); err != nil || !o.Success {
			t.Fatalf("overview: %v %s", err, out)
		}
		return o
	}
	if o := overview(); len(o.Result.SourceMap) != 3 || len(o.Result.Assumptions) != 0 {
		t.Fatalf("before the change: %v %v", o.paths(), o.Result.Assumptions)
	}
	out = run(ExitOK, "memory", "verify", "--json")
	var v memory.VerifyOutput
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Stale != 0 || v.Notes != 3 {
		t.Fatalf("verify before the change: %v %s", err, out)
	}

	// One file changes.
	ws.Write("docs/deploy.md", "# Deploy\n\nDeploys no longer need a token.\nRun make deploy.\n")
	out = run(ExitChanged, "memory", "verify", "--json")
	v = memory.VerifyOutput{}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	stale := map[string]string{}
	for _, c := range v.Checks {
		if c.Status == memory.StatusStale {
			for _, ch := range c.Changed {
				stale[c.ID] += ch.Diff
			}
		}
	}
	if len(stale) != 2 || stale[token.ID] == "" || stale[all.ID] == "" || v.Stale != 2 || v.Fresh != 1 {
		t.Fatalf("verify flagged %v, want exactly %s and %s\n%s", stale, token.ID, all.ID, out)
	}
	if !strings.Contains(stale[token.ID], "-Deploys need the staging token.") || !strings.Contains(stale[token.ID], "+Deploys no longer need a token.") {
		t.Fatalf("diff:\n%s", stale[token.ID])
	}
	// Again: nothing new is marked.
	out = run(ExitChanged, "memory", "verify", "--json")
	if v = (memory.VerifyOutput{}); json.Unmarshal([]byte(out), &v) != nil || v.NewStale != 0 || v.Stale != 2 {
		t.Fatalf("second verify: %s", out)
	}
	// verify --all re-checks the notes with the ledger.
	out = run(ExitChanged, "verify", "--all", "--json")
	var all2 struct {
		Memory *memory.VerifyOutput `json:"memory"`
	}
	if err := json.Unmarshal([]byte(out), &all2); err != nil || all2.Memory == nil || all2.Memory.Stale != 2 {
		t.Fatalf("verify --all: %v %s", err, out)
	}
	// why shows the chain and the stored diff.
	out = run(ExitOK, "memory", "why", token.ID, "--json")
	var why memory.WhyOutput
	if err := json.Unmarshal([]byte(out), &why); err != nil || why.State.Status != memory.StatusStale || len(why.Evidence) != 1 ||
		why.Evidence[0].Verification.Status != "changed" || !strings.Contains(why.State.Mark.Detail, "+Deploys no longer need a token.") {
		t.Fatalf("why: %v %s", err, out)
	}
	// The summary counts the notes and the stale ones from the index.
	out = run(ExitOK, "graph", "summary", "--json")
	var sum struct {
		Notes *struct {
			Notes int `json:"notes"`
			Stale int `json:"stale"`
		} `json:"notes"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Notes == nil || sum.Notes.Notes != 3 || sum.Notes.Stale != 2 {
		t.Fatalf("graph summary: %v %s", err, out)
	}
	// Default retrieval ranks the stale notes after the fresh one and says
	// why; --stale decides explicitly.
	o := overview()
	got := o.paths()
	if len(got) != 3 || got[0] != roll.Path || !strings.HasSuffix(got[1], "(stale)") || !strings.HasSuffix(got[2], "(stale)") ||
		len(o.Result.Assumptions) != 1 || !strings.Contains(o.Result.Assumptions[0], "2 stale notes ranked after the fresh ones") {
		t.Fatalf("ranked: %v %v", got, o.Result.Assumptions)
	}
	if got := overview("--stale", "exclude").paths(); len(got) != 1 || got[0] != roll.Path {
		t.Fatalf("--stale exclude: %v", got)
	}
	if got := overview("--stale", "only").paths(); len(got) != 2 {
		t.Fatalf("--stale only: %v", got)
	}
	run(ExitUsage, "memory", "overview", "deploy", "--stale", "sometimes", "--json")

	// Forget what came from the changed file: a dry run lists, then the
	// notes leave default retrieval and the ledger records it.
	out = run(ExitOK, "memory", "forget", "--source", "docs/deploy.md", "--dry-run", "--json")
	var f memory.ForgetOutput
	if err := json.Unmarshal([]byte(out), &f); err != nil || f.Matched != 2 || f.Marked != 0 || !f.DryRun {
		t.Fatalf("dry run: %v %s", err, out)
	}
	if got := overview().paths(); len(got) != 3 {
		t.Fatalf("the dry run changed something: %v", got)
	}
	out = run(ExitOK, "memory", "forget", "--source", "docs/deploy.md", "--reason", "the guide changed", "--json")
	f = memory.ForgetOutput{}
	if err := json.Unmarshal([]byte(out), &f); err != nil || f.Marked != 2 || f.LedgerID == "" {
		t.Fatalf("forget: %v %s", err, out)
	}
	if got := overview().paths(); len(got) != 1 || got[0] != roll.Path {
		t.Fatalf("after forget: %v", got)
	}
	ledgerID := f.LedgerID
	out = run(ExitOK, "memory", "forget", "--source", "docs/deploy.md", "--json")
	if f = (memory.ForgetOutput{}); json.Unmarshal([]byte(out), &f) != nil || f.Marked != 0 || f.Already != 2 || f.LedgerID != "" {
		t.Fatalf("forget again: %s", out)
	}
	out = run(ExitOK, "log", "--json")
	if !strings.Contains(out, ledgerID) || !strings.Contains(out, "memory_forget") {
		t.Fatalf("the ledger does not record the forgetting %s:\n%s", ledgerID, out)
	}
	// The forgotten note stays for audit.
	if _, err := os.Stat(filepath.Join(ws.Root, token.Path)); err != nil {
		t.Fatalf("the forgotten note's file is gone: %v", err)
	}
	// As of before the change, the store answers as it did then.
	o = overview("--as-of", asOfBefore)
	if got := o.paths(); len(got) != 3 || strings.Contains(strings.Join(got, " "), "stale") || len(o.Result.Assumptions) != 1 {
		t.Fatalf("--as-of %s: %v %v", asOfBefore, got, o.Result.Assumptions)
	}
	if got := overview("--as-of", "2001-01-01").paths(); len(got) != 0 {
		t.Fatalf("as of before any note: %v", got)
	}
	if o := overview("--as-of", "2999-01-01"); len(o.paths()) != 1 || !strings.Contains(strings.Join(o.Result.Assumptions, " "), "in the future") {
		t.Fatalf("as of the future: %v %v", o.paths(), o.Result.Assumptions)
	}
	run(ExitUsage, "memory", "overview", "deploy", "--as-of", "last tuesday", "--json")

	// Outdated: a contradicting citation retires the rollback note.
	run(ExitUsage, "memory", "outdated", roll.ID, "--by", "docs/deploy.md:3", "--json")
	run(ExitNotFound, "memory", "outdated", roll.ID, "--by", "docs/none.md", "--reason", "x", "--json")
	out = run(ExitOK, "memory", "outdated", roll.ID, "--by", "docs/deploy.md:3", "--reason", "rollback is automatic now", "--json")
	if !strings.Contains(out, `"status": "outdated"`) || !strings.Contains(out, "ledger_id") {
		t.Fatalf("outdated: %s", out)
	}
	if got := overview().paths(); len(got) != 0 {
		t.Fatalf("after outdated: %v", got)
	}
	// Valid and transaction time: the outdated note held until it was
	// contradicted; the forgotten one was retired when forgotten.
	why = memory.WhyOutput{}
	if out = run(ExitOK, "memory", "why", roll.ID, "--no-verify", "--json"); json.Unmarshal([]byte(out), &why) != nil ||
		why.RecordedAt == "" || why.RetiredAt == "" || why.ValidTo != why.RetiredAt || why.State.Mark.Reason != "rollback is automatic now" {
		t.Fatalf("why of the outdated note: %s", out)
	}
	why = memory.WhyOutput{}
	if out = run(ExitOK, "memory", "why", token.ID, "--no-verify", "--json"); json.Unmarshal([]byte(out), &why) != nil ||
		why.State.Status != memory.StatusForgotten || why.RetiredAt == "" || why.ValidTo != "" || len(why.History) != 2 {
		t.Fatalf("why of the forgotten note: %s", out)
	}
}
