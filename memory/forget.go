package memory

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve"
)

// forgetBatch is how many notes one forget transaction marks: a run
// stopped between two batches keeps what it marked, and running it again
// marks the rest (notes already forgotten are skipped).
const forgetBatch = 1000

// ForgetInput names what to forget: every note whose evidence cites Source
// (any span of it; a retrieval id names that ledger entry), or that was
// written in Session.
type ForgetInput struct {
	Source  string `json:"source,omitempty" yaml:"source,omitempty"`
	Session string `json:"session_id,omitempty" yaml:"session_id,omitempty"`
	// DryRun lists the notes and changes nothing.
	DryRun bool `json:"dry_run,omitempty" yaml:"dry_run,omitempty"`
	// Reason is recorded with the marks and in the ledger.
	Reason string `json:"reason,omitempty" yaml:"reason,omitempty"`
	// By is who forgets (recorded); Progress reports notes marked.
	By       string   `json:"-" yaml:"-"`
	Progress Progress `json:"-" yaml:"-"`
}

// ForgottenNote is one note a forget matched.
type ForgottenNote struct {
	ID   string `json:"memory_entry_id" yaml:"memory_entry_id"`
	Path string `json:"path" yaml:"path"`
	// Citing are the citations of the forgotten source it holds.
	Citing []string `json:"citing,omitempty" yaml:"citing,omitempty"`
	// Already is true for a note forgotten before this run.
	Already bool `json:"already_forgotten,omitempty" yaml:"already_forgotten,omitempty"`
}

// ForgetOutput is what a forget did (or, dry, would do).
type ForgetOutput struct {
	Source   string          `json:"source,omitempty" yaml:"source,omitempty"`
	Session  string          `json:"session_id,omitempty" yaml:"session_id,omitempty"`
	DryRun   bool            `json:"dry_run" yaml:"dry_run"`
	Matched  int             `json:"matched" yaml:"matched"`
	Marked   int             `json:"forgotten" yaml:"forgotten"`
	Already  int             `json:"already_forgotten" yaml:"already_forgotten"`
	Notes    []ForgottenNote `json:"notes" yaml:"notes"`
	At       string          `json:"at,omitempty" yaml:"at,omitempty"`
	By       string          `json:"by,omitempty" yaml:"by,omitempty"`
	LedgerID string          `json:"ledger_id,omitempty" yaml:"ledger_id,omitempty"`
}

// Forget tombstones every note derived from a source or a session: each
// gets a forgotten mark (who, when, why), leaves default retrieval and
// stays on disk and in the index for audit; the ledger records the
// forgetting. A dry run lists the notes. It is idempotent: notes already
// forgotten are counted, not marked again.
func (s *Service) Forget(ctx context.Context, in ForgetInput) (*ForgetOutput, error) {
	src, sess := strings.TrimSpace(in.Source), strings.TrimSpace(in.Session)
	if src == "" && sess == "" {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "name a source or a session to forget").
			WithHint("retrieve memory forget --source docs/deploy.md (or --session ID); add --dry-run to list the notes first")
	}
	mi, err := s.marks()
	if err != nil {
		return nil, err
	}
	if _, err := s.Refresh(ctx, nil); err != nil {
		return nil, err
	}
	paths, byPath, err := s.forgetMatches(ctx, mi, src, sess)
	if err != nil {
		return nil, err
	}
	st, err := s.noteStates(ctx, paths, time.Time{})
	if err != nil {
		return nil, err
	}
	now := s.now().UTC()
	out := &ForgetOutput{Source: src, Session: sess, DryRun: in.DryRun, Matched: len(paths), Notes: []ForgottenNote{}, By: in.By}
	if !in.DryRun {
		out.At = now.Format(time.RFC3339)
	}
	var todo []Mark
	for _, p := range paths {
		n := byPath[p]
		if cur, ok := st[p]; ok && cur.Status == StatusForgotten && cur.Mark.NoteID == n.ID {
			n.Already = true
			out.Already++
		} else {
			todo = append(todo, Mark{Path: p, NoteID: n.ID, Kind: StatusForgotten, At: now, By: in.By, Reference: forgetRef(src, sess), Reason: in.Reason})
		}
		w := *n
		w.Path = s.workspacePath(p)
		out.Notes = append(out.Notes, w)
	}
	if in.DryRun {
		return out, nil
	}
	markErr := s.markForgotten(ctx, mi, todo, out, in.Progress)
	// What was marked is recorded even when the run stopped half way (its
	// context canceled): the ledger says who forgot which notes and when.
	if err := s.auditForget(context.WithoutCancel(ctx), in, src, sess, out); err != nil {
		return out, err
	}
	return out, markErr
}

// auditForget records a forget that marked notes in the ledger.
func (s *Service) auditForget(ctx context.Context, in ForgetInput, src, sess string, out *ForgetOutput) error {
	a, ok := s.evidence.(Auditor)
	if !ok || out.Marked == 0 {
		return nil
	}
	ledger := *out
	if len(ledger.Notes) > 1000 {
		ledger.Notes = ledger.Notes[:1000] // the marks hold every one
	}
	id, err := a.Audit(ctx, "memory_forget", forgetRef(src, sess), in, &ledger)
	if err != nil {
		return fmt.Errorf("the notes are forgotten, but the ledger entry failed: %w", err)
	}
	out.LedgerID = id
	return nil
}

// forgetMatches finds the notes a forget names: those whose evidence cites
// src (its source key, or the retrieval id it is) and those of session
// sess, with the citations of src each holds; paths sorted.
func (s *Service) forgetMatches(ctx context.Context, mi MarkIndex, src, sess string) ([]string, map[string]*ForgottenNote, error) {
	key, rid := "", ""
	var rows []IndexEvidence
	if src != "" {
		key = SourceKey(src)
		if IsLedgerID(src) {
			rid = src
		}
		var err error
		if rows, err = mi.MemoryEvidence(ctx, s.rel, key, rid, ""); err != nil {
			return nil, nil, err
		}
	}
	if sess != "" {
		more, err := mi.MemoryEvidence(ctx, s.rel, "", "", sess)
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, more...)
	}
	byPath := map[string]*ForgottenNote{}
	var paths []string
	for _, r := range rows {
		n := byPath[r.Path]
		if n == nil {
			n = &ForgottenNote{ID: r.NoteID, Path: r.Path}
			byPath[r.Path] = n
			paths = append(paths, r.Path)
		}
		cites := src == "" || SourceKey(r.Evidence.Reference) == key || r.Evidence.RetrievalID == rid
		if r.Evidence.Reference != "" && cites && !contains(n.Citing, r.Evidence.Reference) {
			n.Citing = append(n.Citing, r.Evidence.Reference)
		}
	}
	sort.Strings(paths)
	return paths, byPath, nil
}

// markForgotten writes the forgotten marks a batch a transaction,
// counting them in out and reporting progress.
func (s *Service) markForgotten(ctx context.Context, mi MarkIndex, todo []Mark, out *ForgetOutput, progress Progress) error {
	for i := 0; i < len(todo); i += forgetBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		batch := todo[i:min(i+forgetBatch, len(todo))]
		if err := mi.MemoryMark(ctx, s.rel, batch); err != nil {
			return err
		}
		out.Marked += len(batch)
		if progress != nil {
			progress(out.Marked, len(todo))
		}
	}
	return nil
}

func forgetRef(src, sess string) string {
	switch {
	case src != "" && sess != "":
		return src + " (session " + sess + ")"
	case src != "":
		return src
	}
	return "session:" + sess
}

// IsLedgerID reports whether s has the form of a ledger id (a UUID).
func IsLedgerID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
				return false
			}
		}
	}
	return true
}

// OutdatedInput marks a note outdated by a citation that contradicts it.
type OutdatedInput struct {
	Target string `json:"target" yaml:"target"`
	// By is the contradicting citation (a reference or a retrieval id); it
	// must resolve.
	By     string `json:"by" yaml:"by"`
	Reason string `json:"reason" yaml:"reason"`
	Who    string `json:"-" yaml:"-"`
}

// OutdatedOutput is the mark made.
type OutdatedOutput struct {
	ID       string   `json:"memory_entry_id" yaml:"memory_entry_id"`
	Path     string   `json:"path" yaml:"path"`
	Mark     Mark     `json:"mark" yaml:"mark"`
	By       Evidence `json:"contradicted_by" yaml:"contradicted_by"`
	LedgerID string   `json:"ledger_id,omitempty" yaml:"ledger_id,omitempty"`
}

// Outdated marks a note outdated: a citation contradicts it. The note
// leaves default retrieval and stays for audit (why shows the mark).
func (s *Service) Outdated(ctx context.Context, in OutdatedInput) (*OutdatedOutput, error) {
	if strings.TrimSpace(in.By) == "" {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "by is required: the citation that contradicts the note").
			WithHint("e.g. retrieve memory outdated sem-20260416-001 --by docs/deploy.md:10-14 --reason \"the token moved\"")
	}
	if strings.TrimSpace(in.Reason) == "" {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "reason is required: say what the citation contradicts").
			WithHint("--reason \"the staging token is no longer needed\"")
	}
	mi, err := s.marks()
	if err != nil {
		return nil, err
	}
	rel, err := s.resolve(in.Target)
	if err != nil {
		return nil, err
	}
	id := s.readID(rel)
	if s.evidence == nil {
		return nil, retrieve.Errorf(retrieve.CodeStoreUnavailable, "the contradicting citation cannot be resolved here: no engine is open")
	}
	ev, err := s.evidence.ResolveEvidence(ctx, []string{in.By}, "")
	if err != nil {
		return nil, err
	}
	m := Mark{Path: rel, NoteID: id, Kind: StatusOutdated, At: s.now().UTC(), By: in.Who, Reference: ev[0].Reference, Reason: strings.TrimSpace(in.Reason)}
	if err := mi.MemoryMark(ctx, s.rel, []Mark{m}); err != nil {
		return nil, err
	}
	out := &OutdatedOutput{ID: id, Path: s.workspacePath(rel), Mark: m, By: ev[0]}
	if a, ok := s.evidence.(Auditor); ok {
		lid, err := a.Audit(ctx, "memory_outdated", s.workspacePath(rel), in, out)
		if err != nil {
			return out, fmt.Errorf("the note is marked outdated, but the ledger entry failed: %w", err)
		}
		out.LedgerID = lid
	}
	return out, nil
}
