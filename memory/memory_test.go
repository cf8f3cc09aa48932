package memory_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

var fixed = time.Date(2026, 4, 16, 10, 30, 0, 0, time.UTC)

// newService returns a service over a real memory folder in a temp
// workspace, with its index in a real SQLite file.
func newService(t testing.TB, w *testws.Workspace, dir string) *memory.Service {
	t.Helper()
	idx, err := sqlite.OpenMemoryIndex(context.Background(), filepath.Join(w.Root, ".retrieve", "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	s, err := memory.New(memory.Options{Root: w.Root, Dir: dir, Index: idx, Now: func() time.Time { return fixed }, FullCheckInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func codeOf(err error) retrieve.Code { return retrieve.ErrorCode(err) }

const flaskNote = `---
memory_entry_id: sem-20260416-001
title: "Flask Jinja2 Templating"
memory_type: semantic
tags: ["flask", "python"]
metadata:
  source: "https://flask.palletsprojects.com/templating/"
created: "2026-04-16T10:30:00Z"
updated: "2026-04-16T10:30:00Z"
---

# Flask Jinja2 Templating

Flask renders templates with Jinja2.

## Filters

Filters transform values: ` + "`{{ name|upper }}`" + `.

### Custom filters

Register with app.template_filter.

## Inheritance

Templates extend a base with {% extends %}.
`

// seedFolder writes a memory folder in the X-IPE layout with notes of each tier.
func seedFolder(w *testws.Workspace, base string) {
	w.Write(base+"/semantic/flask-jinja2-templating.md", flaskNote)
	w.Write(base+"/episodic/deploy-incident.md", `---
memory_entry_id: epi-20260416-001
title: "Deploy incident"
memory_type: episodic
tags: ["deploy"]
metadata: {}
created: "2026-04-16T11:00:00Z"
updated: "2026-04-16T11:00:00Z"
---

The deploy failed because the Jinja2 template cache was stale.
`)
	w.Write(base+"/procedural/release-checklist.md", `---
memory_entry_id: proc-20260416-001
title: "Release checklist"
memory_type: procedural
tags: ["release"]
metadata: {}
created: "2026-04-16T12:00:00Z"
updated: "2026-04-16T12:00:00Z"
---

1. Tag the release.
2. Publish the wheel.
`)
	for _, d := range []string{".working/overview", ".working/extracted", ".ontology/schema", ".ontology/instances", ".ontology/vocabulary"} {
		os.MkdirAll(filepath.Join(w.Root, base, d), 0o755)
	}
}

// The seed's examples (references/examples.md as seed-origins §3 records them).

func TestExampleOverviewShallow(t *testing.T) {
	w := testws.New(t)
	seedFolder(w, "x-ipe-docs/memory")
	s := newService(t, w, "")
	if s.Dir() != "x-ipe-docs/memory" {
		t.Fatalf("X-IPE layout not detected: %s", s.Dir())
	}
	out := s.Execute(context.Background(), memory.Request{Operation: "extract_overview", Context: memory.RequestContext{Target: "jinja2", Depth: "shallow"}})
	if !out.Success || out.WritesTo != nil || len(out.Errors) != 0 {
		t.Fatalf("envelope: %+v", out)
	}
	res := out.Result.(*memory.OverviewOutput)
	if len(res.SourceMap) != 2 {
		t.Fatalf("want 2 hits, got %+v", res.SourceMap)
	}
	top := res.SourceMap[0]
	if top.Path != "x-ipe-docs/memory/semantic/flask-jinja2-templating.md" || top.MemoryTier != "semantic" || top.Relevance != 1 {
		t.Fatalf("title hit must rank first: %+v", top)
	}
	for _, r := range res.SourceMap {
		if r.Relevance <= 0 || r.Relevance > 1 || r.Snippet == "" {
			t.Fatalf("bad entry %+v", r)
		}
	}
	if !strings.Contains(strings.ToLower(res.SourceMap[1].Snippet), "jinja2") {
		t.Fatalf("snippet does not show the hit: %q", res.SourceMap[1].Snippet)
	}
	if !strings.HasPrefix(res.OverviewContent, "Found 2 entries for 'jinja2'") {
		t.Fatalf("overview_content: %q", res.OverviewContent)
	}
}

func TestExampleOverviewTierFilter(t *testing.T) {
	w := testws.New(t)
	seedFolder(w, "memory")
	s := newService(t, w, "")
	res, _, err := s.Overview(context.Background(), memory.OverviewInput{Target: "jinja2", Depth: "shallow", KnowledgeType: "episodic"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.SourceMap) != 1 || res.SourceMap[0].MemoryTier != "episodic" {
		t.Fatalf("tier filter: %+v", res.SourceMap)
	}
	_, _, err = s.Overview(context.Background(), memory.OverviewInput{Target: "jinja2", KnowledgeType: "working"})
	if codeOf(err) != retrieve.CodeInputValidation {
		t.Fatalf("bad knowledge_type: %v", err)
	}
	_, _, err = s.Overview(context.Background(), memory.OverviewInput{Target: "jinja2", Depth: "deep"})
	if codeOf(err) != retrieve.CodeInputValidation {
		t.Fatalf("bad depth: %v", err)
	}
}

func TestExampleNoResults(t *testing.T) {
	w := testws.New(t)
	seedFolder(w, "memory")
	s := newService(t, w, "")
	out := s.Execute(context.Background(), memory.Request{Operation: "extract_overview", Context: memory.RequestContext{Target: "kubernetes", Depth: "shallow"}})
	res := out.Result.(*memory.OverviewOutput)
	if !out.Success || res.OverviewContent != "No entries found for 'kubernetes'" || len(res.SourceMap) != 0 || res.SourceMap == nil {
		t.Fatalf("no-result envelope: %+v %+v", out, res)
	}
}

func TestExampleEmptyTarget(t *testing.T) {
	w := testws.New(t)
	seedFolder(w, "memory")
	s := newService(t, w, "")
	out := s.Execute(context.Background(), memory.Request{Operation: "extract_overview", Context: memory.RequestContext{Target: "  "}})
	if out.Success || out.Result != nil || len(out.Errors) != 1 || out.Errors[0].Code != retrieve.CodeInputValidation {
		t.Fatalf("%+v", out)
	}
}

func TestExampleInvalidOperation(t *testing.T) {
	w := testws.New(t)
	s := newService(t, w, "")
	out := s.Execute(context.Background(), memory.Request{Operation: "summarize", Context: memory.RequestContext{Target: "x"}})
	if out.Success || out.Errors[0].Code != retrieve.CodeInvalidOperation ||
		out.Errors[0].Message != "Unknown operation 'summarize'. Valid operations: extract_overview, extract_details" {
		t.Fatalf("%+v", out)
	}
}

func TestExampleDetailsFull(t *testing.T) {
	w := testws.New(t)
	seedFolder(w, "memory")
	s := newService(t, w, "")
	for _, target := range []string{"memory/semantic/flask-jinja2-templating.md", "semantic/flask-jinja2-templating.md", "memory:semantic/flask-jinja2-templating.md", "flask templating"} {
		out := s.Execute(context.Background(), memory.Request{Operation: "extract_details", Context: memory.RequestContext{Target: target}})
		if !out.Success {
			t.Fatalf("%s: %+v", target, out.Errors)
		}
		res := out.Result.(*memory.DetailsOutput)
		if res.ExtractedContent != flaskNote {
			t.Fatalf("%s: full scope must return the whole file", target)
		}
		md := res.Metadata
		if md.FileSize != int64(len(flaskNote)) || md.MemoryTier != "semantic" || md.Title != "Flask Jinja2 Templating" ||
			!reflect.DeepEqual(md.Tags, []string{"flask", "python"}) || md.LastModified != testws.Epoch.Format(time.RFC3339) {
			t.Fatalf("%s: metadata %+v", target, md)
		}
	}
}

func TestExampleDetailsSection(t *testing.T) {
	w := testws.New(t)
	seedFolder(w, "memory")
	s := newService(t, w, "")
	res, _, err := s.Details(context.Background(), memory.DetailsInput{Target: "semantic/flask-jinja2-templating.md", Scope: "section", FormatHints: "Filters"})
	if err != nil {
		t.Fatal(err)
	}
	want := "## Filters\n\nFilters transform values: `{{ name|upper }}`.\n\n### Custom filters\n\nRegister with app.template_filter.\n\n"
	if res.ExtractedContent != want {
		t.Fatalf("section must run to the next heading of equal or higher level:\n%q", res.ExtractedContent)
	}
	_, _, err = s.Details(context.Background(), memory.DetailsInput{Target: "semantic/flask-jinja2-templating.md", Scope: "section", FormatHints: "Nope"})
	if codeOf(err) != retrieve.CodeSectionNotFound || !strings.Contains(retrieve.AsError(err).Hint, "Filters") {
		t.Fatalf("missing section: %v", err)
	}
	res, _, err = s.Details(context.Background(), memory.DetailsInput{Target: "semantic/flask-jinja2-templating.md", Scope: "specific", FormatHints: "headings"})
	if err != nil || !strings.Contains(res.ExtractedContent, "### Custom filters") || strings.Contains(res.ExtractedContent, "Register") {
		t.Fatalf("specific headings: %v %+v", err, res)
	}
}

// extract_details takes the memory_entry_id extract_overview's source_map
// gives; an id that names no note is PATH_NOT_FOUND.
func TestDetailsByEntryID(t *testing.T) {
	w := testws.New(t)
	seedFolder(w, "memory")
	s := newService(t, w, "")
	res, _, err := s.Details(context.Background(), memory.DetailsInput{Target: "sem-20260416-001"})
	if err != nil || res.ExtractedContent != flaskNote {
		t.Fatalf("by id: %v %+v", err, res)
	}
	if _, _, err := s.Details(context.Background(), memory.DetailsInput{Target: "sem-20990101-001"}); codeOf(err) != retrieve.CodePathNotFound {
		t.Fatalf("unknown id: %v", err)
	}
}

func TestExampleFileNotFound(t *testing.T) {
	w := testws.New(t)
	seedFolder(w, "memory")
	s := newService(t, w, "")
	out := s.Execute(context.Background(), memory.Request{Operation: "extract_details", Context: memory.RequestContext{Target: "memory/semantic/missing.md"}})
	if out.Success || out.Errors[0].Code != retrieve.CodePathNotFound || out.Errors[0].Message != "File not found: memory/semantic/missing.md" {
		t.Fatalf("%+v", out)
	}
	_, _, err := s.Details(context.Background(), memory.DetailsInput{Target: "../etc/passwd.md"})
	if codeOf(err) != retrieve.CodePathNotFound {
		t.Fatalf("outside path: %v", err)
	}
	_, _, err = s.Details(context.Background(), memory.DetailsInput{Target: "x", Scope: "everything"})
	if codeOf(err) != retrieve.CodeInputValidation {
		t.Fatalf("bad scope: %v", err)
	}
}

// The ontology in each of its three formats.
func TestOntologyFormats(t *testing.T) {
	w := testws.New(t)
	seedFolder(w, "memory")
	// Legacy entity lines, with a later line replacing an earlier one.
	w.Write("memory/.ontology/instances/legacy.jsonl",
		`{"op":"create","entity":{"id":"n1","type":"KnowledgeNode","properties":{"label":"Old label","node_type":"concept","description":"x","source_files":["semantic/flask-jinja2-templating.md"]}}}
{"op":"create","entity":{"id":"n1","type":"KnowledgeNode","properties":{"label":"Template engine","node_type":"concept","description":"renders HTML","dimensions":{"domain":"web frameworks"},"source_files":["semantic/flask-jinja2-templating.md"],"weight":1}}}
not json
`)
	// Builder lines.
	w.Write("memory/.ontology/instances/instance.001.jsonl",
		`{"op":"create","type":"KnowledgeNode","id":"inst-001","ts":"2026-04-16T10:00:00Z","props":{"label":"Release process","class":"procedure","source_files":["memory/procedural/release-checklist.md"],"lifecycle":"active"}}
`)
	// Legacy relations and synthesizer relations.
	w.Write("memory/.ontology/instances/_relations.001.jsonl", `{"from":"n1","rel":"used_by","to":"inst-001"}
`)
	w.Write("memory/.ontology/relations/_relations.001.jsonl",
		`{"op":"create","type":"Relation","id":"rel-1","ts":"2026-04-16T10:00:00Z","props":{"from_id":"inst-001","to_id":"inst-002","relation_type":"precedes"}}
`)
	w.Write("memory/.ontology/instances/instance.002.jsonl",
		`{"op":"create","type":"KnowledgeNode","id":"inst-002","ts":"2026-04-16T10:00:00Z","props":{"label":"Deployment","class":"event","source_files":["episodic/deploy-incident.md"]}}
`)
	onto, err := memory.LoadOntology(filepath.Join(w.Root, "memory"))
	if err != nil {
		t.Fatal(err)
	}
	if len(onto.Entities) != 3 || onto.Entities["n1"].Label != "Template engine" || onto.Entities["inst-001"].Class != "procedure" {
		t.Fatalf("entities: %+v", onto.Entities)
	}
	if len(onto.Relations) != 2 || onto.Relations[1] != (memory.Relation{From: "inst-001", Rel: "precedes", To: "inst-002"}) {
		t.Fatalf("relations: %+v", onto.Relations)
	}
	if len(onto.Warnings) != 1 {
		t.Fatalf("warnings: %v", onto.Warnings)
	}
	m := onto.Search("web frameworks", 3)
	if len(m) != 3 || m[0].Entity.ID != "n1" || m[0].Score != 0.5 || m[1].Hops != 1 || m[1].Score != 0.25 || m[2].Hops != 2 {
		t.Fatalf("search: %+v", m)
	}
	m = onto.Search("template renders", 0)
	if len(m) != 1 || m[0].Score <= 0 || m[0].Score >= 1 {
		t.Fatalf("per-term search: %+v", m)
	}

	s := newService(t, w, "")
	res, notices, err := s.Overview(context.Background(), memory.OverviewInput{Target: "release process"})
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]memory.SourceRef{}
	for _, r := range res.SourceMap {
		paths[r.Path] = r
	}
	if r, ok := paths["memory/procedural/release-checklist.md"]; !ok || !reflect.DeepEqual(r.Via, []string{"ontology"}) && !reflect.DeepEqual(r.Via, []string{"text", "ontology"}) {
		t.Fatalf("ontology hit missing: %+v", res.SourceMap)
	}
	if _, ok := paths["memory/episodic/deploy-incident.md"]; !ok {
		t.Fatalf("BFS neighbor over a synthesizer relation missing: %+v", res.SourceMap)
	}
	if len(notices) != 1 || notices[0].Code != retrieve.CodeParseFailed {
		t.Fatalf("notices: %+v", notices)
	}
}

func TestOntologyUnavailable(t *testing.T) {
	w := testws.New(t)
	seedFolder(w, "memory")
	s := newService(t, w, "")
	out := s.Execute(context.Background(), memory.Request{Operation: "extract_overview", Context: memory.RequestContext{Target: "jinja2"}})
	if !out.Success || len(out.Errors) != 1 || out.Errors[0].Code != retrieve.CodeOntologyUnavail {
		t.Fatalf("degraded mode: %+v", out)
	}
	if len(out.Result.(*memory.OverviewOutput).SourceMap) != 2 {
		t.Fatal("degraded mode must still return the text hits")
	}
}

// snapshot records every file's bytes and mtime under dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := d.Info()
		v := fi.ModTime().String()
		if !d.IsDir() {
			b, _ := os.ReadFile(p)
			v += string(b)
		}
		out[p] = v
		return nil
	})
	return out
}

func TestExtractorIsReadOnly(t *testing.T) {
	w := testws.New(t)
	seedFolder(w, "memory")
	w.Write("memory/.ontology/instances/instance.001.jsonl", `{"op":"create","type":"KnowledgeNode","id":"i1","props":{"label":"Jinja2","source_files":["semantic/flask-jinja2-templating.md"]}}`+"\n")
	dir := filepath.Join(w.Root, "memory")
	before := snapshot(t, dir)
	s := newService(t, w, "")
	ctx := context.Background()
	for _, req := range []memory.Request{
		{Operation: "extract_overview", Context: memory.RequestContext{Target: "jinja2"}},
		{Operation: "extract_overview", Context: memory.RequestContext{Target: "nothing here", Depth: "shallow"}},
		{Operation: "extract_details", Context: memory.RequestContext{Target: "semantic/flask-jinja2-templating.md", Scope: "section", FormatHints: "Filters"}},
		{Operation: "extract_details", Context: memory.RequestContext{Target: "release"}},
		{Operation: "extract_details", Context: memory.RequestContext{Target: "semantic/missing.md"}},
		{Operation: "summarize"},
	} {
		s.Execute(ctx, req)
	}
	if _, err := s.Reindex(ctx, memory.ReindexInput{}); err != nil {
		t.Fatal(err)
	}
	if after := snapshot(t, dir); !reflect.DeepEqual(before, after) {
		t.Fatal("an extractor call changed the memory folder")
	}
}

func TestIndexStaysTrue(t *testing.T) {
	w := testws.New(t)
	seedFolder(w, "memory")
	s := newService(t, w, "")
	ctx := context.Background()
	find := func(q string) []string {
		t.Helper()
		res, _, err := s.Overview(ctx, memory.OverviewInput{Target: q, Depth: "shallow"})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res.SourceMap {
			out = append(out, r.Path)
		}
		return out
	}
	if got := find("wheel"); len(got) != 1 {
		t.Fatalf("before: %v", got)
	}
	// Edit in place by hand (a new size), add a note, delete a note.
	p := filepath.Join(w.Root, "memory/procedural/release-checklist.md")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(b), "wheel", "sdist and the zebra", 1)), 0o644)
	w.Write("memory/semantic/zebra.md", "# Zebras\n\nStriped.\n")
	os.Remove(filepath.Join(w.Root, "memory/episodic/deploy-incident.md"))
	if got := find("wheel"); len(got) != 0 {
		t.Fatalf("edited note still found by its old text: %v", got)
	}
	if got := find("zebra"); len(got) != 2 {
		t.Fatalf("new and edited notes: %v", got)
	}
	if got := find("stale"); len(got) != 0 {
		t.Fatalf("deleted note still found: %v", got)
	}
	// A long-lived service with the default interval sees a new note at once
	// (its folder's mtime moved).
	idx, err := sqlite.OpenMemoryIndex(ctx, filepath.Join(w.Root, ".retrieve", "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	s2, _ := memory.New(memory.Options{Root: w.Root, Index: idx})
	if _, err := s2.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	w.Write("memory/episodic/okapi.md", "# Okapi\n\nforest giraffe\n")
	res, _, err := s2.Overview(ctx, memory.OverviewInput{Target: "okapi", Depth: "shallow"})
	if err != nil || len(res.SourceMap) != 1 {
		t.Fatalf("new note not seen: %v %+v", err, res)
	}
	// reindex rebuilds from scratch and drops nothing that exists.
	out, err := s2.Reindex(ctx, memory.ReindexInput{})
	if err != nil || out.Notes != 4 {
		t.Fatalf("reindex: %v %+v", err, out)
	}
}

func TestMalformedFrontmatterStillSearchable(t *testing.T) {
	w := testws.New(t)
	seedFolder(w, "memory")
	w.Write("memory/semantic/broken.md", "---\ntitle: [unclosed\ntags: x\n---\n\nThe quokka is a marsupial.\n")
	s := newService(t, w, "")
	res, notices, err := s.Overview(context.Background(), memory.OverviewInput{Target: "quokka", Depth: "shallow"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.SourceMap) != 1 || res.SourceMap[0].Path != "memory/semantic/broken.md" {
		t.Fatalf("%+v", res.SourceMap)
	}
	if len(notices) != 1 || !strings.Contains(notices[0].Message, "memory/semantic/broken.md: frontmatter is not valid YAML") {
		t.Fatalf("want a per-file warning, got %+v", notices)
	}
	_, err = s.Update(context.Background(), memory.UpdateInput{Target: "semantic/broken.md", AddTags: []string{"x"}})
	if codeOf(err) != retrieve.CodeParseFailed {
		t.Fatalf("update of a broken note must refuse: %v", err)
	}
}

func TestLargeNoteAndOddNames(t *testing.T) {
	w := testws.New(t)
	seedFolder(w, "memory")
	big := "# Big\n\n" + strings.Repeat("lorem ipsum dolor sit amet ", 10<<20/27) + "\n\nneedle-platypus at the end\n"
	w.Write("memory/semantic/big.md", big)
	odd := "caf\xe9-latin1.md" // not UTF-8
	w.Write("memory/episodic/"+odd, "# Odd\n\nA wombat was here.\n")
	s := newService(t, w, "")
	ctx := context.Background()
	res, _, err := s.Overview(ctx, memory.OverviewInput{Target: "platypus", Depth: "shallow"})
	if err != nil || len(res.SourceMap) != 1 || res.SourceMap[0].Path != "memory/semantic/big.md" {
		t.Fatalf("10 MB note: %v %+v", err, res)
	}
	res, _, err = s.Overview(ctx, memory.OverviewInput{Target: "wombat", Depth: "shallow"})
	if err != nil || len(res.SourceMap) != 1 || res.SourceMap[0].Path != "memory/episodic/"+odd {
		t.Fatalf("non-UTF-8 name: %v %+v", err, res)
	}
	d, _, err := s.Details(ctx, memory.DetailsInput{Target: res.SourceMap[0].Path})
	if err != nil || !strings.Contains(d.ExtractedContent, "wombat") || d.Metadata.Title != "Odd" {
		t.Fatalf("details of a non-UTF-8 name: %v %+v", err, d)
	}
}

func TestKeeperLifecycle(t *testing.T) {
	w := testws.New(t)
	s := newService(t, w, "")
	ctx := context.Background()
	if _, err := s.Create(ctx, memory.CreateInput{Type: "semantic", Title: "x", Content: "y"}); codeOf(err) != retrieve.CodePathNotFound {
		t.Fatalf("create before init: %v", err)
	}
	if _, err := s.Init(ctx, memory.InitInput{}); err != nil {
		t.Fatal(err)
	}
	again, err := s.Init(ctx, memory.InitInput{})
	if err != nil || len(again.Created) != 0 {
		t.Fatalf("init is not idempotent: %v %+v", err, again)
	}
	if _, err := s.Create(ctx, memory.CreateInput{Type: "factual", Title: "x", Content: "y"}); codeOf(err) != retrieve.CodeInvalidMemoryType {
		t.Fatalf("bad type: %v", err)
	}
	for _, title := range []string{"🚀🚀", "!!! ???", "— … —"} {
		_, err := s.Create(ctx, memory.CreateInput{Type: "semantic", Title: title, Content: "y"})
		if codeOf(err) != retrieve.CodeInputValidation || !strings.Contains(retrieve.AsError(err).Hint, "letters of any script") {
			t.Fatalf("title %q: got %v, want INPUT_VALIDATION_FAILED naming what is allowed", title, err)
		}
	}
	c, err := s.Create(ctx, memory.CreateInput{Type: "semantic", Title: "Flask Jinja2 Templating", Content: "Body.\n",
		Tags: []string{"flask", "python"}, Metadata: map[string]any{"source": "https://x", "verified": true, "count": 3}})
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != "sem-20260416-001" || c.Path != "memory/semantic/flask-jinja2-templating.md" {
		t.Fatalf("%+v", c)
	}
	want := "---\nmemory_entry_id: sem-20260416-001\ntitle: \"Flask Jinja2 Templating\"\nmemory_type: semantic\ntags: [\"flask\", \"python\"]\nmetadata:\n  count: 3\n  source: \"https://x\"\n  verified: true\ncreated: \"2026-04-16T10:30:00Z\"\nupdated: \"2026-04-16T10:30:00Z\"\n---\n\nBody.\n"
	if b, _ := os.ReadFile(filepath.Join(w.Root, c.Path)); string(b) != want {
		t.Fatalf("file:\n%s", b)
	}
	c2, _ := s.Create(ctx, memory.CreateInput{Type: "semantic", Title: "Flask Jinja2 Templating!", Content: "Other.\n"})
	if c2.ID != "sem-20260416-002" || c2.Path != "memory/semantic/flask-jinja2-templating-2.md" {
		t.Fatalf("collision: %+v", c2)
	}
	// Update keeps what it was not asked to change; booleans stay booleans.
	title := "Jinja2 in Flask"
	u, err := s.Update(ctx, memory.UpdateInput{Target: c.ID, Title: &title, Metadata: map[string]any{"reviewed": false, "source": nil}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Read(ctx, memory.ReadInput{Target: u.Path})
	if err != nil {
		t.Fatal(err)
	}
	n := r.Note
	if n.Title != title || n.Body != "Body.\n" || !reflect.DeepEqual(n.Tags, []string{"flask", "python"}) ||
		!reflect.DeepEqual(n.Metadata, map[string]any{"verified": true, "count": 3, "reviewed": false}) || n.Created != "2026-04-16T10:30:00Z" {
		t.Fatalf("update lost or changed fields: %+v", n)
	}
	l, err := s.List(ctx, memory.ListInput{Tags: []string{"python"}})
	if err != nil || l.Total != 1 || l.Entries[0].ID != c.ID {
		t.Fatalf("list by tag: %v %+v", err, l)
	}
	// Promote a draft.
	w.Write("memory/.working/extracted/draft.md", "# Release steps\n\nTag, build, publish.\n")
	p, err := s.Promote(ctx, memory.PromoteInput{Source: "extracted/draft.md", Type: "procedural"})
	if err != nil || p.ID != "proc-20260416-001" || p.Note.Title != "Release steps" {
		t.Fatalf("promote: %v %+v", err, p)
	}
	if _, err := os.Stat(filepath.Join(w.Root, "memory/.working/extracted/draft.md")); !os.IsNotExist(err) {
		t.Fatal("the draft was not removed")
	}
	if _, err := s.Promote(ctx, memory.PromoteInput{Source: "../semantic/x.md", Type: "procedural"}); codeOf(err) != retrieve.CodeInvalidPath {
		t.Fatalf("promote outside .working: %v", err)
	}
	d, err := s.Delete(ctx, memory.DeleteInput{Target: c2.ID})
	if err != nil || !d.Deleted {
		t.Fatal(err)
	}
	if _, err := s.Read(ctx, memory.ReadInput{Target: c2.ID}); codeOf(err) != retrieve.CodeNotFound {
		t.Fatalf("read deleted: %v", err)
	}
	if _, err := s.Read(ctx, memory.ReadInput{Target: "../../etc/passwd"}); codeOf(err) != retrieve.CodeInvalidPath {
		t.Fatalf("read outside: %v", err)
	}
}

func TestConcurrentCreates(t *testing.T) {
	w := testws.New(t)
	ctx := context.Background()
	s := newService(t, w, "")
	if _, err := s.Init(ctx, memory.InitInput{}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	ids := make([]string, 50)
	errs := make([]error, 50)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A service per writer, as separate processes would have.
			s2, _ := memory.New(memory.Options{Root: w.Root, Now: func() time.Time { return fixed }})
			out, err := s2.Create(ctx, memory.CreateInput{Type: "episodic", Title: "Same title", Content: fmt.Sprintf("writer %d\n", i)})
			errs[i] = err
			if err == nil {
				ids[i] = out.ID
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, id := range ids {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if seen[id] {
			t.Fatalf("duplicate id %s", id)
		}
		seen[id] = true
	}
	entries, _ := os.ReadDir(filepath.Join(w.Root, "memory/episodic"))
	if len(entries) != 50 {
		t.Fatalf("want 50 files, got %d", len(entries))
	}
	l, _ := s.List(ctx, memory.ListInput{Type: "episodic"})
	if l.Total != 50 || l.Entries[49].ID != "epi-20260416-050" {
		t.Fatalf("list: %d", l.Total)
	}
}

// Queries and keeper writes on one Service at the same time: every query
// succeeds and, at the end, every written note is found.
func TestConcurrentQueriesAndWrites(t *testing.T) {
	w := testws.New(t)
	seedFolder(w, "memory")
	s := newService(t, w, "")
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				if g%2 == 0 {
					if _, err := s.Create(ctx, memory.CreateInput{Type: "semantic", Title: fmt.Sprintf("capybara %d %d", g, i), Content: "capybara notes\n"}); err != nil {
						t.Error(err)
					}
				} else if _, _, err := s.Overview(ctx, memory.OverviewInput{Target: "capybara", Depth: "medium"}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	res, _, err := s.Overview(ctx, memory.OverviewInput{Target: "capybara", Depth: "shallow", Limit: 100})
	if err != nil || len(res.SourceMap) != 20 {
		t.Fatalf("want the 20 notes written, got %v %d", err, len(res.SourceMap))
	}
}
