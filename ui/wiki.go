package ui

import (
	"net/http"
	"strings"
)

// The wiki operations' JSON, as documented in docs/wiki.md.
type (
	wikiHit struct {
		Slug     string  `json:"slug"`
		Category string  `json:"category"`
		Path     string  `json:"path"`
		Score    float64 `json:"score"`
		Snippet  string  `json:"snippet"`
		Title    string  `json:"title"`
		Citation string  `json:"citation"`
		Hash     string  `json:"hash"`
	}
	wikiHits struct {
		Hits []wikiHit `json:"hits"`
	}
	wikiLint struct {
		OrphanPages     []string            `json:"orphan_pages"`
		MissingPages    []string            `json:"missing_pages"`
		BrokenWikilinks map[string][]string `json:"broken_wikilinks"`
		IsolatedPages   []string            `json:"isolated_pages"`
	}
	wikiPage struct {
		Slug     string   `json:"slug"`
		Category string   `json:"category"`
		Path     string   `json:"path"`
		Citation string   `json:"citation"`
		Hash     string   `json:"hash"`
		Title    string   `json:"title"`
		Content  string   `json:"content"`
		Links    []string `json:"links"`
	}
)

type wikiView struct {
	Query string
	Hits  *wikiHits
	Lint  *wikiLint
}

func (h *Handler) wiki(w http.ResponseWriter, r *http.Request) {
	v := wikiView{Query: strings.TrimSpace(r.URL.Query().Get("q"))}
	if v.Query != "" {
		var out wikiHits
		if err := h.call(r.Context(), "wiki_search", map[string]any{"query": v.Query, "limit": 50}, &out); err != nil {
			h.fail(w, r, err)
			return
		}
		v.Hits = &out
	}
	var lint wikiLint
	if err := h.call(r.Context(), "wiki_lint", map[string]any{}, &lint); err != nil {
		h.fail(w, r, err)
		return
	}
	v.Lint = &lint
	h.render(w, http.StatusOK, "wiki", page{Title: "Wiki", Nav: "wiki", Data: v})
}

type wikiPageView struct {
	Page      wikiPage
	Backlinks []wikiHit
}

func (h *Handler) wikiPage(w http.ResponseWriter, r *http.Request) {
	var v wikiPageView
	if err := h.call(r.Context(), "wiki_read", map[string]any{"slug": r.URL.Query().Get("slug")}, &v.Page); err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, http.StatusOK, "wikipage", page{Title: v.Page.Title, Nav: "wiki", Data: v})
}
