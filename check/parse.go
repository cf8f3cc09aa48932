// Package check finds the citations of a Markdown document and checks each
// one against its source: the reference resolves, the hash matches when the
// citation gives one, and quoted text is in the cited span. The document is
// parsed with goldmark (CommonMark plus footnotes); see docs/sessions.md for
// the citation forms.
package check

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Forms of a citation in a document.
const (
	FormLink     = "link"     // [text](ref "sha256:…")
	FormFootnote = "footnote" // text[^1] … [^1]: ref sha256:…
	FormCSL      = "csl-json" // a CSL-JSON item: URL retrieval:<id>, note "ref sha256:…"
)

// Citation is one citation found in a document.
type Citation struct {
	// Index is the citation's position in the document, from 1.
	Index int `json:"index"`
	// Line and Column locate it in the document (1-based; the column in
	// characters).
	Line   int `json:"line"`
	Column int `json:"column"`
	// Form is "link" or "footnote"; Label is the footnote label or the
	// link text.
	Form  string `json:"form"`
	Label string `json:"label"`
	// Reference is the cited reference (a citation form of
	// docs/CONTRACT.md, a URL, or retrieval:<id>); Hash the sha256:<hex>
	// the citation gives, if any.
	Reference string `json:"reference"`
	Hash      string `json:"hash"`
	// Quote is the quoted text the citation backs ("" when it backs none).
	Quote string `json:"quote"`
}

// MaxDocument caps the document parsed (bytes).
const MaxDocument = 32 << 20

// Forms tells citation references from the other destinations of a
// document's links, in the reference forms of the sources an engine
// registers (retrieve.Registry.Recognize): a new source's references are
// citations as soon as it is registered, with no list here to update.
type Forms struct {
	// Registry holds the sources whose references are citations; with
	// none, only retrieval:<id> is.
	Registry *retrieve.Registry
}

// Parse returns the citations of a document in document order: a
// CSL-JSON array (ParseCSL), else Markdown.
func (f Forms) Parse(src []byte) []Citation {
	if t := bytes.TrimSpace(src); len(t) > 0 && t[0] == '[' {
		if cits, ok := ParseCSL(t); ok {
			return cits
		}
	}
	return f.parseMarkdown(src)
}

func (f Forms) parseMarkdown(src []byte) []Citation {
	// Footnote definitions are out of the document once parsed (each
	// reference holds its own): the walk meets the document's text only.
	doc := newMarkdown(&footnotes{}).Parser().Parse(text.NewReader(src))
	p := &parser{src: src, forms: f, at: cursor{line: 1, col: 1}}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch x := n.(type) {
		case *ast.Blockquote:
			p.blockquote(x)
		case *ast.Paragraph, *ast.TextBlock:
			p.inlines(x)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	for i := range p.out {
		p.out[i].Index = i + 1
	}
	return p.out
}

type parser struct {
	forms Forms
	src   []byte
	out   []Citation
	// quoted maps a citation node to the quotation a blockquote gave it.
	quoted map[ast.Node]string
	// at is the position of the last citation located.
	at cursor
}

// cite turns a link or a footnote reference into a citation; ok is false
// when n is neither, or its destination is no citation form.
func (p *parser) cite(n ast.Node, quoted bool) (Citation, bool) {
	switch x := n.(type) {
	case *ast.Link:
		dest := string(x.Destination)
		title := strings.TrimSpace(string(x.Title))
		hash := ""
		if isHash(title) {
			hash = title
		}
		if !p.forms.IsCitation(dest, quoted || hash != "") {
			return Citation{}, false
		}
		line, col := p.position(x)
		return Citation{Line: line, Column: col, Form: FormLink, Label: plainText(x, p.src), Reference: dest, Hash: hash}, true
	case *footnoteRef:
		f := x.Def
		fields := strings.Fields(plainText(f, p.src))
		if len(fields) == 0 {
			return Citation{}, false
		}
		ref, hash := fields[0], ""
		if len(fields) > 1 && isHash(fields[1]) {
			hash = fields[1]
		}
		if !p.forms.IsCitation(ref, true) {
			return Citation{}, false
		}
		line, col := p.position(x)
		return Citation{Line: line, Column: col, Form: FormFootnote, Label: string(f.Ref), Reference: ref, Hash: hash}, true
	}
	return Citation{}, false
}

// inlines collects the citations of one paragraph, with the quotation each
// one immediately follows.
func (p *parser) inlines(block ast.Node) {
	var before strings.Builder // the text since the previous citation
	for c := block.FirstChild(); c != nil; c = c.NextSibling() {
		if q, ok := p.quoted[c]; ok {
			if ci, ok := p.cite(c, true); ok {
				ci.Quote = q
				p.out = append(p.out, ci)
				before.Reset()
				continue
			}
		}
		if ci, ok := p.cite(c, true); ok {
			if q, ok := trailingQuote(before.String()); ok {
				ci.Quote = q
				p.out = append(p.out, ci)
			} else if ci2, ok := p.cite(c, false); ok {
				p.out = append(p.out, ci2)
			}
			before.Reset()
			continue
		}
		// Links nested in emphasis and the like.
		if c.HasChildren() && c.Kind() != ast.KindLink {
			before.WriteString(plainText(c, p.src))
			_ = ast.Walk(c, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
				if entering && n != c {
					if ci, ok := p.cite(n, false); ok {
						p.out = append(p.out, ci)
						return ast.WalkSkipChildren, nil
					}
				}
				return ast.WalkContinue, nil
			})
			continue
		}
		before.WriteString(plainText(c, p.src))
	}
}

// blockquote handles a quotation set as a blockquote: its citation is the
// first inline of the paragraph right after it ("— [ref](ref)"), or the
// last line of its own last paragraph.
func (p *parser) blockquote(bq *ast.Blockquote) {
	if p.quoted == nil {
		p.quoted = map[ast.Node]string{}
	}
	var paras []ast.Node
	for c := bq.FirstChild(); c != nil; c = c.NextSibling() {
		if c.Kind() == ast.KindParagraph {
			paras = append(paras, c)
		}
	}
	if len(paras) == 0 {
		return
	}
	// A citation that ends the blockquote's last paragraph on a line of its own.
	last := paras[len(paras)-1]
	if cit := lastInlineCitation(last, p); cit != nil && lineOnlyCitation(last, cit, p.src) {
		lines := blockLines(paras, p.src)
		if len(lines) > 1 {
			p.quoted[cit] = strings.Join(lines[:len(lines)-1], "\n")
			return
		}
	}
	next := bq.NextSibling()
	if next == nil || next.Kind() != ast.KindParagraph {
		return
	}
	first := next.FirstChild()
	for first != nil {
		if t, ok := first.(*ast.Text); ok && strings.Trim(string(t.Segment.Value(p.src)), " —–-(") == "" {
			first = first.NextSibling()
			continue
		}
		break
	}
	if first == nil {
		return
	}
	if _, ok := p.cite(first, true); ok {
		p.quoted[first] = strings.Join(blockLines(paras, p.src), "\n")
	}
}

func lastInlineCitation(para ast.Node, p *parser) ast.Node {
	last := para.LastChild()
	for last != nil {
		if t, ok := last.(*ast.Text); ok && strings.TrimSpace(string(t.Segment.Value(p.src))) == "" {
			last = last.PreviousSibling()
			continue
		}
		break
	}
	if last == nil {
		return nil
	}
	if _, ok := p.cite(last, true); ok {
		return last
	}
	return nil
}

// lineOnlyCitation reports whether the citation cit stands on the last
// line of para, with nothing but dashes and spaces before it.
func lineOnlyCitation(para, cit ast.Node, src []byte) bool {
	lines := para.Lines()
	if lines.Len() < 2 {
		return false
	}
	seg := lines.At(lines.Len() - 1)
	lastLine := string(seg.Value(src))
	i := strings.IndexAny(lastLine, "[")
	return i >= 0 && strings.Trim(lastLine[:i], " —–-") == ""
}

// blockLines are the source lines of paragraphs, without their blockquote
// markers, one string per line.
func blockLines(paras []ast.Node, src []byte) []string {
	var out []string
	for _, para := range paras {
		lines := para.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			out = append(out, strings.TrimRight(string(seg.Value(src)), "\r\n"))
		}
	}
	return out
}

// trailingQuote returns the quotation that ends s ("…" or “…”, then at
// most spaces and an opening parenthesis before the citation).
func trailingQuote(s string) (string, bool) {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	s = strings.TrimRight(s, "(")
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	pairs := []struct{ open, close string }{{"\"", "\""}, {"“", "”"}, {"„", "“"}, {"«", "»"}}
	for _, pr := range pairs {
		if !strings.HasSuffix(s, pr.close) {
			continue
		}
		body := s[:len(s)-len(pr.close)]
		i := strings.LastIndex(body, pr.open)
		if i < 0 {
			continue
		}
		q := body[i+len(pr.open):]
		if strings.TrimSpace(q) == "" {
			continue
		}
		return q, true
	}
	return "", false
}

// plainText is the text of a node and its descendants.
func plainText(n ast.Node, src []byte) string {
	var b bytes.Buffer
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte('\n')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.CodeSpan:
			for cc := t.FirstChild(); cc != nil; cc = cc.NextSibling() {
				if tt, ok := cc.(*ast.Text); ok {
					b.Write(tt.Segment.Value(src))
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// position is the line and column of an inline node: those of its first
// text, else of the text before it, else of its block.
func (p *parser) position(n ast.Node) (int, int) {
	off := -1
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering && off < 0 {
			off = t.Segment.Start
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	if off >= 0 {
		// The link's "[" is one before its text.
		if _, ok := n.(*ast.Link); ok && off > 0 {
			off--
		}
	} else {
		for prev := n.PreviousSibling(); prev != nil && off < 0; prev = prev.PreviousSibling() {
			if t, ok := prev.(*ast.Text); ok {
				off = t.Segment.Stop
			}
		}
	}
	if off < 0 {
		for b := n.Parent(); b != nil; b = b.Parent() {
			if b.Type() == ast.TypeBlock && b.Lines().Len() > 0 {
				off = b.Lines().At(0).Start
				break
			}
		}
	}
	if off < 0 || off > len(p.src) {
		return 1, 1
	}
	// Citations come in document order: count from the previous one, not
	// from the start (counting from the start made a document of many
	// citations on one line quadratic, issue #32).
	if off < p.at.off {
		p.at = cursor{line: 1, col: 1}
	}
	seg := p.src[p.at.off:off]
	if nl := bytes.LastIndexByte(seg, '\n'); nl >= 0 {
		p.at.line += bytes.Count(seg, []byte("\n"))
		p.at.col = 1
		seg = seg[nl+1:]
	}
	p.at.col += utf8.RuneCount(seg)
	p.at.off = off
	return p.at.line, p.at.col
}

// cursor is a position in the document: a byte offset and its line and
// column.
type cursor struct{ off, line, col int }

func isHash(s string) bool {
	h, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// IsCitation reports whether dest is a citation reference: retrieval:<id>,
// or a reference a registered source takes (Registry.Recognize). Two forms
// are also ordinary links, and cite only with a span or when strong (the
// link backs a quotation or carries a hash): a workspace path needs a line
// span (docs/guide.md:7-7), a web URL a text fragment (#:~:text=). Every
// other reference form a source owns (git:<rev>:<path>, memory:…, sql:…,
// a new source's kv:… or s3://…) is a citation.
func (f Forms) IsCitation(dest string, strong bool) bool {
	dest = strings.TrimSpace(dest)
	if dest == "" || strings.ContainsAny(dest, " \t\n") || strings.HasPrefix(dest, "#") {
		return false
	}
	if id, ok := strings.CutPrefix(dest, "retrieval:"); ok {
		return id != ""
	}
	// Link schemes that name no document, which a registry's default
	// file source would otherwise take for a path (a:b.txt is one).
	for _, s := range []string{"mailto:", "tel:", "javascript:", "data:", "ftp:"} {
		if strings.HasPrefix(strings.ToLower(dest), s) {
			return false
		}
	}
	if f.Registry == nil {
		return false
	}
	_, ref, ok := f.Registry.Recognize(dest)
	switch {
	case !ok:
		return false
	case ref.Scheme == "web":
		return strings.Contains(dest, "#:~:text=") || strong
	case ref.Scheme == "file":
		return ref.Lines != "" || strong
	}
	return true
}

// ParseCSL returns the citations of a CSL-JSON array as `retrieve cite
// --style csl-json` writes it: items whose URL is retrieval:<id>, and
// whose note holds "reference sha256:…". ok is false when src is not a
// CSL-JSON array.
func ParseCSL(src []byte) (cits []Citation, ok bool) {
	var items []struct {
		ID   string `json:"id"`
		URL  string `json:"URL"`
		Note string `json:"note"`
	}
	if json.Unmarshal(src, &items) != nil {
		return nil, false
	}
	for _, it := range items {
		if id, ok := strings.CutPrefix(it.URL, "retrieval:"); !ok || id == "" || strings.ContainsAny(id, " \t\n") {
			continue
		}
		c := Citation{Index: len(cits) + 1, Line: 1, Column: 1, Form: FormCSL, Label: it.ID, Reference: it.URL}
		if f := strings.Fields(it.Note); len(f) == 2 && isHash(f[1]) {
			c.Hash = f[1]
		}
		cits = append(cits, c)
	}
	return cits, true
}
