// Package wiki is the workspace wiki of mini-context-graph (seed 003): one
// Markdown page per entity, summary or topic under wiki/, an index table
// (wiki/index.md), an append-only log (wiki/log.md) and [[wikilinks]]. The
// files are the source of truth; an Index in the store ranks search.
package wiki

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/frontmatter"
	"github.com/retrieve-dev/retrieve/intl"
	"github.com/retrieve-dev/retrieve/workspace"
)

// Categories and their folders.
var (
	Categories = []string{"entity", "summary", "topic"}
	folders    = map[string]string{"entity": "entities", "summary": "summaries", "topic": "topics"}
)

// Wiki is the wiki folder of a workspace.
type Wiki struct {
	// Dir is the wiki folder (<root>/wiki).
	Dir string
	// Index ranks search; nil searches the files directly.
	Index Index
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// FS is the workspace the wiki folder is in: pages are read and written
	// through it (links inside the root only, the deny list on the final
	// path). When nil or when Dir is outside it, Dir itself is the root.
	FS *workspace.FS

	mu  sync.Mutex
	own *workspace.FS // Dir opened as the root, when FS does not hold it
}

// Page is a page as the index keeps it.
type Page struct {
	Category string `json:"category"`
	Slug     string `json:"slug"`
	Title    string `json:"title"`
	Summary  string `json:"summary"`
	Body     string `json:"-"`
	Hash     string `json:"hash"`
	Size     int64  `json:"-"`
	ModTime  int64  `json:"-"`
}

// Index is the wiki index in the store: a mirror of the page files that
// ranks search. Implementations order every list deterministically.
type Index interface {
	// PutWikiPage inserts or replaces a page.
	PutWikiPage(ctx context.Context, p *Page) error
	// DeleteWikiPage drops a page.
	DeleteWikiPage(ctx context.Context, category, slug string) error
	// WikiPages lists the indexed pages (without bodies) by category, slug.
	WikiPages(ctx context.Context) ([]*Page, error)
	// SearchWiki returns the pages (with bodies) that match any token,
	// best first by full-text rank, at most limit.
	SearchWiki(ctx context.Context, tokens []string, limit int) ([]*Page, error)
}

// Slug is the page's slug in any script (intl.Slug): lowercase, NFKC, runs
// of characters other than letters and digits as "-", trimmed; an ASCII
// title gets upstream's slug. It is capped at MaxSlugBytes so that the file
// name fits every file system.
func Slug(title string) string { return intl.Slug(title, MaxSlugBytes) }

// checkSlugTaken refuses to overwrite a page whose title is another title
// that only shares the slug (two long titles cut to the same MaxSlugBytes):
// a write replaces a page only when the titles are the same apart from case,
// width, normalization form, spacing and punctuation.
func (w *Wiki) checkSlugTaken(rel, title string) error {
	data, err := w.readFile(rel)
	if err != nil {
		return nil
	}
	front, _, ok := SplitFrontmatter(string(data))
	if !ok {
		return nil
	}
	old := FrontmatterTitle(front)
	if old == "" || intl.Slug(old, 0) == intl.Slug(title, 0) {
		return nil
	}
	return retrieve.Errorf(retrieve.CodeInvalidOperation, "the slug of %q is taken by the page %s titled %q", title, rel, old).
		WithHint("titles longer than %d bytes that share their start get the same slug: shorten or reword the title", MaxSlugBytes)
}

// MaxSlugBytes caps a slug (a file name is at most 255 bytes).
const MaxSlugBytes = 200

// Citation is the reference of a page: wiki:<category>/<slug>.
func Citation(category, slug string) string { return "wiki:" + category + "/" + slug }

// RelPath is the page's path relative to the wiki folder.
func RelPath(category, slug string) string { return folders[category] + "/" + slug + ".md" }

// CheckCategory accepts entity, summary, topic and their folder names.
func CheckCategory(c string) (string, error) {
	c = strings.ToLower(strings.TrimSpace(c))
	for k, f := range folders {
		if c == k || c == f {
			return k, nil
		}
	}
	return "", retrieve.Errorf(retrieve.CodeInputValidation, "unknown wiki category %q", c).
		WithHint("use entity, summary or topic")
}

func (w *Wiki) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

func hashOf(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

// WriteInput is a page to write.
type WriteInput struct {
	Category string `json:"category"`
	Title    string `json:"title"`
	Content  string `json:"content"`
	// Summary is the index line; taken from the first text line after the
	// frontmatter and headings when empty.
	Summary        string   `json:"summary,omitempty"`
	SourceDocument string   `json:"source_document,omitempty"`
	Tags           []string `json:"tags,omitempty"`
	// Type is the entity type (entity pages).
	Type string `json:"type,omitempty"`
}

// PageRef names a page and cites it.
type PageRef struct {
	Slug     string `json:"slug"`
	Category string `json:"category"`
	Path     string `json:"path"`
	Citation string `json:"citation"`
	Hash     string `json:"hash"`
}

// MaxPageBytes caps a page.
const MaxPageBytes = 4 << 20

// Write writes (or overwrites) a page, updates index.md, appends to log.md
// and indexes the page in the store.
func (w *Wiki) Write(ctx context.Context, in WriteInput) (*PageRef, error) {
	cat, err := CheckCategory(in.Category)
	if err != nil {
		return nil, err
	}
	slug := Slug(in.Title)
	if slug == "" {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "the title %q has no letters or digits for a slug", in.Title).
			WithHint("give the page a title with %s", intl.SlugAllowed)
	}
	if len(in.Content) > MaxPageBytes {
		return nil, retrieve.Errorf(retrieve.CodeTooLarge, "the page is larger than %d bytes", MaxPageBytes)
	}
	content := in.Content
	if _, _, ok := SplitFrontmatter(content); !ok {
		front, err := renderFrontmatter(cat, in)
		if err != nil {
			return nil, err
		}
		content = front + content
	}
	if !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	summary := in.Summary
	if summary == "" {
		summary = AutoSummary(content)
	}
	if err := w.ensureDirs(); err != nil {
		return nil, err
	}
	unlock, err := w.lock()
	if err != nil {
		return nil, w.ioErr("lock the wiki", err)
	}
	defer unlock()
	rel := RelPath(cat, slug)
	if err := w.checkSlugTaken(rel, in.Title); err != nil {
		return nil, err
	}
	if err := w.writeAtomic(rel, []byte(content)); err != nil {
		return nil, w.ioErr("write the page", err)
	}
	entries, err := w.loadIndex()
	if err != nil {
		return nil, err
	}
	date := w.now().UTC().Format("2006-01-02")
	found := false
	for i := range entries {
		if entries[i].Slug == slug && entries[i].Category == cat {
			entries[i].Summary, entries[i].Date, found = summary, date, true
		}
	}
	if !found {
		entries = append(entries, IndexEntry{Slug: slug, Category: cat, Summary: summary, Date: date})
	}
	if err := w.saveIndex(entries); err != nil {
		return nil, err
	}
	if err := w.appendLog("write", in.Title, date); err != nil {
		return nil, err
	}
	ref := &PageRef{Slug: slug, Category: cat, Path: rel, Citation: Citation(cat, slug), Hash: hashOf([]byte(content))}
	if w.Index != nil {
		p := &Page{Category: cat, Slug: slug, Title: in.Title, Summary: summary, Body: content, Hash: ref.Hash, Size: int64(len(content))}
		if fi, err := w.stat(rel); err == nil {
			p.ModTime = fi.ModTime().UnixNano()
		}
		if err := w.Index.PutWikiPage(ctx, p); err != nil {
			return nil, err
		}
	}
	return ref, nil
}

// renderFrontmatter is the block a page written without one gets, in the
// format of mini-context-graph's pages: title, type (entity pages),
// source_document, tags as a flow list, plain where YAML reads the text
// back as itself (internal/frontmatter writes it).
func renderFrontmatter(cat string, in WriteInput) (string, error) {
	b := frontmatter.New()
	tags := in.Tags
	if tags == nil {
		tags = []string{}
	}
	fields := [][2]any{{"title", in.Title}}
	if cat == "entity" {
		t := in.Type
		if t == "" {
			t = "concept"
		}
		fields = append(fields, [2]any{"type", t})
	}
	if in.SourceDocument != "" {
		fields = append(fields, [2]any{"source_document", in.SourceDocument})
	}
	fields = append(fields, [2]any{"tags", tags})
	prev := ""
	for _, f := range fields {
		key := f[0].(string)
		if err := b.Set(key, f[1], frontmatter.Plain, prev); err != nil {
			return "", retrieve.Errorf(retrieve.CodeInputValidation, "the page's %s cannot be written as front matter: %v", key, err).
				WithHint("give it as UTF-8 text")
		}
		prev = key
	}
	out, err := b.Bytes()
	if err != nil {
		return "", retrieve.Errorf(retrieve.CodeInputValidation, "the page's front matter cannot be written: %v", err)
	}
	return string(out) + "\n", nil
}

// SplitFrontmatter splits a leading "---" YAML block from the body
// (internal/frontmatter, the one reader memory and extract use too).
func SplitFrontmatter(content string) (front, body string, ok bool) {
	return frontmatter.SplitString(content)
}

// FrontmatterTitle returns the title: field of a frontmatter block.
func FrontmatterTitle(front string) string { return frontmatter.Title(front) }

// AutoSummary is the first non-empty, non-heading line of the body (after
// any frontmatter), cut to 100 characters.
func AutoSummary(content string) string {
	_, body, _ := SplitFrontmatter(content)
	for _, line := range strings.Split(body, "\n") {
		s := strings.TrimSpace(line)
		if s != "" && !strings.HasPrefix(s, "#") {
			r := []rune(s)
			if len(r) > 100 {
				r = r[:100]
			}
			return string(r)
		}
	}
	return ""
}

// IndexEntry is one row of index.md.
type IndexEntry struct {
	Slug     string `json:"slug"`
	Category string `json:"category"`
	Summary  string `json:"summary"`
	Date     string `json:"date"`
}

const indexHeader = "# Wiki Index\n\n_Managed by retrieve wiki. Do not edit the table by hand._\n\n| Page | Category | Summary | Date |\n|------|----------|---------|------|\n"

// ParseIndex parses index.md rows "| [[slug]] | category | summary | date |";
// "\|" in a cell is a literal bar.
func ParseIndex(text string) []IndexEntry {
	var out []IndexEntry
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if !strings.HasPrefix(line, "| [[") {
			continue
		}
		cells := splitRow(line)
		if len(cells) < 3 {
			continue
		}
		e := IndexEntry{Slug: strings.TrimSuffix(strings.TrimPrefix(cells[0], "[["), "]]"), Category: cells[1], Summary: cells[2]}
		if len(cells) > 3 {
			e.Date = cells[3]
		}
		out = append(out, e)
	}
	return out
}

func splitRow(line string) []string {
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	cells = append(cells, strings.TrimSpace(cur.String()))
	// Drop the empty cells outside the leading and trailing bars; keep
	// empty cells inside (an empty summary stays in its column).
	if len(cells) > 0 && cells[0] == "" {
		cells = cells[1:]
	}
	if len(cells) > 0 && cells[len(cells)-1] == "" {
		cells = cells[:len(cells)-1]
	}
	return cells
}

func escapeCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// FormatIndex writes index.md for entries.
func FormatIndex(entries []IndexEntry) string {
	var b strings.Builder
	b.WriteString(indexHeader)
	for _, e := range entries {
		fmt.Fprintf(&b, "| [[%s]] | %s | %s | %s |\n", e.Slug, e.Category, escapeCell(e.Summary), e.Date)
	}
	return b.String()
}

func (w *Wiki) loadIndex() ([]IndexEntry, error) {
	b, err := w.readFile("index.md")
	if notExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, w.ioErr("read index.md", err)
	}
	return ParseIndex(string(b)), nil
}

func (w *Wiki) saveIndex(entries []IndexEntry) error {
	if err := w.writeAtomic("index.md", []byte(FormatIndex(entries))); err != nil {
		return w.ioErr("write index.md", err)
	}
	return nil
}

func (w *Wiki) appendLog(op, detail, date string) error {
	f, err := w.openFile("log.md", os.O_APPEND|os.O_CREATE|os.O_WRONLY)
	if err != nil {
		return w.ioErr("append to log.md", err)
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "\n## [%s] %s | %s\n", date, op, strings.Join(strings.Fields(detail), " ")); err != nil {
		return w.ioErr("append to log.md", err)
	}
	return nil
}

func (w *Wiki) ensureDirs() error {
	for _, c := range Categories {
		if err := w.mkdirAll(folders[c]); err != nil {
			return w.ioErr("create the wiki folders", err)
		}
	}
	return nil
}

func (w *Wiki) ioErr(what string, err error) error {
	if workspace.Refused(err) {
		return retrieve.AsError(err)
	}
	code := retrieve.CodeInternal
	if errors.Is(err, fs.ErrPermission) {
		code = retrieve.CodePermissionDenied
	}
	return retrieve.Errorf(code, "cannot %s in %s", what, w.Dir).WithHint("check that the wiki folder is writable").WithErr(err)
}

// fileInfo is a page file found on disk.
type fileInfo struct {
	category, slug, rel string
}

// files lists the page files, by category then slug.
func (w *Wiki) files() ([]fileInfo, error) {
	var out []fileInfo
	for _, c := range Categories {
		ents, err := w.readDir(folders[c])
		if notExist(err) {
			continue
		}
		if err != nil {
			return nil, w.ioErr("list the wiki", err)
		}
		for _, e := range ents {
			n := e.Name()
			if !e.Type().IsRegular() || !strings.HasSuffix(n, ".md") || strings.HasPrefix(n, ".") {
				continue
			}
			slug := strings.TrimSuffix(n, ".md")
			out = append(out, fileInfo{c, slug, folders[c] + "/" + n})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].category != out[j].category {
			return out[i].category < out[j].category
		}
		return out[i].slug < out[j].slug
	})
	return out, nil
}
