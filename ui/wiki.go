package ui

import (
	"net/http"
	"strings"

	"github.com/retrieve-dev/retrieve/wiki"
)

// wikiHits is the wiki_search operation's output.
type wikiHits struct {
	Hits []wiki.Hit `json:"hits"`
}

type wikiView struct {
	Query string
	Hits  *wikiHits
	Lint  *wiki.LintOutput
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
	var lint wiki.LintOutput
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
	Page      wiki.PageOutput
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
