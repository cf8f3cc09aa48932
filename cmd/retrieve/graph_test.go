package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/graph/graphtest"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/wiki"
)

const extractionJSON = `{"entities":[{"name":"Memory Leak","type":"bug","supporting_text":"a memory leak"},{"name":"System Crash","type":"event","supporting_text":"a system crash"}],
"relations":[{"source":"memory leak","target":"system crash","type":"causes","confidence":0.9,"supporting_text":"a memory leak in the cache service causes a system crash"},
{"source":"memory leak","target":"system crash","type":"leads to","confidence":0.5}]}`

func TestGraphCLI(t *testing.T) {
	ws := testws.New(t)
	ws.Write("notes/incident.md", graphtest.AcceptanceText+"\n")
	x := ws.Write("x.json", extractionJSON)
	ws.InitGit()
	cli := func(args ...string) string {
		t.Helper()
		out, errOut, code := runCLI(t, append([]string{"--root", ws.Root}, args...)...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return out
	}

	out := cli("graph", "ingest", "--doc-id", "doc_001", "--title", "Incident report", "--file", "notes/incident.md", "--extraction", x, "--json")
	var ing graph.IngestOutput
	if err := json.Unmarshal([]byte(out), &ing); err != nil {
		t.Fatal(err)
	}
	if ing.DocID != "doc_001" || ing.ChunkCount != 1 || ing.NodesAdded != 2 || ing.EdgesAdded != 1 || len(ing.Skipped) != 1 ||
		ing.Reference != "notes/incident.md:1-1" || !strings.HasPrefix(ing.Hash, "sha256:") {
		t.Fatalf("ingest = %s", out)
	}

	out = cli("graph", "evidence", "Why does the system crash?", "--json")
	var ev graph.EvidenceOutput
	if err := json.Unmarshal([]byte(out), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.EvidenceChain != "memory leak --[causes]--> system crash" || len(ev.Paths) != 1 {
		t.Fatalf("evidence = %s", out)
	}
	hop := ev.Paths[0].Hops[0]
	if hop.Citation.DocumentReference != "notes/incident.md:1-1" || hop.Citation.RetrievalID == "" {
		t.Errorf("hop citation = %+v", hop.Citation)
	}
	// Same query twice, same bytes.
	if again := cli("graph", "evidence", "Why does the system crash?", "--json"); again != out {
		t.Error("evidence output differs between two runs")
	}

	// Every hop's citation is retrievable and its text holds the supporting text.
	out = cli("get", hop.Citation.Reference, "--json")
	contracttest.Check(t, []byte(out))
	var res retrieve.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if !graph.ContainsEvidence(res.Retrieved.Data.(string), *hop.SupportingText) || res.Citation.Reference != "doc:doc_001#doc_001_chunk_000" {
		t.Errorf("get %s = %s", hop.Citation.Reference, out)
	}
	out, _, code0 := runCLI(t, "--root", ws.Root, "get", "doc:doc_001#doc_001_chunk_009", "--json")
	contracttest.Check(t, []byte(out))
	if code0 != exitCode(retrieve.CodeNotFound) || !strings.Contains(out, "doc:doc_001#doc_001_chunk_000") {
		t.Errorf("missing chunk: exit %d %s", code0, out)
	}
	out = cli("get", "graph:node/memory leak", "--json")
	contracttest.Check(t, []byte(out))
	if !strings.Contains(out, `"supporting_text": "a memory leak in the cache service causes a system crash"`) {
		t.Errorf("node view lacks the edge evidence: %s", out)
	}
	// The same entity by the id a query shows.
	byID := cli("get", "graph:node/"+graph.NodeID("memory leak"), "--json")
	contracttest.Check(t, []byte(byID))
	if !strings.Contains(byID, `"supporting_text": "a memory leak in the cache service causes a system crash"`) {
		t.Errorf("graph:node/<id> does not resolve: %s", byID)
	}

	// A fabricated supporting text is rejected with its own exit code.
	bad := ws.Write("bad.json", strings.Replace(extractionJSON, "a memory leak in the cache service causes a system crash", "the leak was harmless", 1))
	_, errOut, code := runCLI(t, "--root", ws.Root, "graph", "ingest", "--doc-id", "doc_002", "--file", "notes/incident.md", "--extraction", bad)
	if code != exitCode(retrieve.CodeEvidenceNotFound) || !strings.Contains(errOut, "EVIDENCE_NOT_FOUND") {
		t.Errorf("fabricated evidence: exit %d %s", code, errOut)
	}

	// stdin ingest.
	var o, e strings.Builder
	code = run(t.Context(), &Streams{In: strings.NewReader("Cache service depends on Redis."), Out: &o, ErrOut: &e},
		[]string{"--root", ws.Root, "graph", "ingest", "--doc-id", "doc_003", "--stdin", "--extraction", ws.Write("y.json",
			`{"entities":[{"name":"cache service","type":"service"},{"name":"redis","type":"database"}],"relations":[{"source":"cache service","target":"redis","type":"requires","confidence":1,"supporting_text":"cache service depends on redis"}]}`), "--json"})
	if code != ExitOK || !strings.Contains(o.String(), `"edges_added": 1`) {
		t.Fatalf("stdin ingest: %d %s %s", code, o.String(), e.String())
	}

	// A saved retrieve get result keeps its citation; an edited one is refused.
	saved := cli("get", "notes/incident.md", "--json")
	rpath := ws.Write("result.json", saved)
	out = cli("graph", "ingest", "--doc-id", "doc_004", "--result", rpath, "--extraction", x, "--json")
	if !strings.Contains(out, `"reference": "notes/incident.md`) || !strings.Contains(out, `"edges_added": 0`) {
		t.Errorf("ingest --result = %s", out)
	}
	edited := ws.Write("edited.json", strings.Replace(saved, "memory leak", "memory loss", 1))
	_, errOut, code = runCLI(t, "--root", ws.Root, "graph", "ingest", "--doc-id", "doc_005", "--result", edited, "--extraction", x)
	if code != exitCode(retrieve.CodeChanged) {
		t.Errorf("edited result: exit %d %s", code, errOut)
	}

	// Wiki-first ask with file-back, then the wiki answers.
	out = cli("graph", "ask", "Why does the system crash?", "--file-back", "--json")
	var ask graph.AskOutput
	json.Unmarshal([]byte(out), &ask)
	if ask.Answered != "graph" || ask.FiledBack == nil {
		t.Fatalf("ask = %s", out)
	}
	out = cli("graph", "ask", "Why does the system crash?", "--json")
	json.Unmarshal([]byte(out), &ask)
	if ask.Answered != "wiki" || ask.WikiPages[0].Citation != "wiki:topic/why-does-the-system-crash" {
		t.Fatalf("second ask = %s", out)
	}
	out = cli("get", "wiki:topic/why-does-the-system-crash", "--json")
	contracttest.Check(t, []byte(out))
	if !strings.Contains(out, "doc:doc_001#doc_001_chunk_000") {
		t.Errorf("filed page lacks the hop citation: %s", out)
	}

	// Wiki commands.
	cli("wiki", "write", "--category", "entity", "--title", "Memory Leak", "--content", "Leaks until a [[system-crash]].", "--type", "issue")
	out = cli("wiki", "search", "memory", "leak", "--json")
	var hits ops.WikiHits
	if err := json.Unmarshal([]byte(out), &hits); err != nil || len(hits.Hits) == 0 || hits.Hits[0].Slug != "memory-leak" {
		t.Errorf("search = %s", out)
	}
	out = cli("wiki", "read", "memory-leak", "--json")
	if !strings.Contains(out, "type: issue") {
		t.Errorf("read = %s", out)
	}
	// A broken wikilink fails CI: the report is printed and the exit code
	// is 7; once the link resolves, lint exits 0 (--strict: orphan and
	// isolated pages fail too).
	out, errOut, code = runCLI(t, "--root", ws.Root, "wiki", "lint", "--json")
	var lint wiki.LintOutput
	json.Unmarshal([]byte(out), &lint)
	if code != ExitChanged || lint.BrokenWikilinks["memory-leak"][0] != "system-crash" {
		t.Errorf("lint with a broken link: exit %d, want %d: %s %s", code, ExitChanged, out, errOut)
	}
	cli("wiki", "write", "--category", "entity", "--title", "System Crash", "--content", "Caused by a [[memory-leak]].", "--type", "issue")
	if out, errOut, code = runCLI(t, "--root", ws.Root, "wiki", "lint", "--json"); code != ExitOK {
		t.Errorf("lint with every link resolved: exit %d, want 0: %s %s", code, out, errOut)
	}

	// Export, import into a new workspace, export again: same files.
	exp1 := filepath.Join(t.TempDir(), "e1")
	cli("graph", "export", exp1)
	ws2 := testws.New(t)
	out, errOut, code = runCLI(t, "--root", ws2.Root, "graph", "import", exp1, "--json")
	if code != ExitOK || !strings.Contains(out, `"nodes_added": 4`) {
		t.Fatalf("import: %d %s %s", code, out, errOut)
	}
	exp2 := filepath.Join(t.TempDir(), "e2")
	runCLI(t, "--root", ws2.Root, "graph", "export", exp2)
	for _, f := range []string{"data/graph.json", "data/documents.json", "data/index.json", "data/ontology.json", "wiki/index.md", "wiki/entities/memory-leak.md"} {
		a, _ := os.ReadFile(filepath.Join(exp1, f))
		b, _ := os.ReadFile(filepath.Join(exp2, f))
		if len(a) == 0 || string(a) != string(b) {
			t.Errorf("%s differs after export → import → export", f)
		}
	}
}
