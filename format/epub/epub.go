// Package epub extracts the text of EPUB 2 and 3 e-books as Markdown, one
// part per chapter: the spine's XHTML documents in spine order, each parsed
// with golang.org/x/net/html and converted to Markdown (headings, paragraphs,
// lists, tables, preformatted text). Nothing outside the package is read: no
// link is followed, no stylesheet, image or external resource loaded, and a
// spine or manifest entry that points outside the zip is skipped. The zip is
// read through format/internal/zipdoc (capped inflation, members, nesting).
//
// Parts and fragments (docs/documents.md, "Office files and e-books"): each
// spine item that holds text is a part of Kind "chapter" with Fragment
// "chapter=N", N its 1-based position in the OPF spine (every itemref
// counts, linear or not, so N is the position any EPUB reader shows and
// does not move when a chapter has no text); its Index is N too. A spine
// item pointing into a document an earlier item already gave (hrefs that
// differ only by a #fragment) adds no part. Each chapter
// is a level-1 Section titled from the navigation document (EPUB 3 nav or
// EPUB 2 NCX), else its first heading, else its <title>, else "Chapter N".
// Books whose content documents are encrypted (DRM) are format.ErrEncrypted;
// obfuscated fonts are not content and do not count.
package epub

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/internal/mdtext"
	"github.com/retrieve-dev/retrieve/format/internal/zipdoc"
)

// Extractor and Version name this implementation in provenance.metadata.
const (
	Extractor = "retrieve/epub"
	Version   = "1"
)

// AssumeLinks is stated on every EPUB extraction.
const AssumeLinks = "links, images and external resources of the book are not followed or loaded; images are left out"

const mediaType = "application/epub+zip"

// New returns the EPUB extractor.
func New() format.Extractor { return book{} }

type book struct{}

var _ format.Extractor = book{}

// Info describes EPUB: its extension, media type and mimetype sniffer.
func (book) Info() format.Info {
	return format.Info{Name: "epub", Extractor: Extractor, Version: Version,
		MediaTypes: []string{mediaType}, Extensions: []string{".epub"},
		Sniff: func(h []byte) bool { return zipdoc.SniffMimetype(h, mediaType) }}
}

type item struct {
	href, mediaType, props string
}

// Extract gives the book's chapters in spine order, one part each.
func (book) Extract(ctx context.Context, r io.ReaderAt, size int64, opts format.Options) (*format.Text, error) {
	t, err := extract(ctx, r, size, opts.Limits.WithDefaults())
	if err != nil {
		return nil, fmt.Errorf("epub: %w", zipdoc.Wrap(err))
	}
	return t, nil
}

func extract(ctx context.Context, r io.ReaderAt, size int64, lim format.Limits) (*format.Text, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a, err := zipdoc.Open(ctx, r, size, lim)
	if err != nil {
		return nil, err
	}
	opfPath, err := rootfile(ctx, a, lim)
	if err != nil {
		return nil, err
	}
	encrypted, err := encryptedMembers(ctx, a, lim)
	if err != nil {
		return nil, err
	}
	manifest, spine, tocID, err := readOPF(ctx, a, opfPath, lim)
	if err != nil {
		return nil, err
	}
	titles := navTitles(ctx, a, manifest, tocID, lim)
	b := mdtext.New(lim)
	chapters, repeats := 0, 0
	seen := map[string]bool{}
	for i, id := range spine {
		n := i + 1
		it, ok := manifest[id]
		if !ok || it.href == "" {
			continue
		}
		if encrypted[it.href] {
			return nil, fmt.Errorf("%w: chapter %d (%s) is encrypted (DRM)", format.ErrEncrypted, n, it.href)
		}
		if !isXHTML(it.mediaType) {
			continue
		}
		if seen[it.href] {
			// Spine items whose hrefs differ only by a fragment name one
			// document: it is given once, at its first spine position.
			repeats++
			continue
		}
		seen[it.href] = true
		ch, err := convert(ctx, a, it.href, lim)
		if err != nil {
			return nil, fmt.Errorf("chapter %d (%s): %w", n, it.href, err)
		}
		if strings.TrimSpace(ch.text) == "" {
			continue
		}
		title := titles[it.href]
		if title == "" {
			title = ch.heading
		}
		if title == "" {
			title = ch.title
		}
		if title == "" {
			title = "Chapter " + strconv.Itoa(n)
		}
		b.Section(title, 1)
		if _, err := b.PartIndexed("chapter", n, title, "chapter="+strconv.Itoa(n), ch.text); err != nil {
			return nil, err
		}
		chapters++
	}
	if chapters == 0 {
		return nil, fmt.Errorf("%w: the spine's documents hold no text", format.ErrNoText)
	}
	t := b.Text()
	t.Assumptions = append(t.Assumptions, AssumeLinks)
	if repeats > 0 {
		t.Assumptions = append(t.Assumptions, fmt.Sprintf("%d spine items point into a document an earlier spine item already gave (fragments of one file) and add no part", repeats))
	}
	t.Metadata["chapters"] = chapters
	t.Metadata["spine_items"] = len(spine)
	return t, nil
}

func isXHTML(mt string) bool {
	mt = strings.ToLower(strings.TrimSpace(mt))
	return mt == "application/xhtml+xml" || mt == "text/html"
}

// rootfile reads META-INF/container.xml for the package document's path.
func rootfile(ctx context.Context, a *zipdoc.Archive, lim format.Limits) (string, error) {
	const name = "META-INF/container.xml"
	if !a.Has(name) {
		return "", fmt.Errorf("%w: no %s: not an EPUB", format.ErrMalformed, name)
	}
	var found string
	err := walk(ctx, a, name, lim, func(d *zipdoc.Decoder, s xml.StartElement) error {
		if s.Name.Local == "rootfile" && found == "" {
			p, _ := zipdoc.Attr(s, "full-path")
			mt, _ := zipdoc.Attr(s, "media-type")
			if mt == "" || mt == "application/oebps-package+xml" {
				found = p
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	p, ok := zipdoc.Resolve("", found)
	if !ok || !a.Has(p) {
		return "", fmt.Errorf("%w: the package document %q is not in the book", format.ErrMalformed, found)
	}
	return p, nil
}

// encryptedMembers lists the members META-INF/encryption.xml says are
// encrypted, font obfuscation (IDPF, Adobe) aside.
func encryptedMembers(ctx context.Context, a *zipdoc.Archive, lim format.Limits) (map[string]bool, error) {
	out := map[string]bool{}
	const name = "META-INF/encryption.xml"
	if !a.Has(name) {
		return out, nil
	}
	obfuscated := false
	err := walk(ctx, a, name, lim, func(d *zipdoc.Decoder, s xml.StartElement) error {
		switch s.Name.Local {
		case "EncryptedData":
			obfuscated = false
		case "EncryptionMethod":
			alg, _ := zipdoc.Attr(s, "Algorithm")
			obfuscated = alg == "http://www.idpf.org/2008/embedding" || alg == "http://ns.adobe.com/pdf/enc#RC"
		case "CipherReference":
			uri, _ := zipdoc.Attr(s, "URI")
			if u, err := url.PathUnescape(uri); err == nil {
				uri = u
			}
			if p, ok := zipdoc.Resolve("", uri); ok && !obfuscated {
				out[p] = true
			}
		}
		return nil
	})
	return out, err
}

// readOPF reads the package document's manifest (id → item, hrefs resolved
// to member names) and spine (idrefs in order), and the NCX's id.
func readOPF(ctx context.Context, a *zipdoc.Archive, opf string, lim format.Limits) (map[string]item, []string, string, error) {
	manifest := map[string]item{}
	var spine []string
	toc := ""
	err := walk(ctx, a, opf, lim, func(d *zipdoc.Decoder, s xml.StartElement) error {
		switch s.Name.Local {
		case "item":
			id, _ := zipdoc.Attr(s, "id")
			href, _ := zipdoc.Attr(s, "href")
			mt, _ := zipdoc.Attr(s, "media-type")
			props, _ := zipdoc.Attr(s, "properties")
			manifest[id] = item{href: member(opf, href), mediaType: mt, props: props}
		case "spine":
			toc, _ = zipdoc.Attr(s, "toc")
		case "itemref":
			if len(spine) >= lim.MaxParts {
				return fmt.Errorf("%w: more than %d spine items", format.ErrTooLarge, lim.MaxParts)
			}
			id, _ := zipdoc.Attr(s, "idref")
			spine = append(spine, id)
		}
		return nil
	})
	if err != nil {
		return nil, nil, "", err
	}
	if len(spine) == 0 {
		return nil, nil, "", fmt.Errorf("%w: the package document has no spine", format.ErrMalformed)
	}
	return manifest, spine, toc, nil
}

// member resolves an href (percent-encoded, relative to the document base)
// to a member name, or "" when it is external or outside the book.
func member(base, href string) string {
	if u, err := url.Parse(href); err == nil {
		if u.Scheme != "" || u.Host != "" {
			return ""
		}
		href = u.Path
	}
	p, ok := zipdoc.Resolve(base, href)
	if !ok {
		return ""
	}
	return p
}

// navTitles maps chapter members to their titles in the navigation
// document: the EPUB 3 nav (a manifest item with properties "nav") or the
// EPUB 2 NCX. A missing or broken navigation document only costs titles.
func navTitles(ctx context.Context, a *zipdoc.Archive, manifest map[string]item, tocID string, lim format.Limits) map[string]string {
	out := map[string]string{}
	add := func(base, href, title string) {
		m := member(base, href)
		title = strings.TrimSpace(mdtext.Space(strings.ReplaceAll(title, "\n", " ")))
		if m != "" && title != "" && out[m] == "" {
			out[m] = title
		}
	}
	for _, it := range manifest {
		if strings.Contains(" "+it.props+" ", " nav ") && it.href != "" && a.Has(it.href) {
			navDoc(ctx, a, it.href, lim, add)
		}
	}
	if len(out) > 0 {
		return out
	}
	ncx, ok := manifest[tocID]
	if !ok || ncx.href == "" || !a.Has(ncx.href) {
		return out
	}
	var label strings.Builder
	inText := false
	pending := ""
	_ = walkTokens(ctx, a, ncx.href, lim, func(d *zipdoc.Decoder, t xml.Token) error {
		switch t := t.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "navLabel":
				label.Reset()
			case "text":
				inText = true
			case "content":
				src, _ := zipdoc.Attr(t, "src")
				pending = label.String()
				add(ncx.href, src, pending)
			}
		case xml.EndElement:
			if t.Name.Local == "text" {
				inText = false
			}
		case xml.CharData:
			if inText {
				label.Write(t)
			}
		}
		return nil
	})
	return out
}

// walk calls fn for each start element of member name.
func walk(ctx context.Context, a *zipdoc.Archive, name string, lim format.Limits, fn func(d *zipdoc.Decoder, s xml.StartElement) error) error {
	return walkTokens(ctx, a, name, lim, func(d *zipdoc.Decoder, t xml.Token) error {
		if s, ok := t.(xml.StartElement); ok {
			return fn(d, s)
		}
		return nil
	})
}

func walkTokens(ctx context.Context, a *zipdoc.Archive, name string, lim format.Limits, fn func(d *zipdoc.Decoder, t xml.Token) error) error {
	rc, err := a.Open(name)
	if err != nil {
		return err
	}
	defer rc.Close()
	d := zipdoc.NewDecoder(ctx, rc, lim.MaxDepth)
	d.Lenient()
	for {
		t, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := fn(d, t); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
}
