package memory

import (
	"strings"
	"testing"
)

// The retrieve: block round-trips through the note file, is kept by an
// update that does not name it, and a broken one is a warning of the
// parse, never a panic.
func TestProvenanceRoundTrip(t *testing.T) {
	n := Note{ID: "sem-20260301-001", Title: "T", Type: Semantic, Body: "b\n"}
	p := Provenance{Evidence: []Evidence{{Reference: "docs/a.md:1-3", RetrievalID: "r", Hash: "sha256:ab"}}, Session: "s", ValidFrom: "2026-03-01T00:00:00Z"}
	n.SetProvenance(p)
	data, err := n.Render()
	if err != nil {
		t.Fatal(err)
	}
	parsed := ParseNote(data)
	got, err := parsed.Note.Provenance()
	if err != nil || len(got.Evidence) != 1 || got.Evidence[0] != p.Evidence[0] || got.Session != "s" || got.ValidFrom != p.ValidFrom {
		t.Fatalf("round trip: %+v %v\n%s", got, err, data)
	}
	if parsed.Warning != "" || parsed.Note.ID != n.ID {
		t.Fatalf("the upstream keys changed: %+v", parsed)
	}
	n.SetProvenance(Provenance{})
	if data, err := n.Render(); err != nil || strings.Contains(string(data), "retrieve:") {
		t.Fatal("an empty provenance is written")
	}
	bad := ParseNote([]byte("---\nmemory_entry_id: sem-1\nretrieve:\n  evidence: 3\n---\n\nbody\n"))
	if _, err := bad.Note.Provenance(); err == nil {
		t.Fatal("evidence: 3 is read as evidence")
	}
}

func TestSourceKey(t *testing.T) {
	for in, want := range map[string]string{
		"docs/a.md": "file:docs/a.md", "docs/a.md:1-3": "file:docs/a.md", "./docs/a.md:7": "file:docs/a.md",
		"git:abc123:docs/a.md:2": "git:docs/a.md", "https://example.test/x#y": "web:https://example.test/x#y",
		"memory:semantic/x.md:1-2": "memory:semantic/x.md",
	} {
		if got := SourceKey(in); got != want {
			t.Errorf("SourceKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzProvenance: any frontmatter parses without a panic, and a block that
// decodes renders back to the same block.
func FuzzProvenance(f *testing.F) {
	for _, s := range []string{
		"---\nretrieve:\n  evidence:\n    - reference: a.md:1\n      hash: sha256:00\n  session: s\n---\n\nb\n",
		"---\nretrieve: 3\n---\n", "---\nretrieve:\n  evidence: {a: b}\n---\n", "---\nretrieve:\n  valid_from: [1]\n---\n",
		"---\nretrieve: &a\n  evidence: *a\n---\n", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := ParseNote(data)
		prov, err := p.Note.Provenance()
		if err != nil {
			return
		}
		n := p.Note
		n.SetProvenance(prov)
		data, err = n.Render()
		if err != nil {
			return // a block the writer refuses (the fuzzer's keys) is not a note this package writes
		}
		back := ParseNote(data).Note
		again, err := back.Provenance()
		if err != nil || len(again.Evidence) != len(prov.Evidence) || again.Session != prov.Session {
			t.Fatalf("%+v does not round-trip: %+v %v", prov, again, err)
		}
		_ = SourceKey(string(data))
	})
}
