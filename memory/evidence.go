package memory

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
)

// Auditor records what changed the memory's knowledge (a forgetting, an
// outdated mark) in the ledger: ops.NoteEvidence implements it with the
// store. It returns the ledger id.
type Auditor interface {
	Audit(ctx context.Context, op, target string, request, result any) (string, error)
}

// EdgeVerifier re-checks the evidence of the graph's edges; `memory
// verify` runs it after the notes when one is set (SetEdgeVerifier). Its
// result is reported as it is.
type EdgeVerifier func(ctx context.Context) (any, error)

// SetEdgeVerifier sets the hook that `memory verify` runs to re-check the
// graph's edges (the graph side of issue 30 provides it).
func (s *Service) SetEdgeVerifier(f EdgeVerifier) {
	s.mu.Lock()
	s.edgeVerify = f
	s.mu.Unlock()
}

// EvidenceCheck is one evidence of a note and its verification now.
type EvidenceCheck struct {
	Evidence     Evidence               `json:"evidence" yaml:"evidence"`
	Verification *retrieve.Verification `json:"verification" yaml:"verification"`
}

// WhyInput names a note.
type WhyInput struct {
	Target string `json:"target" yaml:"target"`
	// NoVerify reports the evidence as recorded, without re-checking it.
	NoVerify bool `json:"no_verify,omitempty" yaml:"no_verify,omitempty"`
}

// WhyOutput is the chain behind a note: the note, its citations, each
// with its source's verify status now, and what the store knows of it.
type WhyOutput struct {
	ID      string `json:"memory_entry_id" yaml:"memory_entry_id"`
	Path    string `json:"path" yaml:"path"`
	Title   string `json:"title" yaml:"title"`
	Created string `json:"created" yaml:"created"`
	// RecordedAt and RetiredAt are the note's transaction time: when it
	// was written, and when it was outdated or forgotten.
	RecordedAt string          `json:"recorded_at" yaml:"recorded_at"`
	RetiredAt  string          `json:"retired_at,omitempty" yaml:"retired_at,omitempty"`
	State      NoteState       `json:"state" yaml:"state"`
	Session    string          `json:"session,omitempty" yaml:"session,omitempty"`
	ValidFrom  string          `json:"valid_from,omitempty" yaml:"valid_from,omitempty"`
	ValidTo    string          `json:"valid_to,omitempty" yaml:"valid_to,omitempty"`
	Evidence   []EvidenceCheck `json:"evidence" yaml:"evidence"`
	// History is every mark of the note, oldest first.
	History []Mark `json:"history" yaml:"history"`
	// Versions are the note's texts over time, oldest first, the current
	// one last (History: the earlier ones the index kept).
	Versions []VersionInfo `json:"versions,omitempty" yaml:"versions,omitempty"`
	// Summary is one line: verified, changed and unavailable counts.
	Summary string `json:"summary" yaml:"summary"`
}

// Why answers where a note's knowledge came from: note → citations →
// sources, each re-checked now, with the stale diff and the marks stored.
func (s *Service) Why(ctx context.Context, in WhyInput) (*WhyOutput, error) {
	rel, p, err := s.loadNote(in.Target)
	if err != nil {
		return nil, err
	}
	prov, err := p.Note.Provenance()
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeParseFailed, "%s: %v", s.workspacePath(rel), err)
	}
	out := &WhyOutput{ID: p.Note.ID, Path: s.workspacePath(rel), Title: p.Note.Title, Created: p.Note.Created,
		State: NoteState{Status: StatusFresh}, Session: prov.Session, ValidFrom: prov.ValidFrom, ValidTo: prov.ValidTo,
		Evidence: []EvidenceCheck{}, History: []Mark{}}
	out.RecordedAt = p.Note.Created
	if out.ValidFrom == "" {
		out.ValidFrom = p.Note.Created
	}
	if mi, err := s.marks(); err == nil {
		ms, err := mi.MemoryMarks(ctx, s.rel, []string{rel}, time.Time{})
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			if m.NoteID == p.Note.ID {
				out.History = append(out.History, m)
			}
		}
		if st, ok := states(out.History)[rel]; ok {
			out.State = st
			if st.Retired() {
				out.RetiredAt = st.Since
			}
			// An outdated note held until the contradicting citation.
			if st.Status == StatusOutdated && out.ValidTo == "" {
				out.ValidTo = st.Since
			}
		}
	}
	h, err := s.History(ctx, in.Target)
	if err != nil {
		return nil, err
	}
	out.Versions = h.Versions
	counts := map[string]int{}
	for _, e := range prov.Evidence {
		c := EvidenceCheck{Evidence: e}
		if !in.NoVerify && s.evidence != nil {
			c.Verification = s.evidence.VerifyEvidence(ctx, e)
			counts[c.Verification.Status]++
		}
		out.Evidence = append(out.Evidence, c)
	}
	switch {
	case len(prov.Evidence) == 0:
		out.Summary = "no evidence: the note was written without citations"
	case in.NoVerify || s.evidence == nil:
		out.Summary = fmt.Sprintf("%d citations, not re-checked", len(prov.Evidence))
	default:
		out.Summary = fmt.Sprintf("%d citations: %d verified, %d changed, %d unavailable", len(prov.Evidence),
			counts[retrieve.Verified], counts[retrieve.Changed], counts[retrieve.Unavailable])
	}
	return out, nil
}

// VerifyInput asks for every note's evidence to be re-checked.
type VerifyInput struct {
	// Workers bounds the citations checked at once (8 when 0).
	Workers int `json:"workers,omitempty" yaml:"workers,omitempty"`
	// By is who runs the check, recorded with the marks.
	By string `json:"-" yaml:"-"`
	// Progress reports citations checked.
	Progress Progress `json:"-" yaml:"-"`
}

// NoteCheck is one note re-checked.
type NoteCheck struct {
	ID     string `json:"memory_entry_id" yaml:"memory_entry_id"`
	Path   string `json:"path" yaml:"path"`
	Status string `json:"status" yaml:"status"`
	// Was is the status before this check.
	Was string `json:"was" yaml:"was"`
	// Changed are the citations that changed or are gone, with their diffs.
	Changed []*retrieve.Verification `json:"changed,omitempty" yaml:"changed,omitempty"`
	// Unavailable counts citations that could not be re-checked now.
	Unavailable int `json:"unavailable,omitempty" yaml:"unavailable,omitempty"`
}

// VerifyOutput is a verify run: counts, and the notes whose status is
// stale or changed by it.
type VerifyOutput struct {
	Notes     int         `json:"notes" yaml:"notes"`
	Citations int         `json:"citations" yaml:"citations"`
	Fresh     int         `json:"fresh" yaml:"fresh"`
	Stale     int         `json:"stale" yaml:"stale"`
	NewStale  int         `json:"newly_stale" yaml:"newly_stale"`
	Unknown   int         `json:"unverifiable" yaml:"unverifiable"`
	Checks    []NoteCheck `json:"checks" yaml:"checks"`
	// Edges is the graph's edge check, when the hook is set.
	Edges any `json:"edges,omitempty" yaml:"edges,omitempty"`
}

// evKey is the identity of a citation for one verify run: notes that cite
// the same ledger entry (or the same reference at the same hash) share one
// re-check.
func evKey(e Evidence) string {
	if e.RetrievalID != "" {
		return "id:" + e.RetrievalID
	}
	return "ref:" + e.Reference + "@" + e.Hash
}

// gone reports whether an unavailable citation's source no longer exists
// (a change: the note is stale), rather than being unreachable now.
func gone(v *retrieve.Verification) bool {
	if v.Status != retrieve.Unavailable || v.Error == nil {
		return false
	}
	return v.Error.Code == retrieve.CodePathNotFound || v.Error.Code == retrieve.CodeNotFound
}

// Verify re-checks the evidence of every note that is not retired. A note
// whose evidence changed (or whose source is gone) is marked stale with the
// diffs; a stale note whose evidence is as cited again is marked fresh.
// Marks are written on changes only, so running it again adds nothing.
func (s *Service) Verify(ctx context.Context, in VerifyInput) (*VerifyOutput, error) {
	mi, err := s.marks()
	if err != nil {
		return nil, err
	}
	if s.evidence == nil {
		return nil, retrieve.Errorf(retrieve.CodeStoreUnavailable, "evidence cannot be re-checked here: no engine is open")
	}
	if _, err := s.Refresh(ctx, nil); err != nil {
		return nil, err
	}
	rows, err := mi.MemoryEvidence(ctx, s.rel, "", "", "")
	if err != nil {
		return nil, err
	}
	st, err := s.noteStates(ctx, nil, time.Time{})
	if err != nil {
		return nil, err
	}
	type note struct {
		id   string
		keys []string
	}
	notes := map[string]*note{}
	var order []string
	unique := map[string]Evidence{}
	for _, r := range rows {
		if r.Evidence.Reference == "" {
			continue
		}
		if cur, ok := st[r.Path]; ok && cur.Retired() && cur.Mark.NoteID == r.NoteID {
			continue
		}
		n := notes[r.Path]
		if n == nil {
			n = &note{id: r.NoteID}
			notes[r.Path] = n
			order = append(order, r.Path)
		}
		k := evKey(r.Evidence)
		n.keys = append(n.keys, k)
		unique[k] = r.Evidence
	}
	results := s.verifyAll(ctx, unique, in.Workers, in.Progress)
	out := &VerifyOutput{Notes: len(order), Citations: len(unique), Checks: []NoteCheck{}}
	now := s.now().UTC()
	var marks []Mark
	for _, p := range order {
		n := notes[p]
		c, m := s.judge(p, n.id, n.keys, results, st)
		switch {
		case c.Status == StatusStale:
			out.Stale++
		default:
			out.Fresh++
		}
		if c.Unavailable > 0 && len(c.Changed) == 0 {
			out.Unknown++
		}
		if m != nil {
			m.At, m.By = now, in.By
			if m.Kind == StatusStale {
				out.NewStale++
			}
			marks = append(marks, *m)
		}
		if c.Status == StatusStale || c.Status != c.Was || c.Unavailable > 0 {
			out.Checks = append(out.Checks, c)
		}
	}
	if err := mi.MemoryMark(ctx, s.rel, marks); err != nil {
		return nil, err
	}
	s.mu.Lock()
	ev := s.edgeVerify
	s.mu.Unlock()
	if ev != nil {
		edges, err := ev(ctx)
		if err != nil {
			return nil, err
		}
		out.Edges = edges
	}
	return out, nil
}

// judge is one note's check from the verifications of its citations, and
// the mark to make when its status changed (nil otherwise).
func (s *Service) judge(p, id string, keys []string, results map[string]*retrieve.Verification, st map[string]NoteState) (NoteCheck, *Mark) {
	c := NoteCheck{ID: id, Path: s.workspacePath(p), Status: StatusFresh, Was: StatusFresh}
	if cur, ok := st[p]; ok && cur.Mark.NoteID == id {
		c.Was = cur.Status
	}
	var diffs []string
	for _, k := range keys {
		v := results[k]
		switch {
		case v.Status == retrieve.Changed || gone(v):
			c.Changed = append(c.Changed, v)
			diffs = append(diffs, changeText(v))
		case v.Status == retrieve.Unavailable:
			c.Unavailable++
		}
	}
	if len(c.Changed) > 0 {
		c.Status = StatusStale
	}
	if c.Status == c.Was {
		return c, nil
	}
	m := &Mark{Path: p, NoteID: id, Kind: c.Status, Reason: "its evidence is as cited again"}
	if c.Status == StatusStale {
		refs := make([]string, len(c.Changed))
		for i, v := range c.Changed {
			refs[i] = v.Reference
		}
		m.Reference, m.Detail, m.Reason = strings.Join(refs, ", "), strings.Join(diffs, "\n"), "its evidence changed"
	}
	return c, m
}

// changeText is the stored account of one changed citation: its reference
// and diff, or why it is gone.
func changeText(v *retrieve.Verification) string {
	if v.Status == retrieve.Changed {
		d := v.Diff
		if d == "" {
			d = fmt.Sprintf("(no diff kept: the hash is now %s, was %s)\n", v.CurrentHash, v.CitedHash)
		}
		return d
	}
	return fmt.Sprintf("--- %s (cited)\n+++ %s (now)\n%s: %s\n", v.Reference, v.Reference, v.Error.Code, v.Error.Message)
}

// verifyAll re-checks each distinct citation once, with workers at a time.
func (s *Service) verifyAll(ctx context.Context, unique map[string]Evidence, workers int, progress Progress) map[string]*retrieve.Verification {
	if workers <= 0 {
		workers = 8
	}
	keys := make([]string, 0, len(unique))
	for k := range unique {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]*retrieve.Verification, len(keys))
	var mu sync.Mutex
	jobs := make(chan string)
	var wg sync.WaitGroup
	done := 0
	for range min(workers, max(1, len(keys))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				v := s.evidence.VerifyEvidence(ctx, unique[k])
				mu.Lock()
				out[k] = v
				done++
				if progress != nil {
					progress(done, len(keys))
				}
				mu.Unlock()
			}
		}()
	}
	for _, k := range keys {
		jobs <- k
	}
	close(jobs)
	wg.Wait()
	return out
}
