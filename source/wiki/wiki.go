// Package wiki is the source of wiki citations: wiki:<category>/<slug> (or
// wiki:<slug> when unambiguous) returns the page's Markdown.
package wiki

import (
	"context"
	"io"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/wiki"
)

// Source reads the wiki of one workspace.
type Source struct {
	w *wiki.Wiki
}

var (
	_ retrieve.Source          = (*Source)(nil)
	_ retrieve.Schemer         = (*Source)(nil)
	_ retrieve.ReferenceParser = (*Source)(nil)
)

// New returns the source of the wiki.
func New(w *wiki.Wiki) *Source { return &Source{w: w} }

// Kind implements retrieve.Source.
func (s *Source) Kind() string { return "wiki" }

// Schemes implements retrieve.Schemer: wiki:<category>/<slug>.
func (s *Source) Schemes() []string { return []string{"wiki"} }

// ParseReference implements retrieve.ReferenceParser: wiki:<category>/<slug>,
// whole (a page is cited whole).
func (s *Source) ParseReference(ref string) (retrieve.Reference, bool) {
	return retrieve.WholeReference("wiki", ref), true
}

// Fetch implements retrieve.Source.
func (s *Source) Fetch(ctx context.Context, req *retrieve.Request) (*retrieve.Document, error) {
	name := strings.TrimPrefix(req.Target, "wiki:")
	p, err := s.w.Read(ctx, wiki.ReadInput{Slug: name})
	if err != nil {
		return nil, err
	}
	return &retrieve.Document{Body: io.NopCloser(strings.NewReader(p.Content)), Size: int64(len(p.Content)), Format: "markdown",
		Name: p.Slug + ".md", Locator: p.Citation, Label: "wiki:" + p.Category + "/" + p.Slug, Authority: retrieve.AuthorityMedium,
		Reliability: "agent-written wiki page", Metadata: map[string]any{"title": p.Title, "path": "wiki/" + p.Path}}, nil
}
