package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/graph/graphtest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/ops"
)

const staleExtraction = `{"entities":[{"name":"scheduler","type":"component"},{"name":"queue","type":"component"},{"name":"journal","type":"storage"}],
"relations":[{"source":"scheduler","target":"queue","type":"uses","confidence":0.9,"supporting_text":"The scheduler uses the queue."},
{"source":"queue","target":"journal","type":"writes to","confidence":0.9,"supporting_text":"The queue writes to the journal."}]}`

// TestGraphTimeCLI: a file changes under the graph; graph verify (the
// real engine, on the file) flags exactly the edge whose text left it,
// exit 7; query ranks it down and says so; a new version retires it; as
// of before the new version the old edge answers.
func TestGraphTimeCLI(t *testing.T) {
	ws := testws.New(t)
	ws.Write("notes/sched.md", graphtest.StaleText)
	x := ws.Write("x.json", staleExtraction)
	ws.InitGit()
	run := func(want int, args ...string) string {
		t.Helper()
		out, errOut, code := runCLI(t, append([]string{"--root", ws.Root}, args...)...)
		if code != want {
			t.Fatalf("%v: exit %d (want %d): %s %s", args, code, want, out, errOut)
		}
		return out
	}
	run(ExitOK, "graph", "ingest", "--doc-id", "sched", "--title", "Scheduler", "--file", "notes/sched.md", "--extraction", x, "--valid-from", "2026-01-01")
	var rep graph.VerifyReport
	if err := json.Unmarshal([]byte(run(ExitOK, "graph", "verify", "--json")), &rep); err != nil || rep.Unchanged != 1 || rep.Fresh != 2 {
		t.Fatalf("verify unchanged: %+v, %v", rep, err)
	}
	ws.Write("notes/sched.md", graphtest.StaleChanged)
	rep = graph.VerifyReport{}
	if err := json.Unmarshal([]byte(run(ExitChanged, "graph", "verify", "--json")), &rep); err != nil || rep.Stale != 1 || len(rep.StaleEdges) != 1 ||
		!strings.Contains(rep.StaleEdges[0].Diff, "+The scheduler polls the database.") {
		t.Fatalf("verify changed: %+v, %v", rep, err)
	}
	// memory verify re-checks the graph's edges too (graph.Verify).
	run(ExitOK, "memory", "init")
	var mv struct {
		Edges graph.VerifyReport `json:"edges"`
	}
	if err := json.Unmarshal([]byte(run(ExitOK, "memory", "verify", "--json")), &mv); err != nil || mv.Edges.Stale != 1 || mv.Edges.Edges != 2 {
		t.Errorf("memory verify's edges: %+v, %v", mv.Edges, err)
	}
	var q ops.GraphQueryOutput
	if err := json.Unmarshal([]byte(run(ExitOK, "graph", "query", "scheduler queue journal", "--json")), &q); err != nil {
		t.Fatal(err)
	}
	if len(q.Edges) != 2 || q.Edges[1].Type != "uses" || q.Edges[1].StaleSince == "" || q.Edges[0].ValidFrom != "2026-01-01" ||
		!strings.Contains(strings.Join(q.Assumptions, " "), "stale") {
		t.Errorf("query after verify: %+v", q)
	}
	before := time.Now().UTC().Format(time.RFC3339Nano)
	time.Sleep(5 * time.Millisecond)
	y := ws.Write("y.json", `{"entities":[{"name":"queue","type":"component"},{"name":"journal","type":"storage"}],
"relations":[{"source":"queue","target":"journal","type":"writes to","confidence":0.9,"supporting_text":"The queue writes to the journal."}]}`)
	var ing graph.IngestOutput
	if err := json.Unmarshal([]byte(run(ExitOK, "graph", "ingest", "--doc-id", "sched", "--title", "Scheduler", "--file", "notes/sched.md", "--extraction", y, "--json")), &ing); err != nil ||
		ing.Version != 2 || ing.EdgesRetired != 1 {
		t.Fatalf("new version: %+v, %v", ing, err)
	}
	q = ops.GraphQueryOutput{}
	if err := json.Unmarshal([]byte(run(ExitOK, "graph", "query", "scheduler queue journal", "--json")), &q); err != nil || len(q.Edges) != 1 {
		t.Errorf("query now: %+v, %v", q, err)
	}
	q = ops.GraphQueryOutput{}
	if err := json.Unmarshal([]byte(run(ExitOK, "graph", "query", "scheduler queue journal", "--as-of", before, "--json")), &q); err != nil || len(q.Edges) != 2 || q.Edges[1].RetiredAt == "" {
		t.Errorf("query as of before the new version: %+v, %v", q, err)
	}
	run(ExitOK, "graph", "verify")
	run(exitCode(retrieve.CodeInputValidation), "graph", "query", "x", "--as-of", "tomorrow")

	// Forget the file: a dry run first, then for real; the ledger says who.
	var fo graph.ForgetOutput
	if err := json.Unmarshal([]byte(run(ExitOK, "graph", "forget", "--source", "notes/sched.md", "--dry-run", "--json")), &fo); err != nil ||
		!fo.DryRun || fo.Total.Edges != 1 || fo.LedgerID != "" {
		t.Fatalf("dry run: %+v, %v", fo, err)
	}
	fo = graph.ForgetOutput{}
	if err := json.Unmarshal([]byte(run(ExitOK, "graph", "forget", "--source", "notes/sched.md", "--by", "alice", "--json")), &fo); err != nil ||
		fo.Total.Edges != 1 || fo.LedgerID == "" || fo.By != "alice" {
		t.Fatalf("forget: %+v, %v", fo, err)
	}
	var log ops.LogOutput
	if err := json.Unmarshal([]byte(run(ExitOK, "log", "--op", "forget", "--json")), &log); err != nil || len(log.Entries) != 1 ||
		log.Entries[0].ID != fo.LedgerID || log.Entries[0].Target != "notes/sched.md" {
		t.Errorf("log --op forget: %+v, %v", log, err)
	}
	q = ops.GraphQueryOutput{}
	if err := json.Unmarshal([]byte(run(ExitOK, "graph", "query", "scheduler queue journal", "--as-of", before, "--json")), &q); err != nil || len(q.Edges) != 0 {
		t.Errorf("forgotten edges came back as of the past: %+v, %v", q, err)
	}
	run(exitCode(retrieve.CodeNotFound), "graph", "forget", "--source", "notes/sched.md")
}
