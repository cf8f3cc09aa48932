package ui

import (
	"net/http"
)

type sessionsView struct {
	Recorded   bool // sessions come from recorded host sessions
	Activities []activity
}

func (h *Handler) sessions(w http.ResponseWriter, r *http.Request) {
	var out logOutput
	if err := h.call(r.Context(), "log", map[string]any{"limit": 500}, &out); err != nil {
		h.fail(w, r, err)
		return
	}
	v := sessionsView{Activities: groupActivity(out.Entries)}
	h.render(w, http.StatusOK, "sessions", page{Title: "Sessions", Nav: "sessions", Data: v})
}

func (h *Handler) session(w http.ResponseWriter, r *http.Request) {
	h.sessions(w, r)
}
