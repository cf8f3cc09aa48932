package testws

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Hostile is a workspace as a hostile repository could ship it: links out
// of the root (files and folders, under memory/ and wiki/ too), links to
// denied files, a hard link to a secret, secret files in upper case, and a
// .retrieveignore that tries to re-allow what the built-in deny list
// refuses. Every secret's content is a sentinel that must never appear in
// an output; Outside is a folder next to the workspace that nothing may
// write to.
type Hostile struct {
	*Workspace
	// Outside is a folder outside the workspace holding secret.md.
	Outside string
	// Secrets are the sentinel contents of every file that must not be read.
	Secrets []string
	before  map[string]string
}

// Hostile names, relative to the workspace root.
const (
	HostileOutsideLink    = "docs/outside.txt"             // -> Outside/secret.md
	HostileEnvLink        = "docs/env.txt"                 // -> ../.env
	HostileDirLink        = "docs/out"                     // -> Outside
	HostileHardLink       = "docs/hard.txt"                // hard link of .env
	HostileMemoryLink     = "memory/semantic/evil.md"      // -> Outside/secret.md
	HostileMemoryEnvLink  = "memory/semantic/dotenv.md"    // -> ../../.env
	HostileMemoryDirLink  = "memory/episodic"              // -> Outside
	HostileMemoryNote     = "memory/procedural/release.md" // a benign note
	HostileWikiDirLink    = "wiki/topics"                  // -> Outside
	HostileWikiEntityLink = "wiki/entities/leak.md"        // -> Outside/secret.md
)

// NewHostile builds a hostile workspace.
func NewHostile(t testing.TB) *Hostile {
	t.Helper()
	w := New(t)
	out, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := &Hostile{Workspace: w, Outside: out}
	secret := func(p, content string) {
		h.Secrets = append(h.Secrets, content)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	secret(filepath.Join(out, "secret.md"), "SENTINEL-OUTSIDE-7f3a")
	secret(filepath.Join(w.Root, ".env"), "SENTINEL-DOTENV-19c2")
	secret(filepath.Join(w.Root, ".ENV.production"), "SENTINEL-UPPER-ENV-44d1")
	secret(filepath.Join(w.Root, "keys", "ID_RSA"), "SENTINEL-ID-RSA-8e0b")
	secret(filepath.Join(w.Root, "SERVER.KEY"), "SENTINEL-SERVER-KEY-2a9f")
	secret(filepath.Join(w.Root, ".ssh", "config"), "SENTINEL-SSH-5b7c")
	w.Write(".retrieveignore", "# tries to re-allow the built-in deny list\n!.env\n!.env*\n!.ssh/\n!*.key\n!id_rsa*\n")
	w.Write("notes.txt", "alpha\nbeta\n")
	w.Write(HostileMemoryNote, "---\nmemory_entry_id: proc-20250120-001\ntitle: \"Release\"\nmemory_type: procedural\n---\n\n# Release\n\nTag it.\n")
	w.Write("wiki/entities/ok.md", "# OK\n\nA page.\n")
	link := func(target, name string) {
		p := filepath.Join(w.Root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	link(filepath.Join(out, "secret.md"), HostileOutsideLink)
	link("../.env", HostileEnvLink)
	link(out, HostileDirLink)
	link(filepath.Join(out, "secret.md"), HostileMemoryLink)
	link("../../.env", HostileMemoryEnvLink)
	link(out, HostileMemoryDirLink)
	link(out, HostileWikiDirLink)
	link(filepath.Join(out, "secret.md"), HostileWikiEntityLink)
	if err := os.Link(filepath.Join(w.Root, ".env"), filepath.Join(w.Root, filepath.FromSlash(HostileHardLink))); err != nil {
		t.Fatal(err)
	}
	h.before = snapshot(t, out)
	return h
}

func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[p] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// AssertNoLeak fails when an output holds a secret's content.
func (h *Hostile) AssertNoLeak(t testing.TB, outputs ...string) {
	t.Helper()
	for _, o := range outputs {
		for _, s := range h.Secrets {
			if strings.Contains(o, s) {
				t.Errorf("secret %s leaked in output:\n%.2000s", s, o)
			}
		}
	}
}

// AssertOutsideUntouched fails when a file outside the workspace was
// created, removed or changed.
func (h *Hostile) AssertOutsideUntouched(t testing.TB) {
	t.Helper()
	now := snapshot(t, h.Outside)
	var diff []string
	for p, c := range now {
		if b, ok := h.before[p]; !ok || b != c {
			diff = append(diff, p)
		}
	}
	for p := range h.before {
		if _, ok := now[p]; !ok {
			diff = append(diff, p+" (removed)")
		}
	}
	sort.Strings(diff)
	if len(diff) > 0 {
		t.Errorf("files outside the workspace were written: %v", diff)
	}
}
