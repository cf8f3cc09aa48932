package memory

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve"
)

// Note statuses. A note is fresh until `memory verify` finds that its
// evidence changed (stale; fresh again when a later verify finds the
// evidence as cited). Outdated (a citation contradicts it) and forgotten
// (its source or session was forgotten) retire it: it leaves default
// retrieval and stays for audit.
const (
	StatusFresh     = "fresh"
	StatusStale     = "stale"
	StatusOutdated  = "outdated"
	StatusForgotten = "forgotten"
)

// Stale options: what default retrieval does with stale notes.
const (
	StaleRank    = "rank"    // stale notes after fresh ones (the default)
	StaleInclude = "include" // ranked as fresh ones
	StaleExclude = "exclude" // left out
	StaleOnly    = "only"    // only stale notes
)

// Mark is one event of a note's life that the files do not hold: a
// verify that found it stale (with the diff) or fresh again, an outdated
// mark, a forgetting. Marks are kept in the store, never deleted, and are
// not touched by a reindex: they are the note's transaction time.
type Mark struct {
	Path   string    `json:"path" yaml:"path"`
	NoteID string    `json:"memory_entry_id" yaml:"memory_entry_id"`
	Kind   string    `json:"status" yaml:"status"`
	At     time.Time `json:"at" yaml:"at"`
	// By is who made the mark (a user, or the MCP client).
	By string `json:"by,omitempty" yaml:"by,omitempty"`
	// Reference is the citation involved: the evidence that changed, the
	// contradicting citation, the forgotten source or session.
	Reference string `json:"reference,omitempty" yaml:"reference,omitempty"`
	Reason    string `json:"reason,omitempty" yaml:"reason,omitempty"`
	// Detail is the diff that made the note stale.
	Detail string `json:"diff,omitempty" yaml:"diff,omitempty"`
}

// IndexEvidence is one evidence row of the index: which note cites what.
type IndexEvidence struct {
	Path     string
	NoteID   string
	Session  string
	Evidence Evidence
}

// MarkIndex is the part of the memory index that keeps evidence and marks.
// Both stores implement it next to Index.
type MarkIndex interface {
	// MemoryMark appends marks.
	MemoryMark(ctx context.Context, dir string, marks []Mark) error
	// MemoryMarks returns the marks made at or before asOf (all when
	// zero), of the given paths (every path when nil), oldest first.
	MemoryMarks(ctx context.Context, dir string, paths []string, asOf time.Time) ([]Mark, error)
	// MemoryEvidence returns the evidence rows of the notes that cite
	// source (a SourceKey), retrieval id or session; all rows when all
	// three are "".
	MemoryEvidence(ctx context.Context, dir, source, retrievalID, session string) ([]IndexEvidence, error)
}

// SourceKey is what `forget --source` matches a citation by: its scheme
// and path, without revision, line span or fragment, so that every span
// cited of one file is the same source.
func SourceKey(ref string) string {
	ref = strings.TrimSpace(ref)
	if i := strings.IndexByte(ref, '#'); i >= 0 && !strings.HasPrefix(ref, "http") {
		ref = ref[:i]
	}
	r := retrieve.ParseReference(ref)
	p := r.Path
	if r.Scheme == "file" {
		p = pathClean(p)
	}
	return r.Scheme + ":" + p
}

// NoteState is a note's status as of a time, from its marks.
type NoteState struct {
	Status string `json:"status" yaml:"status"`
	// Since is when the status began (empty for a note never marked).
	Since string `json:"since,omitempty" yaml:"since,omitempty"`
	// Mark is the mark that set the status.
	Mark *Mark `json:"mark,omitempty" yaml:"mark,omitempty"`
}

// Retired reports whether the note left default retrieval.
func (s NoteState) Retired() bool { return s.Status == StatusOutdated || s.Status == StatusForgotten }

// states folds marks (oldest first) into each note's state. A mark
// applies to the note it names: a note id that differs (a new note that
// took the file name of a removed one) is another note.
func states(marks []Mark) map[string]NoteState {
	out := map[string]NoteState{}
	ids := map[string]string{}
	for i := range marks {
		m := &marks[i]
		if id, ok := ids[m.Path]; ok && id != m.NoteID {
			delete(out, m.Path)
		}
		ids[m.Path] = m.NoteID
		cur := out[m.Path]
		if cur.Retired() && m.Kind != StatusForgotten {
			continue // retired stays retired; forgotten wins over outdated
		}
		out[m.Path] = NoteState{Status: m.Kind, Since: m.At.UTC().Format(time.RFC3339), Mark: m}
	}
	return out
}

// marks returns the mark index, or why there is none.
func (s *Service) marks() (MarkIndex, error) {
	mi, ok := s.index.(MarkIndex)
	if !ok || s.index == nil {
		return nil, retrieve.Errorf(retrieve.CodeStoreUnavailable, "the memory index is unavailable: evidence, stale and forgotten marks live in it").
			WithHint("check the store (retrieve store status), then retry")
	}
	return mi, nil
}

// marksChunk is how many paths one MemoryMarks query names.
const marksChunk = 500

// noteStates returns the states of paths (every note when nil) as of asOf
// (now when zero).
func (s *Service) noteStates(ctx context.Context, paths []string, asOf time.Time) (map[string]NoteState, error) {
	mi, err := s.marks()
	if err != nil {
		return nil, err
	}
	if paths != nil && len(paths) == 0 {
		return map[string]NoteState{}, nil
	}
	var ms []Mark
	if paths == nil {
		if ms, err = mi.MemoryMarks(ctx, s.rel, nil, asOf); err != nil {
			return nil, err
		}
	}
	// A few hundred paths a query: a forget of 100,000 notes asks for all
	// of theirs, more than a statement takes parameters.
	for i := 0; i < len(paths); i += marksChunk {
		part, err := mi.MemoryMarks(ctx, s.rel, paths[i:min(i+marksChunk, len(paths))], asOf)
		if err != nil {
			return nil, err
		}
		ms = append(ms, part...)
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].At.Before(ms[j].At) })
	return states(ms), nil
}
