package ops_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// The tools of issue 30 through the table, as an MCP client calls them: a
// note written with a retrieval id and a reference as its evidence, its
// chain (why) after the source changed, a forget's dry run and the real
// one, an outdated mark; bad evidence is EVIDENCE_NOT_FOUND and writes
// nothing.
func TestNoteEvidenceTools(t *testing.T) {
	env := opstest.NewFull(t)
	ctx := context.Background()
	call := func(name, in string) (any, string) {
		t.Helper()
		op, ok := env.Table.Lookup(name)
		if !ok {
			t.Fatalf("no op %s", name)
		}
		oc := env.Table.Call(ctx, op, json.RawMessage(in), "mcp")
		if oc.Err != nil {
			return nil, string(oc.Err.Code) + ": " + oc.Err.Message
		}
		return oc.Value, ""
	}
	res, e := call("retrieve", `{"target": "notes.txt", "constraints": {"lines": "1-2"}}`)
	if e != "" {
		t.Fatal(e)
	}
	b, _ := json.Marshal(res)
	var r struct {
		RetrievalID string `json:"retrieval_id"`
	}
	if json.Unmarshal(b, &r); r.RetrievalID == "" {
		t.Fatalf("no retrieval id: %s", b)
	}
	out, e := call("memory_write", fmt.Sprintf(`{"memory_type": "semantic", "title": "Greek letters", "content": "alpha comes first.", "evidence": [%q, "README.md:5"]}`, r.RetrievalID))
	if e != "" {
		t.Fatal(e)
	}
	w := out.(*memory.WriteOutput)
	if _, e := call("memory_write", `{"memory_type": "semantic", "title": "Ghost", "content": "x", "evidence": ["00000000-0000-7000-8000-000000000000"]}`); !strings.HasPrefix(e, "EVIDENCE_NOT_FOUND") {
		t.Fatalf("an unknown retrieval id: %q", e)
	}
	if _, e := call("memory_read", `{"target": "semantic/ghost.md"}`); e == "" {
		t.Fatal("a note was written with unresolved evidence")
	}
	env.WS.Write("notes.txt", "ALPHA\nbeta\ngamma\ndelta\n")
	out, e = call("memory_why", fmt.Sprintf(`{"target": %q}`, w.ID))
	if e != "" {
		t.Fatal(e)
	}
	why := out.(*memory.WhyOutput)
	if len(why.Evidence) != 2 || why.Evidence[0].Verification.Status != "changed" || !strings.Contains(why.Evidence[0].Verification.Diff, "+ALPHA") ||
		why.Evidence[1].Verification.Status != "verified" || why.Evidence[1].Evidence.Reference != "README.md:5-5" {
		t.Fatalf("why: %+v", why)
	}
	out, e = call("memory_forget", `{"source": "notes.txt", "dry_run": true}`)
	if f := out.(*memory.ForgetOutput); e != "" || f.Matched != 1 || f.Marked != 0 {
		t.Fatalf("dry run: %v %+v", e, out)
	}
	out, e = call("memory_forget", `{"source": "README.md"}`)
	if f := out.(*memory.ForgetOutput); e != "" || f.Marked != 1 || f.By != "agent (MCP/HTTP)" || f.LedgerID == "" {
		t.Fatalf("forget: %v %+v", e, out)
	}
	if _, e := call("memory_forget", `{}`); !strings.HasPrefix(e, "INPUT_VALIDATION_FAILED") {
		t.Fatalf("forget of nothing: %q", e)
	}
	out, e = call("memory_outdated", `{"target": "sem-20250120-001", "by": "README.md:3", "reason": "it says so"}`)
	if o, _ := out.(*memory.OutdatedOutput); e != "" || o.Mark.Kind != memory.StatusOutdated || o.By.RetrievalID == "" {
		t.Fatalf("outdated: %v %+v", e, out)
	}
	out, e = call("extract_overview", `{"target": "deploys staging", "depth": "shallow"}`)
	if env := out.(*memory.OperationOutput); e != "" || len(env.Result.(*memory.OverviewOutput).SourceMap) != 0 {
		t.Fatalf("an outdated note is found: %v %+v", e, out)
	}
}

// A forget stopped half way keeps what it marked, and running it again
// marks the rest: resumable, with progress per batch.
func TestMemoryForgetResumes(t *testing.T) {
	env := opstest.NewFull(t)
	const n = 2500
	writeEvidenceNotes(t, env, n, func(i int) []memory.Evidence {
		return []memory.Evidence{{Reference: "docs/source.md:1", Hash: "sha256:00"}}
	})
	ctx, cancel := context.WithCancel(context.Background())
	var seen []int
	out, err := env.Memory.Forget(ctx, memory.ForgetInput{Source: "docs/source.md", By: "test", Progress: func(done, total int) {
		seen = append(seen, done)
		if total != n {
			t.Errorf("progress total %d, want %d", total, n)
		}
		cancel() // stopped after the first batch
	}})
	if err == nil || out.Marked != 1000 || len(seen) != 1 || out.LedgerID == "" {
		t.Fatalf("stopped run: %v, marked %d, progress %v", err, out.Marked, seen)
	}
	out, err = env.Memory.Forget(context.Background(), memory.ForgetInput{Source: "docs/source.md", By: "test"})
	if err != nil || out.Already != 1000 || out.Marked != n-1000 || out.LedgerID == "" {
		t.Fatalf("resumed run: %v, %+v", err, out)
	}
}

// update --evidence replaces the note's evidence in its frontmatter and in
// the index; unresolved evidence leaves the note as it was.
func TestMemoryUpdateEvidence(t *testing.T) {
	env := opstest.NewFull(t)
	ctx := context.Background()
	w, err := env.Memory.Create(ctx, memory.CreateInput{Type: memory.Semantic, Title: "Letters", Content: "alpha", Evidence: []string{"notes.txt:1"}})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := env.Memory.Read(ctx, memory.ReadInput{Target: w.ID})
	if _, err := env.Memory.Update(ctx, memory.UpdateInput{Target: w.ID, Evidence: []string{"missing.txt"}}); err == nil {
		t.Fatal("unresolved evidence accepted")
	}
	if after, _ := env.Memory.Read(ctx, memory.ReadInput{Target: w.ID}); after.Note.Updated != before.Note.Updated {
		t.Fatal("a failed update changed the note")
	}
	if _, err := env.Memory.Update(ctx, memory.UpdateInput{Target: w.ID, Evidence: []string{"README.md:1"}, ValidTo: "2026-12-01"}); err != nil {
		t.Fatal(err)
	}
	why, err := env.Memory.Why(ctx, memory.WhyInput{Target: w.ID, NoVerify: true})
	if err != nil || len(why.Evidence) != 1 || why.Evidence[0].Evidence.Reference != "README.md:1-1" || why.ValidTo != "2026-12-01T00:00:00Z" {
		t.Fatalf("why after update: %v %+v", err, why)
	}
	for src, want := range map[string]int{"notes.txt": 0, "README.md": 1} {
		out, err := env.Memory.Forget(ctx, memory.ForgetInput{Source: src, DryRun: true})
		if err != nil || out.Matched != want {
			t.Errorf("notes citing %s: %v %+v", src, err, out)
		}
	}
}

// A stale note whose source is put back as it was cited turns fresh again at
// the next verify; running verify once more marks nothing.
func TestMemoryVerifyFreshAgain(t *testing.T) {
	env := opstest.NewFull(t)
	ctx := context.Background()
	w, err := env.Memory.Create(ctx, memory.CreateInput{Type: memory.Semantic, Title: "Letters", Content: "alpha", Evidence: []string{"notes.txt:1"}})
	if err != nil {
		t.Fatal(err)
	}
	orig := opstest.Files["notes.txt"]
	env.WS.Write("notes.txt", "ALPHA\n"+strings.SplitN(orig, "\n", 2)[1])
	out, err := env.Memory.Verify(ctx, memory.VerifyInput{})
	if err != nil || out.NewStale != 1 {
		t.Fatalf("after the change: %v %+v", err, out)
	}
	env.WS.Write("notes.txt", orig)
	out, err = env.Memory.Verify(ctx, memory.VerifyInput{})
	if err != nil || out.Stale != 0 || len(out.Checks) != 1 || out.Checks[0].Was != memory.StatusStale || out.Checks[0].Status != memory.StatusFresh {
		t.Fatalf("after the revert: %v %+v", err, out)
	}
	why, _ := env.Memory.Why(ctx, memory.WhyInput{Target: w.ID, NoVerify: true})
	if why.State.Status != memory.StatusFresh || len(why.History) != 2 {
		t.Fatalf("history: %+v", why)
	}
	if out, _ = env.Memory.Verify(ctx, memory.VerifyInput{}); len(out.Checks) != 0 {
		t.Fatalf("a third verify reports changes: %+v", out)
	}
}
