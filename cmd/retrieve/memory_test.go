package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/testws"
)

func TestMemoryCLI(t *testing.T) {
	ws := testws.New(t)
	run := func(want int, args ...string) string {
		t.Helper()
		out, errOut, code := runCLI(t, append([]string{"--root", ws.Root}, args...)...)
		if code != want {
			t.Fatalf("%v: exit %d, want %d\nstdout %s\nstderr %s", args, code, want, out, errOut)
		}
		return out
	}
	run(ExitOK, "memory", "init")
	out := run(ExitOK, "memory", "create", "--type", "semantic", "--title", "Flask Jinja2 Templating", "--tag", "flask,python",
		"--meta", "verified=true", "--content", "# Flask\n\nJinja2 renders templates.\n\n## Filters\n\nUse upper.\n", "--json")
	var w struct {
		ID   string `json:"memory_entry_id"`
		Path string `json:"path"`
	}
	if err := json.Unmarshal([]byte(out), &w); err != nil || w.Path != "memory/semantic/flask-jinja2-templating.md" || !strings.HasPrefix(w.ID, "sem-") {
		t.Fatalf("create: %v %s", err, out)
	}
	run(ExitOK, "memory", "update", w.ID, "--add-tag", "web")
	run(ExitUsage, "memory", "create", "--type", "factual", "--title", "x", "--content", "y")

	out = run(ExitOK, "memory", "overview", "jinja2", "--json")
	var env struct {
		Success  bool    `json:"success"`
		WritesTo *string `json:"writes_to"`
		Result   struct {
			SourceMap []struct {
				Path      string  `json:"path"`
				Relevance float64 `json:"relevance"`
			} `json:"source_map"`
		} `json:"result"`
		Errors []struct{ Code string } `json:"errors"`
	}
	if err := json.Unmarshal([]byte(out), &env); err != nil || !env.Success || env.WritesTo != nil || len(env.Result.SourceMap) != 1 ||
		env.Result.SourceMap[0].Path != w.Path || env.Errors[0].Code != "ONTOLOGY_UNAVAILABLE" {
		t.Fatalf("overview: %v %s", err, out)
	}
	out = run(ExitOK, "memory", "details", w.Path, "--scope", "section", "--format-hints", "Filters", "--json")
	if !strings.Contains(out, `"extracted_content": "## Filters\n\nUse upper.\n"`) {
		t.Fatalf("details: %s", out)
	}
	out = run(ExitUsage, "memory", "extract", "summarize", "x", "--json")
	if !strings.Contains(out, "Unknown operation 'summarize'. Valid operations: extract_overview, extract_details") {
		t.Fatalf("extract: %s", out)
	}
	out = run(ExitNotFound, "memory", "details", "memory/semantic/missing.md", "--json")
	if !strings.Contains(out, "File not found: memory/semantic/missing.md") {
		t.Fatalf("missing: %s", out)
	}
	out = run(ExitOK, "memory", "reindex", "--json")
	if !strings.Contains(out, `"notes": 1`) {
		t.Fatalf("reindex: %s", out)
	}

	// A note is cited like any other source.
	out = run(ExitOK, "get", "memory:semantic/flask-jinja2-templating.md", "--section", "Filters", "--json")
	contracttest.Check(t, []byte(out))
	var res retrieve.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Provenance.SourceType != "memory" || res.Citation.Authority != retrieve.AuthorityMedium ||
		res.Citation.Version == nil || !strings.HasPrefix(*res.Citation.Version, "sha256:") ||
		!strings.HasPrefix(res.Citation.Reference, "memory:semantic/flask-jinja2-templating.md:") || res.Retrieved.Data != "## Filters\n\nUse upper.\n" {
		t.Fatalf("get memory: %s", out)
	}
	out = run(ExitOK, "get", "memory:semantic/flask-jinja2-templating.md:1-3", "--json")
	contracttest.Check(t, []byte(out))
	out = run(ExitNotFound, "get", "memory:semantic/nope.md", "--json")
	contracttest.Check(t, []byte(out))
	run(ExitUsage, "get", "memory:../secrets.md", "--json")

	run(ExitOK, "memory", "delete", w.ID)
	out = run(ExitOK, "memory", "overview", "jinja2", "--depth", "shallow", "--json")
	if !strings.Contains(out, "No entries found for 'jinja2'") {
		t.Fatalf("deleted note still found: %s", out)
	}
}
