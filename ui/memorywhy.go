package ui

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/retrieve-dev/retrieve"
)

// The JSON of memory_why and memory_forget (docs/memory.md).
type (
	memEvidence struct {
		Reference   string `json:"reference"`
		RetrievalID string `json:"retrieval_id"`
		Source      string `json:"source"`
		Hash        string `json:"hash"`
		RetrievedAt string `json:"retrieved_at"`
		Via         string `json:"via"`
	}
	memMark struct {
		Status    string `json:"status"`
		At        string `json:"at"`
		By        string `json:"by"`
		Reference string `json:"reference"`
		Reason    string `json:"reason"`
		Diff      string `json:"diff"`
	}
	memWhy struct {
		Session    string `json:"session"`
		ValidFrom  string `json:"valid_from"`
		ValidTo    string `json:"valid_to"`
		RecordedAt string `json:"recorded_at"`
		RetiredAt  string `json:"retired_at"`
		State      struct {
			Status string   `json:"status"`
			Since  string   `json:"since"`
			Mark   *memMark `json:"mark"`
		} `json:"state"`
		Evidence []struct {
			Evidence     memEvidence            `json:"evidence"`
			Verification *retrieve.Verification `json:"verification"`
		} `json:"evidence"`
		History []memMark `json:"history"`
		Summary string    `json:"summary"`
	}
	memForget struct {
		Source   string `json:"source"`
		Session  string `json:"session_id"`
		DryRun   bool   `json:"dry_run"`
		Matched  int    `json:"matched"`
		Marked   int    `json:"forgotten"`
		Already  int    `json:"already_forgotten"`
		At       string `json:"at"`
		By       string `json:"by"`
		LedgerID string `json:"ledger_id"`
		Notes    []struct {
			ID      string   `json:"memory_entry_id"`
			Path    string   `json:"path"`
			Citing  []string `json:"citing"`
			Already bool     `json:"already_forgotten"`
		} `json:"notes"`
	}
)

// evidenceView is one citation of a note with its check laid out.
type evidenceView struct {
	memEvidence
	Verification *retrieve.Verification
	Unified      []diffLine
	// Forget is the dry-run page of the citation's source.
	Forget string
}

// noteView is the note page: the note, the chain behind it and its marks.
type noteView struct {
	memRead
	Why      *memWhy
	WhyErr   *retrieve.ErrorInfo
	Evidence []evidenceView
	// StaleDiff is the stored diff that made the note stale.
	StaleDiff []diffLine
}

// forgetView is the "forget this source" page: a dry run, and the result
// once confirmed.
type forgetView struct {
	Source, Session string
	Run             *memForget
	Done            *memForget
	NeedConfirm     bool
}

// sourceOf is what `forget --source` takes for a citation: the reference
// without its line span, so that every span of the file is the source.
func sourceOf(ref string) string {
	r := retrieve.ParseReference(ref)
	if r.Scheme == "file" && r.Lines != "" {
		return r.Path
	}
	return ref
}

func (h *Handler) noteView(r *http.Request, out memRead) noteView {
	v := noteView{memRead: out}
	var why memWhy
	if err := h.call(r.Context(), "memory_why", map[string]any{"target": out.Path}, &why); err != nil {
		v.WhyErr = retrieve.AsError(err).Info()
		return v
	}
	v.Why = &why
	for _, e := range why.Evidence {
		ev := evidenceView{memEvidence: e.Evidence, Verification: e.Verification,
			Forget: "/ui/memory/forget?" + url.Values{"source": {sourceOf(e.Evidence.Reference)}}.Encode()}
		if e.Verification != nil {
			ev.Unified, _ = layoutDiff(e.Verification.Diff)
		}
		v.Evidence = append(v.Evidence, ev)
	}
	if m := why.State.Mark; m != nil && why.State.Status == "stale" {
		v.StaleDiff, _ = layoutDiff(m.Diff)
	}
	return v
}

// memoryForget shows which notes forgetting a source (or a session) would
// retire: a dry run. Nothing changes without the confirmation of the form
// (memoryForgetPost).
func (h *Handler) memoryForget(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := forgetView{Source: strings.TrimSpace(q.Get("source")), Session: strings.TrimSpace(q.Get("session"))}
	if err := h.forgetRun(r, &v, true); err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, http.StatusOK, "forget", page{Title: "Forget " + v.Source + v.Session, Nav: "memory", Data: v})
}

// memoryForgetPost forgets, when the form's confirmation box is ticked;
// otherwise it shows the dry run again and asks for it.
func (h *Handler) memoryForgetPost(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		h.fail(w, r, retrieve.Errorf(retrieve.CodeInputValidation, "the form cannot be read").WithErr(err))
		return
	}
	v := forgetView{Source: strings.TrimSpace(r.PostForm.Get("source")), Session: strings.TrimSpace(r.PostForm.Get("session"))}
	confirmed := r.PostForm.Get("confirm") == "yes"
	if err := h.forgetRun(r, &v, !confirmed); err != nil {
		h.fail(w, r, err)
		return
	}
	v.NeedConfirm = !confirmed
	h.render(w, http.StatusOK, "forget", page{Title: "Forget " + v.Source + v.Session, Nav: "memory", Data: v})
}

func (h *Handler) forgetRun(r *http.Request, v *forgetView, dry bool) error {
	in := map[string]any{"dry_run": dry, "reason": "forgotten from the review UI"}
	if v.Source != "" {
		in["source"] = v.Source
	}
	if v.Session != "" {
		in["session_id"] = v.Session
	}
	var out memForget
	if err := h.call(r.Context(), "memory_forget", in, &out); err != nil {
		return err
	}
	if dry {
		v.Run = &out
	} else {
		v.Done = &out
	}
	return nil
}
