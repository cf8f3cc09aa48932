package wiki_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/wiki"
)

// Titles in any script make slugs that keep their letters; the same title
// written again (in another width or case) updates the page; titles without
// letters are refused with what is allowed; right-to-left text and invalid
// UTF-8 come back byte-exact.
func TestUnicodeTitles(t *testing.T) {
	ctx := t.Context()
	w := &wiki.Wiki{Dir: filepath.Join(t.TempDir(), "wiki")}
	t.Run("OK", func(t *testing.T) {
		for _, c := range []struct{ title, rel string }{
			{"内存泄漏", "entities/内存泄漏.md"},
			{"サービス停止", "entities/サービス停止.md"},
			{"Café Déjà", "entities/café-déjà.md"},
			{"Утечка памяти", "entities/утечка-памяти.md"},
		} {
			ref, err := w.Write(ctx, wiki.WriteInput{Category: "entity", Title: c.title, Content: "[[服务崩溃]] " + c.title})
			if err != nil {
				t.Fatal(err)
			}
			if ref.Path != c.rel || ref.Citation != "wiki:entity/"+strings.TrimSuffix(filepath.Base(c.rel), ".md") {
				t.Errorf("%s: path %s, citation %s", c.title, ref.Path, ref.Citation)
			}
			if _, err := os.Stat(filepath.Join(w.Dir, c.rel)); err != nil {
				t.Error(err)
			}
			page, err := w.Read(ctx, wiki.ReadInput{Slug: c.title})
			if err != nil || !strings.Contains(page.Content, c.title) {
				t.Errorf("read %s: %v", c.title, err)
			}
		}
		// Half-width katakana: the same page.
		ref, err := w.Write(ctx, wiki.WriteInput{Category: "entity", Title: "ｻｰﾋﾞｽ停止", Content: "updated"})
		if err != nil || ref.Path != "entities/サービス停止.md" {
			t.Fatalf("%+v %v", ref, err)
		}
		lint, err := w.Lint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := lint.MissingPages; len(got) != 0 {
			t.Errorf("missing %v", got)
		}
		if got := lint.BrokenWikilinks; len(got) == 0 {
			t.Error("[[服务崩溃]] is a broken link but lint did not say so")
		}
	})
	t.Run("Search", func(t *testing.T) {
		searchIntl(t, w)
	})
	t.Run("ErrNoLetters", func(t *testing.T) {
		for _, title := range []string{"🎉🎉", "?!…", "  "} {
			_, err := w.Write(ctx, wiki.WriteInput{Category: "topic", Title: title, Content: "x"})
			var e *retrieve.Error
			if retrieve.ErrorCode(err) != retrieve.CodeInputValidation || !errors.As(err, &e) || !strings.Contains(e.Hint, "letters of any script") {
				t.Errorf("%q: %v", title, err)
			}
		}
	})
	t.Run("ErrSlugTaken", func(t *testing.T) {
		long := strings.Repeat("长标题", 30)
		if _, err := w.Write(ctx, wiki.WriteInput{Category: "topic", Title: long + "甲", Content: "a"}); err != nil {
			t.Fatal(err)
		}
		_, err := w.Write(ctx, wiki.WriteInput{Category: "topic", Title: long + "乙", Content: "b"})
		if retrieve.ErrorCode(err) != retrieve.CodeInvalidOperation {
			t.Errorf("two titles, one slug: %v", err)
		}
	})
	t.Run("RightToLeftAndInvalidUTF8", func(t *testing.T) {
		content := "---\ntitle: mixed\n---\nשלום world مرحبا 123 \u202Bembedded\u202C and \xff\xfe bytes\n"
		ref, err := w.Write(ctx, wiki.WriteInput{Category: "topic", Title: "mixed", Content: content})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(w.Dir, ref.Path))
		if string(b) != content {
			t.Errorf("stored %q", b)
		}
		page, err := w.Read(ctx, wiki.ReadInput{Slug: "mixed"})
		if err != nil || page.Content != content || !strings.Contains(page.Warning, "not valid UTF-8") {
			t.Errorf("read %q (warning %q), %v", page.Content, page.Warning, err)
		}
		if _, err := w.Search(ctx, wiki.SearchInput{Query: "שלום"}); err != nil {
			t.Error(err)
		}
	})
}

// searchIntl: wiki search finds words inside CJK sentences, accented words
// typed without accents, full-width letters.
func searchIntl(t *testing.T, w *wiki.Wiki) {
	t.Helper()
	ctx := t.Context()
	for _, p := range []wiki.WriteInput{
		{Category: "topic", Title: "回滚手册", Content: "回滚时先检查证书，然后重启服务。"},
		{Category: "topic", Title: "Résumé de l'incident", Content: "Le serveur a redémarré."},
	} {
		if _, err := w.Write(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	for q, want := range map[string]string{"证书": "回滚手册", "检查证书": "回滚手册", "resume incident": "résumé-de-l-incident", "ＲＥＤＥＭＡＲＲＥ": "résumé-de-l-incident"} {
		hits, err := w.Search(ctx, wiki.SearchInput{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].Slug != want {
			t.Errorf("search %q: %+v, want %s first", q, hits, want)
			continue
		}
		if hits[0].Snippet == "" {
			t.Errorf("search %q: no snippet", q)
		}
	}
}
