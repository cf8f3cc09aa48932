// Package store defines the evidence store: the ledger of every retrieval
// and the content-addressed snapshots of every cited byte. store/sqlite is
// the embedded implementation; store/storetest is the conformance suite
// that every implementation passes.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"time"
)

// ErrSnapshotGone is wrapped by the error of an Append refused because the
// snapshot the entry cites is no longer stored (Ledger.Append).
var ErrSnapshotGone = errors.New("the cited snapshot is no longer stored")

// Entry is one ledger entry: a retrieval, a verification or a quote check,
// successful or not.
type Entry struct {
	// ID is a UUIDv7: unique and sortable by time.
	ID string `json:"id"`
	// Time is when the operation started.
	Time time.Time `json:"time"`
	// Op is "get", "verify" or "quote".
	Op string `json:"op"`
	// Target and Source are as requested; Reference, Hash and SourceHash
	// are the citation's (empty on failure).
	Target     string `json:"target"`
	Source     string `json:"source"`
	Reference  string `json:"reference"`
	Hash       string `json:"hash"`
	SourceHash string `json:"source_hash"`
	// Snapshot is the hash of the snapshot that holds the bytes the
	// result was extracted from ("" when none was kept).
	Snapshot string `json:"snapshot"`
	// Status is "ok" or "error"; Code is the error code on failure.
	Status string `json:"status"`
	Code   string `json:"code"`
	// Duration is how long the operation took.
	Duration time.Duration `json:"duration_ns"`
	// Request and Result are the JSON of the request and the result
	// envelope.
	Request json.RawMessage `json:"request"`
	Result  json.RawMessage `json:"result"`
	// DataInSnapshot says that Result was recorded without its
	// retrieved.data (null in Result): the data is rebuilt from the
	// snapshot by extracting Request again (engine.Engine.RecordedResult),
	// so that an entry costs what the retrieval was, not the bytes returned.
	DataInSnapshot bool `json:"data_in_snapshot"`
}

// Statuses of an entry.
const (
	StatusOK    = "ok"
	StatusError = "error"
)

// Filter selects ledger entries. Zero fields do not filter.
type Filter struct {
	Op string
	// ExcludeOp leaves out the entries of this op (log shows retrievals
	// without verification runs by default).
	ExcludeOp string
	Target    string // exact target or reference
	Source    string
	Status    string
	Reference string
	// ReferencePrefix keeps the entries whose reference starts with it
	// (every part of a paged query: sql:pg#<hash>#rows=).
	ReferencePrefix string
	Since           time.Time
	Until           time.Time
	// BeforeID keeps only entries whose id sorts before it: the entries
	// after one already read, in the ledger's newest-first order (ids are
	// time-ordered), for keyset paging.
	BeforeID string
	// Limit caps the entries (newest first); 0 means no cap.
	Limit int
}

// Ledger records operations. Implementations are safe for concurrent use by
// many goroutines and many processes.
type Ledger interface {
	// Append records e; e.ID must be set and unique. A store may refuse
	// an entry whose Snapshot is no longer stored (a gc dropped it after
	// the caller saw it) with an error that wraps ErrSnapshotGone; the
	// entry is then not recorded.
	Append(ctx context.Context, e *Entry) error
	// Entry returns one entry, or an error with code NOT_FOUND.
	Entry(ctx context.Context, id string) (*Entry, error)
	// Entries returns the entries that match f, newest first.
	Entries(ctx context.Context, f Filter) ([]*Entry, error)
	// DeleteEntriesBefore deletes entries older than t and returns how many.
	DeleteEntriesBefore(ctx context.Context, t time.Time) (int, error)
}

// Snapshots keeps source bytes content-addressed by their sha256.
type Snapshots interface {
	// PutSnapshot stores the bytes read from r under hash
	// ("sha256:<hex>"). Storing a hash that is already there is a no-op
	// that still consumes r. The implementation checks that the bytes
	// match the hash and refuses them otherwise.
	PutSnapshot(ctx context.Context, hash string, r io.Reader) error
	// HasSnapshot reports whether hash is stored.
	HasSnapshot(ctx context.Context, hash string) (bool, error)
	// OpenSnapshot returns the bytes of hash, or an error with code NOT_FOUND.
	OpenSnapshot(ctx context.Context, hash string) (io.ReadCloser, error)
	// DeleteUnreferencedSnapshots drops snapshots that no ledger entry
	// references (as its source hash) and returns how many.
	DeleteUnreferencedSnapshots(ctx context.Context) (int, error)
}

// SnapshotStager is implemented by a store that takes a snapshot's bytes
// while the source is read, in the same pass as the caller's hash, so that
// the bytes are written once and never spooled. The SQLite store does.
type SnapshotStager interface {
	StageSnapshot(ctx context.Context) (SnapshotStage, error)
}

// SnapshotStage receives the bytes of one snapshot. Write never fails the
// caller's read: a failure is reported by Commit.
type SnapshotStage interface {
	io.Writer
	// Commit stores the bytes written under hash ("sha256:<hex>"), which
	// the caller computed over exactly those bytes in the same pass. When
	// hash is stored already, the bytes are dropped.
	Commit(ctx context.Context, hash string) error
	// Abort drops the bytes; after Commit it does nothing.
	Abort()
}

// StageSizer is implemented by a SnapshotStage that can make room at once
// for a snapshot whose size is known before its bytes come: one
// allocation instead of a growing buffer's several.
type StageSizer interface {
	Expect(size int64)
}

// SharedWriter is implemented by a SnapshotStage that can write a buffer
// without copying it (the SQLite store's, whose large files are written on
// a goroutine of their own): WriteShared takes b and calls release once it
// no longer reads it — before it returns or later, from another goroutine
// — and the caller leaves b untouched until then. A failure is reported
// by Commit, as for Write.
type SharedWriter interface {
	WriteShared(b []byte, release func())
}

// Store is the whole evidence store.
type Store interface {
	Ledger
	Snapshots
	io.Closer
}

// Pinger is implemented by a store that can say whether it can serve now
// (its database answers); a server's /readyz asks it. A store without it
// is taken as ready.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Shared is implemented by a store that several users read (the PostgreSQL
// store): what is private to one user ("Cache-Control: private" pages) is
// not kept there. A store without it is one user's (the SQLite file).
type Shared interface {
	Shared() bool
}

// IsShared reports whether s is read by several users; a nil store is not.
func IsShared(s Store) bool {
	sh, ok := s.(Shared)
	return ok && sh.Shared()
}

// OutlineCache is implemented by a store that keeps the outlines of source
// files (the symbols `retrieve outline` lists), so that the outline of an
// unchanged file is read, not parsed again, by the CLI and by every server
// on the store. The key names the file's bytes by their sha256 with the
// language and the parser's version (engine.outlineKey): nothing else
// invalidates an entry, and the same bytes always give the same outline.
// The SQLite and PostgreSQL stores do (component "outline").
type OutlineCache interface {
	// CachedOutline returns the outline stored under key; ok is false when
	// there is none.
	CachedOutline(ctx context.Context, key string) (data []byte, ok bool, err error)
	// PutOutline stores data under key. A key stored already keeps its
	// data: equal keys hold equal outlines.
	PutOutline(ctx context.Context, key string, data []byte) error
	// DeleteOutlinesBefore drops the outlines stored before t (retrieve gc,
	// with the ledger's retention) and returns how many: an outline dropped
	// is parsed again when next asked for.
	DeleteOutlinesBefore(ctx context.Context, t time.Time) (int, error)
}
