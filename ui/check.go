package ui

import (
	"net/http"
)

// checkReport is the check operation's JSON, as documented in docs/sessions.md.
type checkReport struct {
	Document  string         `json:"document"`
	Citations int            `json:"citations"`
	OK        int            `json:"ok"`
	Failed    int            `json:"failed"`
	Refused   int            `json:"refused"`
	Findings  []checkFinding `json:"findings"`
}

type checkFinding struct {
	Index       int    `json:"index"`
	Line        int    `json:"line"`
	Column      int    `json:"column"`
	Form        string `json:"form"`
	Label       string `json:"label"`
	Reference   string `json:"reference"`
	Hash        string `json:"hash"`
	Quote       string `json:"quote"`
	Status      string `json:"status"`
	Rule        string `json:"rule"`
	Code        string `json:"code"`
	Reason      string `json:"reason"`
	Hint        string `json:"hint"`
	CurrentHash string `json:"current_hash"`
}

type checkView struct {
	Document  string
	Loose     bool
	Available bool
	Report    *checkReport
}

func (h *Handler) checkForm(w http.ResponseWriter, r *http.Request) {
	h.render(w, http.StatusOK, "check", page{Title: "Check citations", Nav: "check", Data: checkView{Available: h.has("check")}})
}

func (h *Handler) check(w http.ResponseWriter, r *http.Request) {
	v := checkView{Document: r.FormValue("document"), Loose: r.FormValue("loose") != "", Available: h.has("check")}
	if v.Available {
		var out checkReport
		if err := h.call(r.Context(), "check", map[string]any{"text": v.Document, "loose": v.Loose}, &out); err != nil && out.Document == "" {
			h.fail(w, r, err)
			return
		}
		v.Report = &out
	}
	h.render(w, http.StatusOK, "check", page{Title: "Check citations", Nav: "check", Data: v})
}
