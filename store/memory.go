package store

import "context"

// MemoryNote is one agent-memory note as the memory index keeps it: the
// precomputed overview row (tier, id, title, tags) and the text to search.
type MemoryNote struct {
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
}

// MemoryFileState is the indexed state of one note file.
type MemoryFileState struct {
	Size    int64
	ModTime int64
	Hash    string
	// IndexedAt is when the row was written (Unix nanoseconds): a file whose
	// ModTime is that close to IndexedAt may have changed within the clock's
	// granularity, and is hashed to be sure.
	IndexedAt int64
}

// MemoryQuery is a full-text query of one memory folder.
type MemoryQuery struct {
	// Dir names the memory folder (its workspace-relative path).
	Dir string
	// Match is an FTS5 match expression over the columns title, tags, body.
	Match string
	// Tier, when set, keeps only notes of that tier.
	Tier string
	// Limit caps the hits (20 when 0).
	Limit int
}

// MemoryHit is one search hit, best first.
type MemoryHit struct {
	Path  string
	Tier  string
	ID    string
	Title string
	Tags  []string
	// Score is the BM25 score (higher is better), with title and tag hits
	// weighted up.
	Score float64
	// Snippet is the body text around the first hit.
	Snippet string
	Warning string
}

// MemoryIndex is the full-text index of memory folders. Each folder (Dir) is
// indexed separately.
type MemoryIndex interface {
	// MemoryStates returns the indexed state of every note of dir, by path.
	MemoryStates(ctx context.Context, dir string) (map[string]MemoryFileState, error)
	// MemoryUpsert writes notes (replacing the rows of the same paths) in
	// one transaction.
	MemoryUpsert(ctx context.Context, dir string, notes []MemoryNote) error
	// MemoryDelete removes the rows of paths.
	MemoryDelete(ctx context.Context, dir string, paths []string) error
	// MemoryReset removes every row of dir.
	MemoryReset(ctx context.Context, dir string) error
	// MemorySearch runs a full-text query.
	MemorySearch(ctx context.Context, q MemoryQuery) ([]MemoryHit, error)
}
