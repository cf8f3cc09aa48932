package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/intl"
)

// VersionInfo is one version of a note's text: the hash of its file, its
// title, and its transaction time (RFC 3339): when it was written and when
// the next one replaced it ("" for the current one).
type VersionInfo struct {
	Hash    string `json:"hash" yaml:"hash"`
	Title   string `json:"title" yaml:"title"`
	From    string `json:"from" yaml:"from"`
	To      string `json:"to,omitempty" yaml:"to,omitempty"`
	Current bool   `json:"current,omitempty" yaml:"current,omitempty"`
}

// HistoryOutput lists a note's versions, oldest first, the current one
// last.
type HistoryOutput struct {
	ID       string        `json:"memory_entry_id" yaml:"memory_entry_id"`
	Path     string        `json:"path" yaml:"path"`
	Versions []VersionInfo `json:"versions" yaml:"versions"`
	// Notice says what the history cannot hold (no index: none kept).
	Notice string `json:"notice,omitempty" yaml:"notice,omitempty"`
}

// History lists the versions of a note's text the index kept (a write that
// changed the note keeps the text it replaced: the X-IPE file holds only
// the current one) and the current one: `retrieve memory history NOTE`,
// and the versions of memory_why.
func (s *Service) History(ctx context.Context, target string) (*HistoryOutput, error) {
	rel, err := s.resolve(target)
	if err != nil {
		return nil, err
	}
	data, err := s.fs.ReadFile(s.name(rel))
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodePathNotFound, "File not found: %s", s.workspacePath(rel)).WithErr(err)
	}
	p := ParseNote(data)
	fillDefaults(&p.Note, rel)
	sum := sha256.Sum256(data)
	out := &HistoryOutput{ID: p.Note.ID, Path: s.workspacePath(rel), Versions: []VersionInfo{}}
	from := p.Note.Created
	vs, ok, err := s.versions(ctx, []string{rel})
	if err != nil {
		return nil, err
	}
	if !ok {
		out.Notice = "no memory index: earlier versions are not kept"
	}
	for _, v := range vs[rel] {
		if v.ID != p.Note.ID {
			continue // another note that had this name
		}
		out.Versions = append(out.Versions, VersionInfo{Hash: v.Hash, Title: v.Title, From: nsTime(v.From), To: nsTime(v.To)})
		from = nsTime(v.To)
	}
	cur := hex.EncodeToString(sum[:])
	if n := len(out.Versions); n > 0 && out.Versions[n-1].Hash == cur {
		out.Versions = out.Versions[:n-1] // the note came back to a kept text
	}
	out.Versions = append(out.Versions, VersionInfo{Hash: cur, Title: p.Note.Title, From: from, Current: true})
	return out, nil
}

// versions reads the kept versions of rels from the index, brought up to
// date first; ok is false when the index keeps none.
func (s *Service) versions(ctx context.Context, rels []string) (map[string][]NoteVersion, bool, error) {
	vi, ok := s.index.(VersionIndex)
	if !ok || s.index == nil {
		return nil, false, nil
	}
	if _, err := s.Refresh(ctx, nil); err != nil {
		return nil, true, err
	}
	vs, err := vi.MemoryVersions(ctx, s.rel, rels)
	return vs, true, err
}

// textsAt gives the refs whose text changed since asOf the title and
// snippet of the version live then (from the kept versions), and says how
// many.
func (s *Service) textsAt(ctx context.Context, asOf time.Time, refs []*SourceRef) (string, error) {
	vi, ok := s.index.(VersionIndex)
	if !ok || s.index == nil || len(refs) == 0 {
		return "", nil
	}
	rels := make([]string, len(refs))
	for i, r := range refs {
		rels[i] = s.memRel(r.Path)
	}
	vs, err := vi.MemoryVersions(ctx, s.rel, rels)
	if err != nil {
		return "", err
	}
	at, n := asOf.UnixNano(), 0
	for i, r := range refs {
		for _, v := range vs[rels[i]] {
			if v.From <= at && at < v.To && (r.ID == "" || v.ID == r.ID) {
				r.Title = v.Title
				r.Snippet = intl.Snippet(v.Body, func(string) bool { return false }, 40)
				n++
				break
			}
		}
	}
	if n == 0 {
		return "", nil
	}
	return fmt.Sprintf("%s shown as their text was then (an earlier version the index kept; retrieve memory history NOTE lists them)", intl.Plural(n, "note")), nil
}

// nsTime is a Unix-nanosecond time in RFC 3339 ("" for 0).
func nsTime(ns int64) string {
	if ns <= 0 {
		return ""
	}
	return time.Unix(0, ns).UTC().Format(time.RFC3339)
}
