package epub

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/internal/mdtext"
	"github.com/retrieve-dev/retrieve/format/internal/zipdoc"
)

// chapter is one converted content document.
type chapter struct {
	text    string
	heading string // the first heading's text
	title   string // the <title>
}

// parse reads and parses member name as HTML within the caps.
func parse(ctx context.Context, a *zipdoc.Archive, name string) (*html.Node, error) {
	rc, err := a.Open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	doc, err := html.Parse(rc)
	if err != nil {
		return nil, zipdoc.Wrap(err)
	}
	return doc, ctx.Err()
}

// convert turns a content document into Markdown blocks.
func convert(ctx context.Context, a *zipdoc.Archive, name string, lim format.Limits) (*chapter, error) {
	doc, err := parse(ctx, a, name)
	if err != nil {
		return nil, err
	}
	c := &converter{lim: lim}
	if t := find(doc, atom.Title, 0); t != nil {
		c.ch.title = strings.TrimSpace(mdtext.Space(textOf(t, 0, lim.MaxDepth)))
	}
	body := find(doc, atom.Body, 0)
	if body == nil {
		body = doc
	}
	if err := c.block(body, 0, 0); err != nil {
		return nil, err
	}
	c.flush()
	c.ch.text = strings.Join(c.blocks, "\n\n")
	return &c.ch, nil
}

// converter walks a body, writing blocks: a block element ends the current
// paragraph; inline content accumulates in it.
type converter struct {
	lim    format.Limits
	ch     chapter
	blocks []string
	cur    strings.Builder
	prefix string
	size   int
}

// flush ends the current paragraph.
func (c *converter) flush() {
	s := strings.TrimSpace(mdtext.Space(c.cur.String()))
	c.cur.Reset()
	if s == "" {
		return
	}
	c.emit(c.prefix + s)
	c.prefix = ""
}

func (c *converter) emit(s string) {
	c.blocks = append(c.blocks, s)
	c.size += len(s) + 2
}

// block walks n's children; list is the list nesting depth.
func (c *converter) block(n *html.Node, depth, list int) error {
	if depth > c.lim.MaxDepth {
		return fmt.Errorf("%w: HTML nested deeper than %d", format.ErrTooLarge, c.lim.MaxDepth)
	}
	if int64(c.size+c.cur.Len()) > c.lim.MaxText {
		return fmt.Errorf("%w: more than %d bytes of text", format.ErrTooLarge, c.lim.MaxText)
	}
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		switch k.Type {
		case html.TextNode:
			c.cur.WriteString(collapse(k.Data))
		case html.ElementNode:
			if err := c.element(k, depth+1, list); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *converter) element(n *html.Node, depth, list int) error {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Head, atom.Noscript, atom.Template, atom.Img, atom.Svg, atom.Math, atom.Object, atom.Iframe, atom.Audio, atom.Video:
		return nil
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		c.flush()
		text := strings.TrimSpace(mdtext.Space(strings.ReplaceAll(textOf(n, depth, c.lim.MaxDepth), "\n", " ")))
		if text != "" {
			if c.ch.heading == "" {
				c.ch.heading = text
			}
			c.emit(mdtext.Heading(int(n.Data[1]-'0'), text))
		}
		return nil
	case atom.Br:
		c.cur.WriteByte('\n')
		return nil
	case atom.Pre:
		c.flush()
		text := strings.Trim(textOf(n, depth, c.lim.MaxDepth), "\n")
		if strings.TrimSpace(text) != "" {
			c.emit("```\n" + text + "\n```")
		}
		return nil
	case atom.Table:
		c.flush()
		rows := c.table(n, depth)
		if tb := mdtext.Table(rows); tb != "" {
			c.emit(strings.TrimSuffix(tb, "\n"))
		}
		return nil
	case atom.Ul, atom.Ol:
		c.flush()
		num := 0
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if k.Type != html.ElementNode || k.DataAtom != atom.Li {
				continue
			}
			num++
			marker := "- "
			if n.DataAtom == atom.Ol {
				marker = strconv.Itoa(num) + ". "
			}
			c.prefix = strings.Repeat("  ", list) + marker
			if err := c.block(k, depth+1, list+1); err != nil {
				return err
			}
			c.flush()
		}
		c.prefix = ""
		return nil
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Blockquote, atom.Li, atom.Dt, atom.Dd, atom.Dl,
		atom.Figure, atom.Figcaption, atom.Header, atom.Footer, atom.Aside, atom.Nav, atom.Main, atom.Hr, atom.Address, atom.Center:
		c.flush()
		if err := c.block(n, depth, list); err != nil {
			return err
		}
		c.flush()
		return nil
	}
	return c.block(n, depth, list)
}

// table reads a table's rows (thead, tbody, tfoot or direct); a nested
// table's text stays in its cell.
func (c *converter) table(n *html.Node, depth int) [][]string {
	var rows [][]string
	var walk func(n *html.Node, d int)
	walk = func(n *html.Node, d int) {
		if d > c.lim.MaxDepth {
			return
		}
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if k.Type != html.ElementNode {
				continue
			}
			switch k.DataAtom {
			case atom.Tr:
				var row []string
				for cell := k.FirstChild; cell != nil; cell = cell.NextSibling {
					if cell.Type == html.ElementNode && (cell.DataAtom == atom.Td || cell.DataAtom == atom.Th) {
						row = append(row, strings.TrimSpace(mdtext.Space(strings.ReplaceAll(textOf(cell, d, c.lim.MaxDepth), "\n", " "))))
					}
				}
				rows = append(rows, row)
			case atom.Thead, atom.Tbody, atom.Tfoot:
				walk(k, d+1)
			}
		}
	}
	walk(n, depth)
	return rows
}

// textOf is the text of n and its descendants (whitespace collapsed
// outside pre), scripts and styles left out.
func textOf(n *html.Node, depth, maxDepth int) string {
	var sb strings.Builder
	var walk func(n *html.Node, d int, pre bool)
	walk = func(n *html.Node, d int, pre bool) {
		if d > maxDepth {
			return
		}
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			switch k.Type {
			case html.TextNode:
				if pre {
					sb.WriteString(k.Data)
				} else {
					sb.WriteString(collapse(k.Data))
				}
			case html.ElementNode:
				switch k.DataAtom {
				case atom.Script, atom.Style, atom.Img, atom.Svg, atom.Math:
				case atom.Br:
					sb.WriteByte('\n')
				case atom.P, atom.Div, atom.Li, atom.Tr:
					walk(k, d+1, pre)
					sb.WriteByte(' ')
				default:
					walk(k, d+1, pre || k.DataAtom == atom.Pre)
				}
			}
		}
	}
	walk(n, depth, n.DataAtom == atom.Pre)
	return sb.String()
}

// collapse turns HTML whitespace runs into single spaces.
func collapse(s string) string {
	if !strings.ContainsAny(s, "\n\r\t\f") {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '\n', '\r', '\t', '\f':
			return ' '
		}
		return r
	}, s)
}

// find returns the first element a under n (depth-first).
func find(n *html.Node, a atom.Atom, depth int) *html.Node {
	if depth > 32 {
		return nil
	}
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		if k.Type == html.ElementNode && k.DataAtom == a {
			return k
		}
		if f := find(k, a, depth+1); f != nil {
			return f
		}
	}
	return nil
}

// navDoc reads an EPUB 3 navigation document's toc nav: each link's text
// titles the chapter it points to.
func navDoc(ctx context.Context, a *zipdoc.Archive, name string, lim format.Limits, add func(base, href, title string)) {
	doc, err := parse(ctx, a, name)
	if err != nil {
		return
	}
	var walk func(n *html.Node, d int, inToc bool)
	walk = func(n *html.Node, d int, inToc bool) {
		if d > lim.MaxDepth {
			return
		}
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if k.Type != html.ElementNode {
				continue
			}
			toc := inToc
			if k.DataAtom == atom.Nav {
				toc = false
				for _, at := range k.Attr {
					if (at.Key == "epub:type" || at.Key == "type") && strings.Contains(" "+at.Val+" ", " toc ") {
						toc = true
					}
				}
			}
			if toc && k.DataAtom == atom.A {
				for _, at := range k.Attr {
					if at.Key == "href" {
						add(name, at.Val, textOf(k, d, lim.MaxDepth))
					}
				}
				continue
			}
			walk(k, d+1, toc)
		}
	}
	walk(doc, 0, false)
}
