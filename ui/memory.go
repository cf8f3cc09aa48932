package ui

import (
	"html/template"
	"net/http"
	"net/url"
	"strings"
)

// The memory operations' JSON, as documented in docs/memory.md.
type (
	memEntry struct {
		ID      string   `json:"memory_entry_id"`
		Title   string   `json:"title"`
		Type    string   `json:"memory_type"`
		Tags    []string `json:"tags"`
		Path    string   `json:"path"`
		Created string   `json:"created"`
		Updated string   `json:"updated"`
		Warning string   `json:"warning"`
	}
	memList struct {
		Entries    []memEntry `json:"entries"`
		Total      int        `json:"total"`
		NextCursor string     `json:"next_cursor"`
	}
	memSource struct {
		Path       string  `json:"path"`
		Title      string  `json:"title"`
		Relevance  float64 `json:"relevance"`
		Summary    string  `json:"summary"`
		Reference  string  `json:"reference"`
		MemoryType string  `json:"memory_type"`
		Status     string  `json:"status"`
		StaleSince string  `json:"stale_since"`
	}
	memOverview struct {
		Success bool `json:"success"`
		Result  struct {
			OverviewContent string      `json:"overview_content"`
			SourceMap       []memSource `json:"source_map"`
			Assumptions     []string    `json:"assumptions"`
		} `json:"result"`
	}
	memRead struct {
		ID      string         `json:"memory_entry_id"`
		Path    string         `json:"path"`
		Note    map[string]any `json:"note"`
		Warning string         `json:"warning"`
	}
)

// Tiers of memory notes, in the order the page offers them.
var tiers = []string{"knowledge", "episodic", "procedural", "semantic", "working"}

type memoryView struct {
	Tier, Tags, Query, Cursor string
	Tiers                     []string
	List                      *memList
	Overview                  *memOverview
	Next                      template.URL
}

func (h *Handler) memory(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := memoryView{Tier: q.Get("tier"), Tags: q.Get("tags"), Query: strings.TrimSpace(q.Get("q")), Cursor: q.Get("cursor"), Tiers: tiers}
	if v.Query != "" {
		var out memOverview
		if err := h.call(r.Context(), "extract_overview", map[string]any{"target": v.Query, "limit": 50}, &out); err != nil {
			h.fail(w, r, err)
			return
		}
		v.Overview = &out
	} else {
		in := map[string]any{}
		if v.Tier != "" {
			in["memory_type"] = v.Tier
		}
		if tags := splitTags(v.Tags); len(tags) > 0 {
			in["tags"] = tags
		}
		if v.Cursor != "" {
			in["cursor"] = v.Cursor
		}
		var out memList
		if err := h.call(r.Context(), "memory_list", in, &out); err != nil {
			h.fail(w, r, err)
			return
		}
		v.List = &out
		if out.NextCursor != "" {
			v.Next = template.URL("/ui/memory?" + url.Values{"tier": {v.Tier}, "tags": {v.Tags}, "cursor": {out.NextCursor}}.Encode())
		}
	}
	h.render(w, http.StatusOK, "memory", page{Title: "Memory", Nav: "memory", Data: v})
}

func (h *Handler) memoryNote(w http.ResponseWriter, r *http.Request) {
	var out memRead
	if err := h.call(r.Context(), "memory_read", map[string]any{"target": r.URL.Query().Get("id")}, &out); err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, http.StatusOK, "note", page{Title: out.ID, Nav: "memory", Data: h.noteView(r, out)})
}

func splitTags(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
}
