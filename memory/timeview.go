package memory

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/intl"
)

// timeView is how a read sees the notes: what it does with stale notes
// and the time it answers as of.
type timeView struct {
	stale string
	// asOf is zero for now.
	asOf time.Time
	// future: the asked time was after now (answered as of now).
	future string
}

// timeView validates a read's stale option and as-of time. An as-of in the
// future answers as of now (said in the assumptions); one before any note
// answers with no notes (what the store knew then).
func (s *Service) timeView(stale, asOf string) (timeView, error) {
	tv := timeView{stale: strings.TrimSpace(stale)}
	if tv.stale == "" {
		tv.stale = StaleRank
	}
	if err := validate("stale", tv.stale, StaleRank, StaleInclude, StaleExclude, StaleOnly); err != nil {
		return tv, err
	}
	if a := strings.TrimSpace(asOf); a != "" {
		t, err := ParseTime(a)
		if err != nil {
			return tv, retrieve.Errorf(retrieve.CodeInputValidation, "as_of %q is not a date or an RFC 3339 time", a).
				WithHint("e.g. 2026-03-01 (midnight UTC) or 2026-03-01T12:00:00Z")
		}
		if now := s.now(); t.After(now) {
			tv.future = t.UTC().Format(time.RFC3339)
		} else {
			tv.asOf = t.UTC()
		}
	}
	return tv, nil
}

func (tv timeView) asOfNs() int64 {
	if tv.asOf.IsZero() {
		return 0
	}
	return tv.asOf.UnixNano()
}

// fetch is how many hits to ask the index for: more than the limit when
// stale notes may be ranked down or filtered out.
func (tv timeView) fetch(limit int) int {
	if tv.stale == StaleInclude {
		return limit
	}
	return min(max(limit*3, 60), 1000)
}

// applyTimeView marks, ranks down or filters the stale notes among refs
// (ordered by relevance), drops what an as-of time or a retirement hides
// (the ontology's refs did not go through the index query), and says what
// it did.
func (s *Service) applyTimeView(ctx context.Context, tv timeView, refs []*SourceRef) ([]*SourceRef, []string, error) {
	var assumptions []string
	if tv.future != "" {
		assumptions = append(assumptions, fmt.Sprintf("as_of %s is in the future: answered as the store knows now", tv.future))
	}
	if !tv.asOf.IsZero() {
		assumptions = append(assumptions, fmt.Sprintf("Answered as the store knew at %s: notes recorded later are left out and stale, outdated and forgotten marks made later are ignored; a note whose text changed since shows the text it had then when the index kept it, else its text now",
			tv.asOf.Format(time.RFC3339)))
	}
	if _, err := s.marks(); err != nil {
		if tv.stale != StaleRank || !tv.asOf.IsZero() {
			return nil, nil, err
		}
		return refs, append(assumptions, "The memory index is unavailable: stale, outdated and forgotten marks were not applied"), nil
	}
	rels := make([]string, 0, len(refs))
	for _, r := range refs {
		rels = append(rels, s.memRel(r.Path))
	}
	st, err := s.noteStates(ctx, rels, tv.asOf)
	if err != nil {
		return nil, nil, err
	}
	var fresh, stale, kept []*SourceRef
	hidden := 0
	for _, r := range refs {
		rel := s.memRel(r.Path)
		cur, ok := st[rel]
		id := r.ID
		if ok && !containsText(r.Via) {
			id = s.readID(rel) // an ontology ref: the note's id from its file
		}
		if ok && cur.Mark.NoteID != id {
			ok = false // the marks were of another note under that name
		}
		if !containsText(r.Via) && !s.knownAt(rel, tv.asOf) {
			continue
		}
		switch {
		case ok && cur.Retired():
			hidden++
			continue
		case ok && cur.Status == StatusStale:
			r.Status, r.StaleSince = StatusStale, cur.Since
			stale = append(stale, r)
		default:
			fresh = append(fresh, r)
		}
		kept = append(kept, r)
	}
	if hidden > 0 {
		assumptions = append(assumptions, fmt.Sprintf("%d outdated or forgotten notes left out", hidden))
	}
	if len(stale) == 0 {
		if tv.stale == StaleOnly {
			return []*SourceRef{}, append(assumptions, "stale: only — no matching note is stale"), nil
		}
		return fresh, assumptions, nil
	}
	names := make([]string, 0, len(stale))
	for _, r := range stale {
		names = append(names, r.Path)
	}
	list := strings.Join(names, ", ")
	switch tv.stale {
	case StaleInclude:
		return kept, append(assumptions, fmt.Sprintf("stale: include — %s ranked as fresh ones (their evidence changed since they were written): %s", intl.Plural(len(stale), "stale note"), list)), nil
	case StaleExclude:
		return fresh, append(assumptions, fmt.Sprintf("%d stale notes left out (their evidence changed since they were written; retrieve memory why NOTE shows the diff): %s", len(stale), list)), nil
	case StaleOnly:
		return stale, append(assumptions, fmt.Sprintf("stale: only — %d notes whose evidence changed", len(stale))), nil
	}
	return append(fresh, stale...), append(assumptions, fmt.Sprintf("%s ranked after the fresh ones (their evidence changed since they were written; retrieve memory why NOTE shows the diff): %s", intl.Plural(len(stale), "stale note"), list)), nil
}

// memRel is the memory-relative path of a workspace-relative note path.
func (s *Service) memRel(wp string) string {
	if s.rel == "." {
		return wp
	}
	return strings.TrimPrefix(wp, s.rel+"/")
}

func containsText(via []string) bool { return contains(via, "text") }

// knownAt reports whether the note was recorded at or before asOf (always
// when asOf is zero): for notes the index query did not filter.
func (s *Service) knownAt(rel string, asOf time.Time) bool {
	if asOf.IsZero() {
		return true
	}
	p, err := s.load(rel)
	if err != nil {
		return false
	}
	t, err := ParseTime(p.Note.Created)
	return err == nil && !t.After(asOf)
}
