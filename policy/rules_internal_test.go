package policy

import (
	"strings"
	"testing"

	ignore "github.com/sabhiram/go-gitignore"
)

// The literal prefilter must never change an answer of go-gitignore.
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
		lower := make([]string, len(set))
		for i, p := range set {
			lower[i] = strings.ToLower(p)
		}
		lib := ignore.CompileIgnoreLines(lower...)
		ours := matcher(set)
		for _, p := range rulePaths {
			for _, q := range []string{p, p + "/"} {
				if got, want := ours.MatchesPath(q), lib.MatchesPath(q); got != want {
					t.Errorf("patterns %q, path %q: %v, the library says %v", set, q, got, want)
				}
			}
		}
	}
	// The literal words are used for the plain patterns, not only the
	// library's fallback.
	if m := matcher(DefaultDeny); m.all != nil || len(m.lines) != len(DefaultDeny) {
		t.Fatalf("the default deny list is not prefiltered: %+v", m)
	}
	if m := matcher([]string{"[ab]c"}); m.all == nil {
		t.Fatal("a bracket pattern must go to the library")
	}
}

func FuzzRulesMatchTheLibrary(f *testing.F) {
	f.Add("*.pem\n!a.pem", "x/a.pem")
	f.Add("a/**/b", "a/c/d/b")
	f.Add("drafts/*.md", "drafts/x.md")
	f.Fuzz(func(t *testing.T, patterns, p string) {
		lines := strings.Split(strings.ToLower(patterns), "\n")
		lib := ignore.CompileIgnoreLines(lines...)
		ours := matcher(lines)
		if got, want := ours.MatchesPath(p), lib.MatchesPath(p); got != want {
			t.Fatalf("patterns %q, path %q: %v, the library says %v", lines, p, got, want)
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
		floor := ignore.CompileIgnoreLines(DefaultDeny...)
		for i := 0; b.Loop(); i++ {
			p := paths[i%2]
			floor.MatchesPath(p)
			floor.MatchesPath(p + "/")
			floor.MatchesPath("memory/")
			floor.MatchesPath("memory/semantic/")
		}
	})
}

// A pattern is compiled only when a path holds its literal words: checking
// an ordinary file compiles none of the built-in list (each costs the
// library nine regular expressions), a denied name compiles its own.
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
