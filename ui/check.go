package ui

import (
	"encoding/json"
	"net/http"
)

type checkView struct {
	Document  string
	Loose     bool
	Available bool
	Report    map[string]any
	Raw       string
}

func (h *Handler) checkForm(w http.ResponseWriter, r *http.Request) {
	h.render(w, http.StatusOK, "check", page{Title: "Check citations", Nav: "check", Data: checkView{Available: h.has("check")}})
}

func (h *Handler) check(w http.ResponseWriter, r *http.Request) {
	v := checkView{Document: r.FormValue("document"), Loose: r.FormValue("loose") != "", Available: h.has("check")}
	if v.Available {
		var out map[string]any
		err := h.call(r.Context(), "check", map[string]any{"document": v.Document, "loose": v.Loose}, &out)
		if err != nil && out == nil {
			h.fail(w, r, err)
			return
		}
		v.Report = out
		b, _ := json.MarshalIndent(out, "", "  ")
		v.Raw = string(b)
	}
	h.render(w, http.StatusOK, "check", page{Title: "Check citations", Nav: "check", Data: v})
}
