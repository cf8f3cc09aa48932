// Package html turns HTML into Markdown: the main content by readability, the
// whole page, or the elements a CSS selector matches, tables kept. It is the
// one converter of the module: the web source converts pages through it and
// the registry reads HTML files on disk through it (the "html" format).
package html

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"codeberg.org/readeck/go-readability/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// Page is an HTML page converted to Markdown.
type Page struct {
	Markdown string
	Meta     map[string]any
	// Mode is how the content was chosen: readability, raw or select.
	Mode string
	// Fallback is set when readability found no main content and the whole
	// document was converted instead.
	Fallback bool
	// Matches is the number of elements a CSS selector matched.
	Matches int
}

// sharedConverter is built once: the converter is safe for concurrent use
// and its errors are set only while plugins initialise.
var sharedConverter = sync.OnceValue(newConverter)

// newConverter returns an HTML → Markdown converter with tables kept.
func newConverter() *converter.Converter {
	return converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
	))
}

// ErrSelector is returned for a CSS selector that does not parse.
type ErrSelector struct {
	Selector string
	Err      error
}

func (e *ErrSelector) Error() string { return fmt.Sprintf("CSS selector %q: %v", e.Selector, e.Err) }

// Convert turns UTF-8 HTML into Markdown: the main content by
// readability (default), the whole body (raw), or the elements matched by a
// CSS selector. It never panics on malformed HTML: the HTML5 parser repairs
// whatever it is given.
func Convert(src []byte, pageURL *url.URL, raw bool, selector string) (*Page, error) {
	root, err := xhtml.Parse(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	doc := goquery.NewDocumentFromNode(root)
	p := &Page{Meta: metadata(doc, pageURL)}
	domain := ""
	if pageURL != nil {
		domain = pageURL.Scheme + "://" + pageURL.Host
	}
	conv := sharedConverter()
	convert := func(n *xhtml.Node) (string, error) {
		b, err := conv.ConvertNode(n, converter.WithDomain(domain))
		return strings.TrimSpace(string(b)), err
	}
	switch {
	case selector != "":
		p.Mode = "select"
		sel, err := compileSelector(doc, selector)
		if err != nil {
			return nil, err
		}
		p.Matches = sel.Length()
		parts := make([]string, 0, sel.Length())
		for _, n := range sel.Nodes {
			md, err := convert(n)
			if err != nil {
				return nil, err
			}
			if md != "" {
				parts = append(parts, md)
			}
		}
		p.Markdown = strings.Join(parts, "\n\n")
	case raw:
		p.Mode = "raw"
		if p.Markdown, err = convert(root); err != nil {
			return nil, err
		}
	default:
		p.Mode = "readability"
		art, rerr := readability.FromDocument(root, pageURL)
		if rerr == nil && art.Node != nil {
			if p.Markdown, err = convert(art.Node); err != nil {
				return nil, err
			}
			fillArticleMeta(p.Meta, art)
		}
		if strings.TrimSpace(p.Markdown) == "" {
			// Readability found nothing: convert the whole (re-parsed) document.
			p.Fallback = true
			again, err := xhtml.Parse(bytes.NewReader(src))
			if err != nil {
				return nil, err
			}
			if p.Markdown, err = convert(again); err != nil {
				return nil, err
			}
		}
	}
	if p.Markdown != "" {
		p.Markdown += "\n"
	}
	return p, nil
}

// Decode returns HTML as UTF-8: the encoding comes from a byte order mark,
// contentType's charset parameter (may be ""), a <meta> charset in the first
// 1024 bytes, or a guess, in that order (the HTML standard's sniffing). name
// is the encoding the bytes were decoded from (or failed to decode from), ""
// when they were kept as
// they are (UTF-8, or a guess the bytes already satisfy).
func Decode(src []byte, contentType string) (text []byte, name string, err error) {
	enc, name, certain := charset.DetermineEncoding(src, contentType)
	if name == "utf-8" || enc == nil || (!certain && utf8.Valid(src)) {
		return src, "", nil
	}
	if text, err = enc.NewDecoder().Bytes(src); err != nil {
		return nil, name, fmt.Errorf("decode %s: %w", name, err)
	}
	return text, name, nil
}

func compileSelector(doc *goquery.Document, selector string) (*goquery.Selection, error) {
	g, err := cascadia.Compile(selector)
	if err != nil {
		return nil, &ErrSelector{Selector: selector, Err: err}
	}
	return doc.FindMatcher(g), nil
}

// metadata reads the page's title, description, times, language and
// canonical URL from the head.
func metadata(doc *goquery.Document, pageURL *url.URL) map[string]any {
	m := map[string]any{}
	set := func(k, v string) {
		v = strings.TrimSpace(v)
		if v != "" {
			if _, ok := m[k]; !ok {
				m[k] = v
			}
		}
	}
	meta := func(attr, name string) string {
		v, _ := doc.Find(fmt.Sprintf(`meta[%s="%s"]`, attr, name)).First().Attr("content")
		return v
	}
	set("title", meta("property", "og:title"))
	set("title", doc.Find("head title").First().Text())
	set("description", meta("name", "description"))
	set("description", meta("property", "og:description"))
	for _, k := range []string{"article:published_time", "og:published_time"} {
		set("published_time", normTime(meta("property", k)))
	}
	set("published_time", normTime(meta("name", "date")))
	set("published_time", normTime(meta("itemprop", "datePublished")))
	set("modified_time", normTime(meta("property", "article:modified_time")))
	set("modified_time", normTime(meta("itemprop", "dateModified")))
	lang, _ := doc.Find("html").First().Attr("lang")
	set("language", lang)
	if href, ok := doc.Find(`link[rel="canonical"]`).First().Attr("href"); ok && pageURL != nil {
		if cu, err := pageURL.Parse(strings.TrimSpace(href)); err == nil && (cu.Scheme == "http" || cu.Scheme == "https") {
			set("canonical_url", cu.String())
		}
	}
	return m
}

func fillArticleMeta(m map[string]any, art readability.Article) {
	if _, ok := m["published_time"]; !ok {
		if t, err := art.PublishedTime(); err == nil && !t.IsZero() {
			m["published_time"] = t.UTC().Format(time.RFC3339)
		}
	}
	if _, ok := m["modified_time"]; !ok {
		if t, err := art.ModifiedTime(); err == nil && !t.IsZero() {
			m["modified_time"] = t.UTC().Format(time.RFC3339)
		}
	}
	if _, ok := m["language"]; !ok && art.Language() != "" {
		m["language"] = art.Language()
	}
	if b := strings.TrimSpace(art.Byline()); b != "" {
		m["byline"] = b
	}
}

// normTime returns a meta time as RFC 3339 UTC when it parses, else as given.
func normTime(s string) string {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC().Format(time.RFC3339)
		}
	}
	return s
}
