package wiki_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/wiki"
	"github.com/retrieve-dev/retrieve/workspace"
)

func FuzzParseLinks(f *testing.F) {
	f.Add("See [[memory-leak]] and [[topic/why|why]].\n```\n[[in-code]]\n```\n`[[span]]`")
	f.Add("[[a]][[b]] [[]] [[|x]] [[[nested]]]")
	f.Fuzz(func(t *testing.T, s string) {
		for _, l := range wiki.ParseLinks(s) {
			if l.Target == "" || strings.ContainsAny(l.Target, "[]\n|") {
				t.Fatalf("bad link %+v", l)
			}
		}
	})
}

func FuzzIndex(f *testing.F) {
	f.Add("memory-leak", "entity", "Leaks | crashes", "2026-05-05")
	f.Add("a", "topic", "x\\|y | z\n", "")
	f.Fuzz(func(t *testing.T, slug, cat, summary, date string) {
		slug, cat = wiki.Slug(slug), wiki.Slug(cat)
		date = wiki.Slug(date)
		if slug == "" || cat == "" || strings.Contains(summary, `\`) {
			return
		}
		in := []wiki.IndexEntry{{Slug: slug, Category: cat, Summary: summary, Date: date}}
		out := wiki.ParseIndex(wiki.FormatIndex(in))
		want := strings.Join(strings.Fields(summary), " ")
		if len(out) != 1 || out[0].Slug != slug || out[0].Category != cat {
			t.Fatalf("round trip %+v -> %+v", in, out)
		}
		if want != "" && out[0].Summary != want {
			t.Fatalf("summary %q -> %q", want, out[0].Summary)
		}
	})
}

func FuzzParseIndex(f *testing.F) {
	f.Add("| [[a]] | entity | s | 2026-01-01 |\n| [[b]] |\n| [[c]] | x \\| y | z |")
	f.Fuzz(func(t *testing.T, s string) {
		for _, e := range wiki.ParseIndex(s) {
			_ = e.Slug
		}
	})
}

func FuzzFrontmatter(f *testing.F) {
	f.Add("---\ntitle: X\n---\n\n# H\n\nBody line\n")
	f.Add("---\nno end")
	f.Add("---\r\ntitle: y\r\n---\r\ntext")
	f.Fuzz(func(t *testing.T, s string) {
		front, body, ok := wiki.SplitFrontmatter(s)
		if !ok && body != s {
			t.Fatal("body changed without frontmatter")
		}
		if ok && len(front)+len(body) > len(s) {
			t.Fatal("split longer than input")
		}
		sum := wiki.AutoSummary(s)
		if strings.HasPrefix(sum, "#") || len([]rune(sum)) > 100 {
			t.Fatalf("summary %q", sum)
		}
		_ = wiki.FrontmatterTitle(front)
	})
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{"Why System Crashes": "why-system-crashes", "  Memory--Leak!! ": "memory-leak", "Ünïcode": "ünïcode", "内存泄漏": "内存泄漏", "???": "", "🎉🎉": ""} {
		if got := wiki.Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
	if got := wiki.AutoSummary("---\ntitle: T\ntags: [a]\n---\n\n# T\n\nReal first line.\n"); got != "Real first line." {
		t.Errorf("AutoSummary = %q", got)
	}
}

func TestSymlinkPageRefused(t *testing.T) {
	dir := t.TempDir()
	w := &wiki.Wiki{Dir: filepath.Join(dir, "wiki")}
	if _, err := w.Write(t.Context(), wiki.WriteInput{Category: "topic", Title: "Real", Content: "real"}); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(dir, "secret.txt")
	os.WriteFile(secret, []byte("TOKEN=x"), 0o600)
	if err := os.Symlink(secret, filepath.Join(w.Dir, "topics", "evil.md")); err != nil {
		t.Skip(err)
	}
	if _, err := w.Read(t.Context(), wiki.ReadInput{Slug: "topic/evil"}); retrieve.ErrorCode(err) != retrieve.CodeNotFound {
		t.Errorf("symlinked page read: %v", err)
	}
	hits, _ := w.Search(t.Context(), wiki.SearchInput{Query: "token"})
	if len(hits) != 0 {
		t.Errorf("symlinked page searched: %+v", hits)
	}
}

func TestConcurrentWrites(t *testing.T) {
	w := &wiki.Wiki{Dir: filepath.Join(t.TempDir(), "wiki")}
	done := make(chan error, 20)
	for i := 0; i < 20; i++ {
		go func(i int) {
			_, err := w.Write(t.Context(), wiki.WriteInput{Category: "topic", Title: "page " + string(rune('a'+i)), Content: "x"})
			done <- err
		}(i)
	}
	for i := 0; i < 20; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(w.Dir, "index.md"))
	if n := len(wiki.ParseIndex(string(b))); n != 20 {
		t.Errorf("index has %d rows, want 20", n)
	}
}

// FuzzReadPage: any page name is read from inside the wiki or refused with
// a typed error, never INTERNAL and never a file outside the workspace.
func FuzzReadPage(f *testing.F) {
	root, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	out := f.TempDir()
	if err := os.WriteFile(filepath.Join(out, "secret.md"), []byte("SENTINEL-OUTSIDE\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	for p, c := range map[string]string{"wiki/entities/ok.md": "# OK\n", ".env": "SENTINEL-ENV\n"} {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	for link, target := range map[string]string{"wiki/topics": out, "wiki/entities/env.md": "../../.env", "wiki/entities/out.md": filepath.Join(out, "secret.md")} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(link))); err != nil {
			f.Fatal(err)
		}
	}
	ws, err := workspace.Open(root, nil)
	if err != nil {
		f.Fatal(err)
	}
	defer ws.Close()
	w := &wiki.Wiki{Dir: filepath.Join(root, "wiki"), FS: ws}
	for _, s := range []string{"ok", "entity/ok", "topic/secret", "env", "out", "../../.env", "entities/../../.env", "a\x00b", strings.Repeat("x", 300)} {
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, slug, category string) {
		p, err := w.Read(context.Background(), wiki.ReadInput{Slug: slug, Category: category})
		if err != nil {
			if c := retrieve.ErrorCode(err); c == retrieve.CodeInternal || c == "" {
				t.Fatalf("Read(%q, %q): untyped error %v", slug, category, err)
			}
			return
		}
		if strings.Contains(p.Content, "SENTINEL") {
			t.Fatalf("Read(%q, %q) read a file it must not", slug, category)
		}
	})
}
