package memory

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve/intl"
)

// IndexNote is one agent-memory note as the memory index keeps it: the
// precomputed overview row (tier, id, title, tags) and the text to search.
type IndexNote struct {
	// Path is the note's path relative to the memory folder (semantic/x.md).
	Path  string
	Tier  string
	ID    string
	Title string
	Tags  []string
	// Body is the searchable text (the note without its frontmatter).
	Body string
	// Size, ModTime (Unix nanoseconds) and Hash (sha256 hex of the file)
	// are what the freshness check compares.
	Size    int64
	ModTime int64
	Hash    string
	// Warning says what was wrong with the note's frontmatter, if anything.
	Warning string
	// Evidence and Session are the note's provenance (its retrieve:
	// frontmatter block); Recorded is when the note was first written (its
	// `created`, Unix nanoseconds; 0 when unknown): the start of its
	// transaction time.
	Evidence []Evidence
	Session  string
	Recorded int64
	// TitleTerms, TagTerms and BodyTerms are the index terms of the title,
	// the tags and the body (intl.IndexText: normalized, stemmed, CJK in
	// bigrams, separated by spaces): what both stores put in their
	// full-text index. Analyze fills them.
	TitleTerms, TagTerms, BodyTerms string
	analyzed                        bool
}

// Analyze fills the index terms of the note, once. The memory service
// calls it in its reader goroutines; a store calls it again before writing
// (a no-op then), so that a note is always indexed the one way.
func (n *IndexNote) Analyze() {
	if n.analyzed {
		return
	}
	n.TitleTerms = intl.IndexText(n.Title)
	n.TagTerms = intl.IndexText(strings.Join(n.Tags, " "))
	n.BodyTerms = intl.IndexText(n.Body)
	n.analyzed = true
}

// FileState is the indexed state of one note file.
type FileState struct {
	Size    int64
	ModTime int64
	Hash    string
	// IndexedAt is when the row was written (Unix nanoseconds): a file whose
	// ModTime is that close to IndexedAt may have changed within the clock's
	// granularity, and is hashed to be sure.
	IndexedAt int64
}

// IndexQuery is a full-text query of one memory folder.
type IndexQuery struct {
	// Dir names the memory folder (its workspace-relative path).
	Dir string
	// Phrases are the query's words as index terms (intl.QueryWords): a
	// note matches a phrase when its terms appear next to each other in
	// the title, the tags or the body, the last one as a prefix when Prefix
	// is set.
	Phrases []IndexPhrase
	// Any matches notes that hold any phrase; otherwise all are required.
	Any bool
	// Tier, when set, keeps only notes of that tier.
	Tier string
	// Limit caps the hits (20 when 0).
	Limit int
	// AsOf (Unix nanoseconds), when set, answers as the store knew then:
	// notes recorded after it are left out, and notes are retired by the
	// marks made up to it. Retired keeps retired (outdated, forgotten)
	// notes, which are left out otherwise.
	AsOf    int64
	Retired bool
}

// IndexPhrase is one word of a memory query: index terms that must be
// adjacent, in order (the bigrams of a CJK word; a Latin word has one).
type IndexPhrase struct {
	Terms  []string
	Prefix bool
}

// Matches reports whether an index term is one the query looks for: the
// snippet is cut around the first such term.
func (q *IndexQuery) Matches(term string) bool {
	for _, p := range q.Phrases {
		for i, t := range p.Terms {
			if term == t || p.Prefix && i == len(p.Terms)-1 && strings.HasPrefix(term, t) {
				return true
			}
		}
	}
	return false
}

// SnippetTokens is how many words (or CJK characters) a hit's snippet
// holds.
const SnippetTokens = 24

// IndexHit is one search hit, best first.
type IndexHit struct {
	Path  string
	Tier  string
	ID    string
	Title string
	Tags  []string
	// Score is the BM25 score (higher is better), with title and tag hits
	// weighted up.
	Score float64
	// Snippet is the body text around the first hit (intl.Snippet with
	// IndexQuery.Matches, the same on every store).
	Snippet string
	Warning string
}

// Index is the full-text index of memory folders. Each folder (Dir) is
// indexed separately.
type Index interface {
	// MemoryStates returns the indexed state of every note of dir, by path.
	MemoryStates(ctx context.Context, dir string) (map[string]FileState, error)
	// MemoryUpsert writes notes (replacing the rows of the same paths) in
	// one transaction.
	MemoryUpsert(ctx context.Context, dir string, notes []IndexNote) error
	// MemoryDelete removes the rows of paths.
	MemoryDelete(ctx context.Context, dir string, paths []string) error
	// MemoryReset removes every row of dir.
	MemoryReset(ctx context.Context, dir string) error
	// MemorySearch runs a full-text query.
	MemorySearch(ctx context.Context, q IndexQuery) ([]IndexHit, error)
	// MemoryCounts counts the notes of dir by tier and by tag.
	MemoryCounts(ctx context.Context, dir string) (*IndexCounts, error)
}

// IndexCounts are the note counts of a memory folder as its index holds
// them: every note, by tier, and by tag (a note counts once per tag it
// lists).
type IndexCounts struct {
	Notes  int
	ByTier map[string]int
	ByTag  map[string]int
}

// SearchIndex runs a text query the way the memory service does: the
// query is analyzed (intl.QueryWords) and tried, until one finds
// something, as (1) every word, each word's terms adjacent; (2) every
// word, the last term of each a prefix ("templ" finds "templates"); (3)
// any single term, as a prefix (a CJK question shares only some of its
// bigrams with the note it is about). A one-character CJK word is always a
// prefix (证 finds 证书). base gives Dir, Tier and Limit.
func SearchIndex(ctx context.Context, idx Index, base IndexQuery, text string) ([]IndexHit, error) {
	for _, q := range IndexSearches(base, text) {
		hits, err := idx.MemorySearch(ctx, q)
		if err != nil || len(hits) > 0 {
			return hits, err
		}
	}
	return nil, nil
}

// IndexSearches returns the queries SearchIndex tries, in order.
func IndexSearches(base IndexQuery, text string) []IndexQuery {
	words := intl.QueryWords(text)
	if len(words) == 0 {
		return nil
	}
	single := func(w intl.Word) bool { return w.CJK && len(w.Terms) == 1 && utf8.RuneCountInString(w.Terms[0]) == 1 }
	var exact, prefix, anyTerm []IndexPhrase
	nTerms, latin := 0, false
	for _, w := range words {
		latin = latin || !w.CJK
		exact = append(exact, IndexPhrase{Terms: w.Terms, Prefix: single(w)})
		prefix = append(prefix, IndexPhrase{Terms: w.Terms, Prefix: !w.CJK || single(w)})
		for _, t := range w.Terms {
			anyTerm = append(anyTerm, IndexPhrase{Terms: []string{t}, Prefix: !w.CJK || single(w)})
			nTerms++
		}
	}
	with := func(ps []IndexPhrase, any bool) IndexQuery {
		q := base
		q.Phrases, q.Any = ps, any
		return q
	}
	out := []IndexQuery{with(exact, false)}
	if latin {
		out = append(out, with(prefix, false))
	}
	if nTerms > 1 {
		out = append(out, with(anyTerm, true))
	}
	return out
}

// BulkIndex is an Index that writes faster when told a bulk load is under
// way (Reindex): BeginBulk before the first MemoryUpsert, EndBulk after the
// last (also when the load failed), which leaves the index as fast to
// query as after ordinary writes.
type BulkIndex interface {
	BeginBulk(ctx context.Context) error
	EndBulk(ctx context.Context) error
}

// NoteVersion is an earlier text of a note that the index kept (issue 30):
// a write that changed the note, or its delete, keeps the text it
// replaced. From and To are its transaction time (Unix nanoseconds): when
// it was written (the note's created for its first version) and when the
// next one replaced it (the new file's mtime) or the note left the folder.
type NoteVersion struct {
	Path  string
	ID    string
	Hash  string
	Title string
	Body  string
	From  int64
	To    int64
}

// VersionIndex is an index that keeps the notes' earlier texts.
type VersionIndex interface {
	// MemoryVersions returns the kept versions of the notes at paths of
	// dir (all of dir's when paths is nil), by path, oldest first.
	MemoryVersions(ctx context.Context, dir string, paths []string) (map[string][]NoteVersion, error)
}
