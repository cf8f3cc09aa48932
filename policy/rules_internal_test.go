package policy

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// reference is go-git's own matcher over every pattern, with no prefilter.
func reference(set []string, rel string, isDir bool) bool {
	var ps []gitignore.Pattern
	for _, l := range set {
		l = strings.ToLower(strings.TrimRight(l, "\r"))
		if strings.TrimSpace(l) == "" || l[0] == '#' {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(l, nil))
	}
	return gitignore.NewMatcher(ps).Match(strings.Split(rel, "/"), isDir)
}

// The literal prefilter must never change an answer of the matcher.
var ruleSets = [][]string{
	DefaultDeny,
	{"private/", "*.secret", "!keep.secret", "drafts/*.md", "# comment", "", "  spaced  ", "\\#hash", "!!bang"},
	{"**/logs", "logs/**", "a/**/b", "/root-only", "x?y", "*", "!*.md", "[ab]c", "d+e", "café"},
	{"*.md", "!semantic/*.md", "semantic/secret*", "!semantic/secret-ok.md"},
	{"build/", "!build/keep/", "*.log", "!important.log", "doc/*.txt", "**/tmp/**"},
}

var rulePaths = []string{
	".env", ".env.local", "a/.env", "a/b/.env.x", "env", "x.pem", "x.pem/y", "a/id_rsa.pub", ".ssh", ".ssh/", ".ssh/config",
	".retrieve/retrieve.db", ".retrieve/retrieve.db-wal", "retrieve.db", ".git", ".git/", ".git/hooks/x", "credentials.json",
	"memory/semantic/note-000001.md", "memory/semantic/secrets.md", "memory/semantic/secret-ok.md", "semantic/secret-ok.md",
	"semantic/secretx.md", "semantic/a.md", "b.md", "private", "private/", "private/x", "a.secret", "keep.secret", "drafts/x.md",
	"drafts/sub/x.md", "#hash", "!bang", "spaced", "logs", "x/logs", "logs/y", "a/b", "a/x/y/b", "root-only", "z/root-only",
	"x?y", "xzy", "ac", "bc", "dde", "d+e", "café", "build", "build/", "build/keep/", "build/keep/x", "x.log", "important.log",
	"doc/a.txt", "doc/b/a.txt", "tmp/x", "a/tmp/b", "",
}

func TestRulesMatchTheLibrary(t *testing.T) {
	for _, set := range ruleSets {
		ours := matcher(set)
		for _, p := range rulePaths {
			p = strings.Trim(strings.ToLower(p), "/")
			if p == "" {
				continue
			}
			for _, isDir := range []bool{false, true} {
				if got, want := ours.match(p, strings.Split(p, "/"), isDir), reference(set, p, isDir); got != want {
					t.Errorf("patterns %q, path %q (dir %v): %v, the library says %v", set, p, isDir, got, want)
				}
			}
		}
	}
	// The literal words are used for the plain patterns.
	m := matcher(DefaultDeny)
	for _, l := range m.lines {
		if l.words == nil {
			t.Fatalf("a pattern of the default deny list is not prefiltered: %+v", m)
		}
	}
	if m := matcher([]string{"[ab]c"}); m.lines[0].words != nil {
		t.Fatal("a bracket pattern must run on every path")
	}
}

func FuzzRulesMatchTheLibrary(f *testing.F) {
	f.Add("*.pem\n!a.pem", "x/a.pem")
	f.Add("a/**/b", "a/c/d/b")
	f.Add("drafts/*.md", "drafts/x.md")
	f.Fuzz(func(t *testing.T, patterns, p string) {
		lines := strings.Split(strings.ToLower(patterns), "\n")
		p = strings.Trim(strings.ToLower(p), "/")
		if p == "" {
			return
		}
		ours := matcher(lines)
		for _, isDir := range []bool{false, true} {
			if got, want := ours.match(p, strings.Split(p, "/"), isDir), reference(lines, p, isDir); got != want {
				t.Fatalf("patterns %q, path %q (dir %v): %v, the library says %v", lines, p, isDir, got, want)
			}
		}
	})
}

func BenchmarkDenied(b *testing.B) {
	paths := []string{"memory/semantic/note-004242.md", "memory/procedural/deploy-the-staging-cache.md"}
	b.Run("prefiltered", func(b *testing.B) {
		d := CompileDeny(nil, nil)
		for i := 0; b.Loop(); i++ {
			d.Denied(paths[i%2])
		}
	})
	b.Run("library", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			p := paths[i%2]
			reference(DefaultDeny, p, false)
			reference(DefaultDeny, p, true)
			reference(DefaultDeny, "memory", true)
			reference(DefaultDeny, "memory/semantic", true)
		}
	})
}

// A pattern is parsed only when a path holds its literal words: checking an
// ordinary file parses none of the built-in list, a denied name its own.
func TestPatternsCompiledOnFirstUse(t *testing.T) {
	before := compiledPatterns.Load()
	d := CompileDeny(nil, nil)
	if d.Denied("docs/small.txt") || d.Denied("src/main.go") {
		t.Fatal("an ordinary file is denied")
	}
	if n := compiledPatterns.Load() - before; n != 0 {
		t.Fatalf("%d patterns compiled for ordinary files, want none", n)
	}
	if !d.Denied("config/.env") || !d.Denied("keys/server.pem") {
		t.Fatal(".env or a .pem is not denied")
	}
	if n := compiledPatterns.Load() - before; n == 0 || n > 4 {
		t.Fatalf("%d patterns compiled for .env and .pem, want the few that hold their words", n)
	}
}
