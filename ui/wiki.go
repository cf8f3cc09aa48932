package ui

import (
	"net/http"
	"strings"

	"github.com/retrieve-dev/retrieve/wiki"
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
	Pages []wiki.PageSummary
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
	if h.opts.Wiki != nil {
		pages, err := h.opts.Wiki.Pages(r.Context())
		if err != nil {
			h.fail(w, r, err)
			return
		}
		v.Pages = pages
	}
	h.render(w, http.StatusOK, "wiki", page{Title: "Wiki", Nav: "wiki", Data: v})
}

type wikiPageView struct {
	Page      wikiPage
	Backlinks []string
}

func (h *Handler) wikiPage(w http.ResponseWriter, r *http.Request) {
	var v wikiPageView
	if err := h.call(r.Context(), "wiki_read", map[string]any{"slug": r.URL.Query().Get("slug")}, &v.Page); err != nil {
		h.fail(w, r, err)
		return
	}
	if h.opts.Wiki != nil {
		pages, err := h.opts.Wiki.Pages(r.Context())
		if err != nil {
			h.fail(w, r, err)
			return
		}
		for _, p := range pages {
			if p.Category == v.Page.Category && p.Slug == v.Page.Slug {
				v.Backlinks = p.Backlinks
			}
		}
	}
	h.render(w, http.StatusOK, "wikipage", page{Title: v.Page.Title, Nav: "wiki", Data: v})
}
