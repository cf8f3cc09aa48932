package wiki

import (
	"context"
	"sort"
)

// PageSummary is a page of the wiki with the pages it links to and the
// pages that link to it, each named category/slug.
type PageSummary struct {
	Category  string   `json:"category"`
	Slug      string   `json:"slug"`
	Title     string   `json:"title"`
	Summary   string   `json:"summary"`
	Citation  string   `json:"citation"`
	Hash      string   `json:"hash"`
	Links     []string `json:"links"`
	Backlinks []string `json:"backlinks"`
}

// Pages lists every page, by category then slug, with its links resolved
// to pages (a bare slug names the page of that slug in any category) and
// its backlinks. Links to no page are left out: Lint reports them.
func (w *Wiki) Pages(ctx context.Context) ([]PageSummary, error) {
	files, err := w.files()
	if err != nil {
		return nil, err
	}
	out := make([]PageSummary, 0, len(files))
	bySlug := map[string][]int{}
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p, err := w.load(f)
		if err != nil {
			return nil, err
		}
		out = append(out, PageSummary{Category: p.Category, Slug: p.Slug, Title: p.Title, Summary: p.Summary,
			Citation: Citation(p.Category, p.Slug), Hash: p.Hash, Links: []string{}, Backlinks: []string{}})
		bySlug[p.Slug] = append(bySlug[p.Slug], i)
		out[i].Links = linkTargets(p.Body)
	}
	for i := range out {
		seen := map[int]bool{}
		var resolved []string
		for _, target := range out[i].Links {
			cat, slug := linkKey(target)
			for _, j := range bySlug[slug] {
				if (cat != "" && out[j].Category != cat) || seen[j] || j == i {
					continue
				}
				seen[j] = true
				resolved = append(resolved, out[j].Category+"/"+out[j].Slug)
				out[j].Backlinks = append(out[j].Backlinks, out[i].Category+"/"+out[i].Slug)
			}
		}
		out[i].Links = resolved
		if out[i].Links == nil {
			out[i].Links = []string{}
		}
	}
	for i := range out {
		sort.Strings(out[i].Backlinks)
	}
	return out, nil
}

func linkTargets(content string) []string {
	var out []string
	for _, l := range ParseLinks(content) {
		out = append(out, l.Target)
	}
	return out
}
