package ui

import (
	"net/http"

	"github.com/retrieve-dev/retrieve/check"
)

type checkView struct {
	Document  string
	Loose     bool
	Available bool
	Report    *check.Report
}

func (h *Handler) checkForm(w http.ResponseWriter, r *http.Request) {
	h.render(w, http.StatusOK, "check", page{Title: "Check citations", Nav: "check", Data: checkView{Available: h.has("check")}})
}

func (h *Handler) check(w http.ResponseWriter, r *http.Request) {
	v := checkView{Document: r.FormValue("document"), Loose: r.FormValue("loose") != "", Available: h.has("check")}
	if v.Available {
		var out check.Report
		if err := h.call(r.Context(), "check", map[string]any{"text": v.Document, "loose": v.Loose}, &out); err != nil && out.Document == "" {
			h.fail(w, r, err)
			return
		}
		v.Report = &out
	}
	h.render(w, http.StatusOK, "check", page{Title: "Check citations", Nav: "check", Data: v})
}
