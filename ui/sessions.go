package ui

import (
	"net/http"

	"github.com/retrieve-dev/retrieve"
)

// The session operations' JSON, as documented in docs/sessions.md.
type (
	sessSummary struct {
		ID          string `json:"session_id"`
		Host        string `json:"host"`
		Started     string `json:"started"`
		Updated     string `json:"updated"`
		SourceCount int    `json:"source_count"`
		FailedCalls int    `json:"failed_calls"`
		Blocked     int    `json:"blocked"`
	}
	sessRecord struct {
		Type        string              `json:"type"`
		ID          string              `json:"id"`
		Time        string              `json:"time"`
		Tool        string              `json:"tool"`
		Kind        string              `json:"kind"`
		Reference   string              `json:"reference"`
		Hash        string              `json:"hash"`
		Seen        string              `json:"seen"`
		ToolHash    string              `json:"tool_hash"`
		Notes       []string            `json:"notes"`
		Error       *retrieve.ErrorInfo `json:"error"`
		RetrievalID string              `json:"retrieval_id"`
		Decision    string              `json:"decision"`
		Status      string              `json:"status"`
		Failures    []string            `json:"failures"`
	}
	sessDetail struct {
		sessSummary
		Sources  []sessRecord `json:"sources"`
		Failures []sessRecord `json:"failures"`
		Stops    []sessRecord `json:"stops"`
		Checks   []sessRecord `json:"checks"`
		Skipped  int          `json:"skipped"`
	}
	sessCheck struct {
		Source       sessRecord             `json:"source"`
		Verification *retrieve.Verification `json:"verification"`
	}
	sessVerification struct {
		SessionID   string      `json:"session_id"`
		Verified    int         `json:"verified"`
		Changed     int         `json:"changed"`
		Unavailable int         `json:"unavailable"`
		Sources     []sessCheck `json:"sources"`
	}
)

type sessionsView struct {
	Recorded   bool // sessions come from the session operations
	Sessions   []sessSummary
	Activities []activity
}

func (h *Handler) sessions(w http.ResponseWriter, r *http.Request) {
	if h.has("session_list") {
		var out struct {
			Sessions []sessSummary `json:"sessions"`
		}
		if err := h.call(r.Context(), "session_list", map[string]any{}, &out); err != nil {
			h.fail(w, r, err)
			return
		}
		h.render(w, http.StatusOK, "sessions", page{Title: "Sessions", Nav: "sessions", Data: sessionsView{Recorded: true, Sessions: out.Sessions}})
		return
	}
	var out logOutput
	if err := h.call(r.Context(), "log", map[string]any{"limit": 500}, &out); err != nil {
		h.fail(w, r, err)
		return
	}
	v := sessionsView{Activities: groupActivity(out.Entries)}
	h.render(w, http.StatusOK, "sessions", page{Title: "Sessions", Nav: "sessions", Data: v})
}

// sourceView is a source of a session with its verification laid out.
type sourceView struct {
	sessRecord
	Verification *verification
}

type sessionView struct {
	Session  sessDetail
	Sources  []sourceView
	Verified *sessVerification
	// Export offers the session's evidence bundle (the server keeps a log).
	Export bool
}

func (h *Handler) session(w http.ResponseWriter, r *http.Request) {
	h.sessionPage(w, r, false)
}

func (h *Handler) sessionVerify(w http.ResponseWriter, r *http.Request) {
	h.sessionPage(w, r, true)
}

func (h *Handler) sessionPage(w http.ResponseWriter, r *http.Request, verify bool) {
	id := r.PathValue("id")
	v := sessionView{Export: h.opts.Log != nil}
	if err := h.call(r.Context(), "session_show", map[string]any{"session_id": id}, &v.Session); err != nil {
		h.fail(w, r, err)
		return
	}
	byID := map[string]*retrieve.Verification{}
	if verify {
		var out sessVerification
		if err := h.call(r.Context(), "session_verify", map[string]any{"session_id": id}, &out); err != nil {
			h.fail(w, r, err)
			return
		}
		v.Verified = &out
		for _, c := range out.Sources {
			byID[c.Source.ID] = c.Verification
		}
	}
	for _, s := range v.Session.Sources {
		sv := sourceView{sessRecord: s}
		if ver := byID[s.ID]; ver != nil {
			sv.Verification = &verification{Verification: *ver}
			sv.Verification.Unified, sv.Verification.Split = layoutDiff(ver.Diff)
		}
		v.Sources = append(v.Sources, sv)
	}
	h.render(w, http.StatusOK, "session", page{Title: "Session " + id, Nav: "sessions", Data: v})
}
