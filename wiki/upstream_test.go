package wiki_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/frontmatter"
	"github.com/retrieve-dev/retrieve/wiki"
)

// TestUpstreamPagesKeepTheirBytes: a mini-context-graph page (the golden
// files of internal/frontmatter/testdata/mcg) written through the wiki is
// stored byte for byte, its title read from its front matter.
func TestUpstreamPagesKeepTheirBytes(t *testing.T) {
	files, _ := filepath.Glob("../internal/frontmatter/testdata/mcg/*.md")
	if len(files) < 3 {
		t.Fatalf("golden pages: %v", files)
	}
	w := &wiki.Wiki{Dir: filepath.Join(t.TempDir(), "wiki")}
	for _, f := range files {
		in, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		front, _, ok := wiki.SplitFrontmatter(string(in))
		title := wiki.FrontmatterTitle(front)
		if !ok || title == "" {
			t.Fatalf("%s: no title in %q", f, front)
		}
		ref, err := w.Write(t.Context(), wiki.WriteInput{Category: "topic", Title: title, Content: string(in)})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(w.Dir, ref.Path)); string(got) != string(in) {
			t.Errorf("%s stored as %q", f, got)
		}
	}
}

// TestWrittenFrontmatter: a page written without front matter gets one in
// mini-context-graph's format (SKILL.md's example, byte for byte), and
// awkward values read back as themselves, through YAML and through Title.
func TestWrittenFrontmatter(t *testing.T) {
	w := &wiki.Wiki{Dir: filepath.Join(t.TempDir(), "wiki")}
	ref, err := w.Write(t.Context(), wiki.WriteInput{Category: "summary", Title: "System Crash Analysis", SourceDocument: "doc_001",
		Tags: []string{"summary", "incident"}, Content: "# System Crash Analysis\n"})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(w.Dir, ref.Path))
	if want := "---\ntitle: System Crash Analysis\nsource_document: doc_001\ntags: [summary, incident]\n---\n\n# System Crash Analysis\n"; string(got) != want {
		t.Errorf("page:\n%s\nwant\n%s", got, want)
	}
	for i, title := range []string{"Deploy: staging", "- dash", `Say "hi"`, "it's", "#1 issue", "2026-04-16", "true", "Déjà vu 🎉 日本語", "a --- b", "[x] {y}", "tab\tin"} {
		in := wiki.WriteInput{Category: "entity", Title: title, SourceDocument: "doc: " + title, Type: "issue: " + title,
			Tags: []string{title, "plain", ""}, Content: "Body " + strings.Repeat("x", i) + ".\n"}
		ref, err := w.Write(t.Context(), in)
		if err != nil {
			t.Fatalf("%q: %v", title, err)
		}
		page, _ := os.ReadFile(filepath.Join(w.Dir, ref.Path))
		front, body, ok := wiki.SplitFrontmatter(string(page))
		if !ok || body != "\n"+in.Content {
			t.Fatalf("%q: page %q", title, page)
		}
		if got := wiki.FrontmatterTitle(front); got != title {
			t.Errorf("Title read %q as %q from\n%s", title, got, front)
		}
		b, err := frontmatter.Parse([]byte(front))
		if err != nil {
			t.Fatalf("%q: %v\n%s", title, err, front)
		}
		var fm struct {
			Title, Type    string
			SourceDocument string `yaml:"source_document"`
			Tags           []string
		}
		if err := b.Decode(&fm); err != nil || fm.Title != title || fm.Type != in.Type || fm.SourceDocument != in.SourceDocument || !reflect.DeepEqual(fm.Tags, in.Tags) {
			t.Errorf("%q read back as %+v (%v) from\n%s", title, fm, err, front)
		}
		if !reflect.DeepEqual(b.Keys(), []string{"title", "type", "source_document", "tags"}) {
			t.Errorf("keys %v", b.Keys())
		}
	}
}
