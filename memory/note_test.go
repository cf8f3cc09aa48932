package memory

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve"
)

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Flask Jinja2 Templating": "flask-jinja2-templating",
		"  --Hello, World!--  ":   "hello-world",
		"Café au lait":            "café-au-lait",
		"日本語":                     "日本語",
		"🎉 !!":                    "",
		strings.Repeat("漏", 70):   strings.Repeat("漏", 60),
		strings.Repeat("ab ", 40): strings.TrimRight(strings.Repeat("ab-", 20), "-"),
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
	if id := FormatID(Procedural, time.Date(2026, 4, 16, 23, 0, 0, 0, time.UTC), 7); id != "proc-20260416-007" || TierOfID(id) != Procedural {
		t.Fatal(id)
	}
}

func TestParseNoteForms(t *testing.T) {
	p := ParseNote([]byte("\xef\xbb\xbf---\r\ntitle: \"A\"\r\ntags: a, b\r\nextra_key: 1\r\n---\r\nBody\r\n"))
	if p.Warning != "" || p.Note.Title != "A" || !reflect.DeepEqual(p.Note.Tags, []string{"a", "b"}) || p.Note.Body != "Body\r\n" || p.Note.Extra["extra_key"] != 1 {
		t.Fatalf("%+v", p)
	}
	p = ParseNote([]byte("---\ntitle: x\nno end\n"))
	if p.Warning == "" || p.Note.Body == "" {
		t.Fatalf("unclosed: %+v", p)
	}
	p = ParseNote([]byte("---\ntags: {a: 1}\nmetadata: [1]\n---\nx"))
	if !strings.Contains(p.Warning, "tags is not a list") || !strings.Contains(p.Warning, "metadata is not a mapping") {
		t.Fatalf("%+v", p)
	}
	p = ParseNote([]byte("---\ncreated: 2026-04-16T10:30:00Z\n---\n"))
	if p.Note.Created != "2026-04-16T10:30:00Z" {
		t.Fatalf("timestamp: %+v", p)
	}
}

// FuzzParseNote: the parser never panics, and a note it parses cleanly
// survives Render → ParseNote with every field intact.
func FuzzParseNote(f *testing.F) {
	f.Add([]byte("---\nmemory_entry_id: sem-20260416-001\ntitle: \"Flask\"\nmemory_type: semantic\ntags: [\"flask\", \"python\"]\nmetadata:\n  source: \"https://x\"\n  ok: true\ncreated: \"2026-04-16T10:30:00Z\"\nupdated: \"2026-04-16T10:30:00Z\"\n---\n\n# Body\n"))
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("---\ntitle: [\n---\nbody"))
	f.Add([]byte("no frontmatter"))
	f.Add([]byte("---\r\ntags: a, b\r\nx: {y: [1, 2]}\r\n...\r\nbody"))
	f.Add([]byte("---\ntitle: &a x\nmemory_type: *a\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := ParseNote(data)
		if p.Warning != "" || !p.HasFrontmatter || !utf8.Valid(data) {
			return
		}
		n := p.Note
		if strings.ContainsAny(n.ID+n.Type, "\n\r:#'\"[]{}&*!|>%@`,") || strings.TrimSpace(n.ID) != n.ID || strings.TrimSpace(n.Type) != n.Type {
			return // plain scalars that would need quoting; the keeper only writes valid ids and types
		}
		for k := range n.Extra {
			if k == "" {
				return
			}
		}
		out, err := n.Render()
		if err != nil {
			t.Fatal(err)
		}
		q := ParseNote(out)
		if q.Warning != "" {
			t.Fatalf("rendered note does not parse: %s\n%s", q.Warning, out)
		}
		m := q.Note
		if m.ID != n.ID || m.Title != n.Title || m.Type != n.Type || m.Created != n.Created || m.Updated != n.Updated {
			t.Fatalf("scalars changed:\n%+v\n%+v", n, m)
		}
		if !reflect.DeepEqual(m.Tags, n.Tags) && len(n.Tags)+len(m.Tags) > 0 {
			t.Fatalf("tags changed: %q → %q", n.Tags, m.Tags)
		}
		if m.Body != n.Body && !(strings.HasPrefix(n.Body, "\n") || strings.HasPrefix(n.Body, "\r")) {
			t.Fatalf("body changed: %q → %q", n.Body, m.Body)
		}
		if again, err := m.Render(); err != nil || !bytes.Equal(again, out) {
			t.Fatalf("a rendered note read and rendered again changed (%v):\n%q\n%q", err, out, again)
		}
	})
}

// FuzzOntologyLine: any line in any ontology file loads without a panic,
// and searching what loaded does not panic either.
func FuzzOntologyLine(f *testing.F) {
	f.Add([]byte(`{"op":"create","entity":{"id":"n1","properties":{"label":"A","dimensions":{"d":["x",1]},"source_files":"semantic/a.md"}}}`))
	f.Add([]byte(`{"op":"update","type":"KnowledgeNode","id":"i1","props":{"label":null,"class":3}}`))
	f.Add([]byte(`{"op":"create","type":"Relation","props":{"from_id":"a","to_id":"a"}}`))
	f.Add([]byte(`{"from":"a","to":"b"}`))
	f.Add([]byte(`{"op":"delete","id":"n1"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		dir := t.TempDir()
		for _, p := range []string{".ontology/instances/instance.001.jsonl", ".ontology/instances/_relations.001.jsonl", ".ontology/relations/_relations.001.jsonl"} {
			full := dir + "/" + p
			if err := mkdirWrite(full, append(append([]byte(`{"id":"a","props":{"label":"seed"}}`+"\n"), line...), '\n')); err != nil {
				t.Fatal(err)
			}
		}
		o, err := LoadOntology(dir)
		if err != nil {
			return
		}
		o.Search("seed", 3)
		o.Search(string(line), 2)
	})
}

// FuzzNoteTarget: a note named by any string (id, tier/file.md, a
// workspace-relative or absolute path) is read from inside the workspace
// or refused with a typed error, never INTERNAL, never a file outside it.
func FuzzNoteTarget(f *testing.F) {
	root, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	out := f.TempDir()
	files := map[string]string{"memory/semantic/a.md": "---\nmemory_entry_id: sem-20250120-001\n---\n# A\n", ".env": "SENTINEL-ENV\n"}
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(out, "s.md"), []byte("SENTINEL-OUTSIDE\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(root, "memory", "episodic")); err != nil {
		f.Fatal(err)
	}
	if err := os.Symlink("../../.env", filepath.Join(root, "memory", "semantic", "e.md")); err != nil {
		f.Fatal(err)
	}
	s, err := New(Options{Root: root})
	if err != nil {
		f.Fatal(err)
	}
	for _, t := range []string{"semantic/a.md", "memory/semantic/a.md", "sem-20250120-001", "episodic/s.md", "semantic/e.md", root + "/memory/semantic/a.md", "../.env", "semantic/a\x00.md", "procedural/" + strings.Repeat("x", 300) + ".md"} {
		f.Add(t)
	}
	f.Fuzz(func(t *testing.T, target string) {
		for _, read := range []func() (string, error){
			func() (string, error) {
				o, err := s.Read(context.Background(), ReadInput{Target: target})
				return fmt.Sprint(o), err
			},
			func() (string, error) {
				o, _, err := s.Details(context.Background(), DetailsInput{Target: target})
				return fmt.Sprint(o), err
			},
		} {
			got, err := read()
			if err != nil {
				if c := retrieve.ErrorCode(err); c == retrieve.CodeInternal || c == "" {
					t.Fatalf("%q: untyped error %v", target, err)
				}
				continue
			}
			if strings.Contains(got, "SENTINEL") {
				t.Fatalf("%q read a file it must not: %s", target, got)
			}
		}
	})
}
