package wiki

import (
	"context"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/intl"
	"github.com/retrieve-dev/retrieve/workspace"
)

// ReadInput names a page: a slug, optionally with its category
// ("topic/why-crash" or Category set), or a title.
type ReadInput struct {
	Slug     string `json:"slug"`
	Category string `json:"category,omitempty"`
}

// PageOutput is a page with its citation.
type PageOutput struct {
	PageRef
	Title   string   `json:"title"`
	Content string   `json:"content"`
	Links   []string `json:"links"`
	// Warning says the page is not valid UTF-8: JSON shows the invalid
	// bytes as U+FFFD, the file and its hash keep them.
	Warning string `json:"warning,omitempty"`
}

// resolve finds the (category, slug) of a name: "category/slug",
// "folder/slug" or a bare slug (or title) that must be unambiguous.
func (w *Wiki) resolve(name, category string) (string, string, error) {
	if c, s, ok := strings.Cut(name, "/"); ok && category == "" {
		if cat, err := CheckCategory(c); err == nil {
			category, name = cat, s
		}
	}
	slug := Slug(strings.TrimSuffix(name, ".md"))
	if slug == "" {
		return "", "", retrieve.Errorf(retrieve.CodeInputValidation, "bad page name %q", name).WithHint("name a page by its slug, e.g. memory-leak or topic/why-crash")
	}
	cats := Categories
	if category != "" {
		cat, err := CheckCategory(category)
		if err != nil {
			return "", "", err
		}
		cats = []string{cat}
	}
	var found []string
	for _, c := range cats {
		fi, err := w.lstat(RelPath(c, slug))
		if workspace.Refused(err) {
			return "", "", retrieve.AsError(err)
		}
		if err == nil && fi.Mode().IsRegular() {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 1:
		return found[0], slug, nil
	case 0:
		return "", "", retrieve.Errorf(retrieve.CodeNotFound, "no wiki page %q", name).WithHint("search with `retrieve wiki search`")
	}
	e := retrieve.Errorf(retrieve.CodeInputValidation, "%q names pages in several categories", name).WithHint("name it with its category, e.g. %s/%s", found[0], slug)
	for _, c := range found {
		e.Alternatives = append(e.Alternatives, c+"/"+slug)
	}
	return "", "", e
}

// Read returns a page.
func (w *Wiki) Read(ctx context.Context, in ReadInput) (*PageOutput, error) {
	cat, slug, err := w.resolve(in.Slug, in.Category)
	if err != nil {
		return nil, err
	}
	b, err := w.readFile(RelPath(cat, slug))
	if err != nil {
		return nil, w.ioErr("read the page", err)
	}
	content := string(b)
	front, _, _ := SplitFrontmatter(content)
	title := FrontmatterTitle(front)
	if title == "" {
		title = slug
	}
	links := []string{}
	for _, l := range ParseLinks(content) {
		links = append(links, l.Target)
	}
	out := &PageOutput{PageRef: PageRef{Slug: slug, Category: cat, Path: RelPath(cat, slug), Citation: Citation(cat, slug), Hash: hashOf(b)},
		Title: title, Content: content, Links: links}
	if !utf8.Valid(b) {
		out.Warning = "the page is not valid UTF-8: JSON shows the invalid bytes as U+FFFD; the file and its hash keep them"
	}
	return out, nil
}

// Link is one [[target|label]] of a page.
type Link struct {
	Target string `json:"target"`
	Label  string `json:"label,omitempty"`
}

var linkRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[\[([^\[\]\n]+)\]\]`) })

// ParseLinks returns the wikilinks of a page in order: [[target]] and
// [[target|label]]; links inside code spans and fences are ignored.
func ParseLinks(content string) []Link {
	var out []Link
	inFence := false
	for _, line := range strings.Split(content, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		line = stripCodeSpans(line)
		for _, m := range linkRe().FindAllStringSubmatch(line, -1) {
			target, label, _ := strings.Cut(m[1], "|")
			target = strings.TrimSpace(target)
			if target == "" {
				continue
			}
			out = append(out, Link{Target: target, Label: strings.TrimSpace(label)})
		}
	}
	return out
}

func stripCodeSpans(line string) string {
	var b strings.Builder
	in := false
	for _, r := range line {
		if r == '`' {
			in = !in
			continue
		}
		if !in {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// linkKey resolves a link target to the slugs it may name: "category/slug"
// or "folder/slug" name one category; a bare name any.
func linkKey(target string) (category, slug string) {
	if c, s, ok := strings.Cut(target, "/"); ok {
		if cat, err := CheckCategory(c); err == nil {
			return cat, Slug(s)
		}
	}
	return "", Slug(target)
}

// LintOutput is lint_wiki of upstream.
type LintOutput struct {
	OrphanPages     []string            `json:"orphan_pages"`
	MissingPages    []string            `json:"missing_pages"`
	BrokenWikilinks map[string][]string `json:"broken_wikilinks"`
	IsolatedPages   []string            `json:"isolated_pages"`
}

// Lint checks the wiki: pages not in index.md (orphans), index rows with no
// file (missing), links to no page (broken) and pages with no links
// (isolated). Pages are named by slug, or category/slug when the slug is
// in several categories.
func (w *Wiki) Lint(ctx context.Context) (*LintOutput, error) {
	files, err := w.files()
	if err != nil {
		return nil, err
	}
	entries, err := w.loadIndex()
	if err != nil {
		return nil, err
	}
	count := map[string]int{}
	have := map[string]bool{}
	for _, f := range files {
		count[f.slug]++
		have[f.category+"/"+f.slug] = true
	}
	name := func(cat, slug string) string {
		if count[slug] > 1 {
			return cat + "/" + slug
		}
		return slug
	}
	indexed := map[string]bool{}
	out := &LintOutput{OrphanPages: []string{}, MissingPages: []string{}, BrokenWikilinks: map[string][]string{}, IsolatedPages: []string{}}
	for _, e := range entries {
		cat, err := CheckCategory(e.Category)
		if err != nil {
			cat = e.Category
		}
		indexed[cat+"/"+e.Slug] = true
		if !have[cat+"/"+e.Slug] {
			out.MissingPages = append(out.MissingPages, e.Slug)
		}
	}
	for _, f := range files {
		if !indexed[f.category+"/"+f.slug] {
			out.OrphanPages = append(out.OrphanPages, name(f.category, f.slug))
		}
		b, err := w.readFile(f.rel)
		if err != nil {
			return nil, w.ioErr("read "+f.rel, err)
		}
		links := ParseLinks(string(b))
		if len(links) == 0 {
			out.IsolatedPages = append(out.IsolatedPages, name(f.category, f.slug))
		}
		var broken []string
		for _, l := range links {
			cat, slug := linkKey(l.Target)
			ok := false
			if cat != "" {
				ok = have[cat+"/"+slug]
			} else {
				ok = count[slug] > 0
			}
			if !ok {
				broken = append(broken, l.Target)
			}
		}
		if len(broken) > 0 {
			out.BrokenWikilinks[name(f.category, f.slug)] = broken
		}
	}
	sort.Strings(out.MissingPages)
	return out, nil
}

// SearchInput is a wiki search.
type SearchInput struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

// Hit is one search result, as upstream plus the citation.
type Hit struct {
	Slug     string  `json:"slug"`
	Category string  `json:"category"`
	Path     string  `json:"path"`
	Score    float64 `json:"score"`
	Snippet  string  `json:"snippet"`
	Title    string  `json:"title"`
	Citation string  `json:"citation"`
	Hash     string  `json:"hash"`
}

// Search ranks pages for a query. Score is in 0..1: the share of the
// query's keywords (stemmed, stop words removed) the page holds, weighted
// twice in the title, plus a full-text rank tiebreak folded into the last
// digits. Ties break by category, slug.
func (w *Wiki) Search(ctx context.Context, in SearchInput) ([]Hit, error) {
	if in.Limit <= 0 {
		in.Limit = 10
	}
	tokens := keywords(in.Query)
	if len(tokens) == 0 {
		return []Hit{}, nil
	}
	// The index gets the words as typed: it stems them with its own stemmer
	// (FTS5 porter, PostgreSQL english), which the light Stem used for the
	// score would not match ("staging" is "stag" here, "stage" there).
	pages, err := w.candidates(ctx, words(in.Query), hasCJK(tokens))
	if err == nil && len(pages) == 0 && w.Index != nil {
		// The store's own tokenizer missed (PostgreSQL's english
		// configuration keeps accents: "resume" is not "résumé"): every
		// page is a candidate, scored with the analyzer below.
		pages, err = w.candidates(ctx, nil, true)
	}
	if err != nil {
		return nil, err
	}
	var hits []Hit
	for rank, p := range pages {
		_, text, _ := SplitFrontmatter(p.Body)
		have := map[string]bool{}
		for _, t := range keywords(text) {
			have[t] = true
		}
		inTitle := map[string]bool{}
		for _, t := range keywords(p.Title + " " + p.Slug) {
			inTitle[t] = true
		}
		var got float64
		for _, t := range tokens {
			switch {
			case inTitle[t]:
				got += 1
			case have[t]:
				got += 0.75
			}
		}
		if got == 0 {
			continue
		}
		score := got / float64(len(tokens))
		score = math.Round(score*1000)/1000 - float64(rank)*1e-6
		hits = append(hits, Hit{Slug: p.Slug, Category: p.Category, Path: RelPath(p.Category, p.Slug), Score: math.Round(score*1e6) / 1e6,
			Snippet: snippet(text, tokens), Title: p.Title, Citation: Citation(p.Category, p.Slug), Hash: p.Hash})
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		if hits[i].Category != hits[j].Category {
			return hits[i].Category < hits[j].Category
		}
		return hits[i].Slug < hits[j].Slug
	})
	if len(hits) > in.Limit {
		hits = hits[:in.Limit]
	}
	if hits == nil {
		hits = []Hit{}
	}
	return hits, nil
}

// candidates syncs the index with the files and asks it for the pages that
// match; with no index, or for a query with CJK words (which the store's
// full-text index cannot find inside sentences), every page is a candidate.
func (w *Wiki) candidates(ctx context.Context, tokens []string, all bool) ([]*Page, error) {
	files, err := w.files()
	if err != nil {
		return nil, err
	}
	if w.Index == nil || all {
		var out []*Page
		for _, f := range files {
			p, err := w.load(f)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
		return out, nil
	}
	if err := w.sync(ctx, files); err != nil {
		return nil, err
	}
	return w.Index.SearchWiki(ctx, tokens, 200)
}

func (w *Wiki) load(f fileInfo) (*Page, error) {
	b, err := w.readFile(f.rel)
	if err != nil {
		return nil, w.ioErr("read "+f.rel, err)
	}
	fi, err := w.stat(f.rel)
	if err != nil {
		return nil, w.ioErr("read "+f.rel, err)
	}
	content := string(b)
	front, _, _ := SplitFrontmatter(content)
	title := FrontmatterTitle(front)
	if title == "" {
		title = f.slug
	}
	return &Page{Category: f.category, Slug: f.slug, Title: title, Summary: AutoSummary(content), Body: content, Hash: hashOf(b),
		Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, nil
}

// Reindex brings the store index in line with the page files.
func (w *Wiki) Reindex(ctx context.Context) error { return w.sync(ctx, nil) }

// sync brings the store index in line with the page files: pages edited by
// hand (size or mtime changed) are re-indexed, deleted ones dropped.
func (w *Wiki) sync(ctx context.Context, files []fileInfo) error {
	if w.Index == nil {
		return nil
	}
	if files == nil {
		var err error
		if files, err = w.files(); err != nil {
			return err
		}
	}
	indexed, err := w.Index.WikiPages(ctx)
	if err != nil {
		return err
	}
	byKey := map[string]*Page{}
	for _, p := range indexed {
		byKey[p.Category+"/"+p.Slug] = p
	}
	for _, f := range files {
		k := f.category + "/" + f.slug
		old := byKey[k]
		delete(byKey, k)
		if old != nil {
			if fi, err := w.stat(f.rel); err == nil && fi.Size() == old.Size && fi.ModTime().UnixNano() == old.ModTime {
				continue
			}
		}
		p, err := w.load(f)
		if err != nil {
			return err
		}
		if err := w.Index.PutWikiPage(ctx, p); err != nil {
			return err
		}
	}
	for _, p := range byKey {
		if err := w.Index.DeleteWikiPage(ctx, p.Category, p.Slug); err != nil {
			return err
		}
	}
	return nil
}

// stopWords are the stop words, and the same words as intl.Terms stems
// them ("does" → "doe"); built on first use (stemming them at start-up cost
// every command a few hundred KB of allocations).
var stopWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the is are was were be been being have has had do does did will would could
		should may might shall can to of in on at by for with from and or but not it its this that these those i you he she
		we they what which who how why when where`) {
		m[w] = true
		m[intl.Stem(w)] = true
	}
	return m
})

// keywords are the terms of s in any script (intl.Terms: NFKC, case and
// Latin diacritics folded, Snowball stems, CJK bigrams) without stop words
// and one-letter words, each once.
func keywords(s string) []string { return terms(intl.Terms(s)) }

// words are the same terms not stemmed (intl.Keywords): what the store's
// full-text index, which stems with its own stemmer, is asked for.
func words(s string) []string { return terms(intl.Keywords(s)) }

func terms(ts []string) []string {
	var out []string
	seen := map[string]bool{}
	stop := stopWords()
	for _, t := range ts {
		if stop[t] || utf8.RuneCountInString(t) < 2 && !intl.IsCJK(firstRune(t)) {
			continue
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// hasCJK reports whether a query has CJK words, which the store's
// full-text index (FTS5 unicode61, PostgreSQL english) cannot find inside
// a sentence.
func hasCJK(ts []string) bool {
	for _, t := range ts {
		if intl.IsCJK(firstRune(t)) {
			return true
		}
	}
	return false
}

// snippet is the text around the first of the query's terms (intl.Snippet,
// 20 words or CJK characters).
func snippet(text string, tokens []string) string {
	want := map[string]bool{}
	for _, t := range tokens {
		want[t] = true
	}
	return intl.Snippet(text, func(term string) bool { return want[term] }, 20)
}

// ImportDir merges an upstream wiki folder into this one: page files are
// copied (a page already here with the same content is kept), index rows
// merged by (category, slug), log entries appended. It returns the number
// of pages copied or already present.
func (w *Wiki) ImportDir(ctx context.Context, dir string) (int, error) {
	src := &Wiki{Dir: dir}
	files, err := src.files()
	if err != nil || len(files) == 0 {
		return 0, err
	}
	if err := w.ensureDirs(); err != nil {
		return 0, err
	}
	unlock, err := w.lock()
	if err != nil {
		return 0, w.ioErr("lock the wiki", err)
	}
	defer unlock()
	for _, f := range files {
		b, err := src.readFile(f.rel)
		if err != nil {
			return 0, src.ioErr("read "+f.rel, err)
		}
		if len(b) > MaxPageBytes {
			return 0, retrieve.Errorf(retrieve.CodeTooLarge, "%s is larger than %d bytes", filepath.Join(dir, f.rel), MaxPageBytes)
		}
		if err := w.writeAtomic(RelPath(f.category, f.slug), b); err != nil {
			return 0, w.ioErr("write "+f.rel, err)
		}
	}
	theirs, err := src.loadIndex()
	if err != nil {
		return 0, err
	}
	ours, err := w.loadIndex()
	if err != nil {
		return 0, err
	}
	pos := map[string]int{}
	for i, e := range ours {
		pos[e.Category+"/"+e.Slug] = i
	}
	for _, e := range theirs {
		if i, ok := pos[e.Category+"/"+e.Slug]; ok {
			ours[i] = e
			continue
		}
		pos[e.Category+"/"+e.Slug] = len(ours)
		ours = append(ours, e)
	}
	if err := w.saveIndex(ours); err != nil {
		return 0, err
	}
	if lb, err := src.readFile("log.md"); err == nil {
		cur, _ := w.readFile("log.md")
		if !strings.Contains(string(cur), string(lb)) {
			if err := w.writeAtomic("log.md", append(cur, lb...)); err != nil {
				return 0, w.ioErr("write log.md", err)
			}
		}
	}
	return len(files), w.sync(ctx, nil)
}

// ExportDir copies the wiki (pages, index.md, log.md) to dir.
func (w *Wiki) ExportDir(dir string) (int, error) {
	files, err := w.files()
	if err != nil {
		return 0, err
	}
	dst := &Wiki{Dir: dir}
	if err := dst.ensureDirs(); err != nil {
		return 0, err
	}
	for _, f := range files {
		b, err := w.readFile(f.rel)
		if err != nil {
			return 0, w.ioErr("read "+f.rel, err)
		}
		if err := dst.writeAtomic(RelPath(f.category, f.slug), b); err != nil {
			return 0, dst.ioErr("write "+f.rel, err)
		}
	}
	for _, name := range []string{"index.md", "log.md"} {
		b, err := w.readFile(name)
		if err != nil {
			continue
		}
		if err := dst.writeAtomic(name, b); err != nil {
			return 0, dst.ioErr("write "+name, err)
		}
	}
	return len(files), nil
}
