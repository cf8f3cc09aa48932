package check

// Footnotes (PHP Markdown Extra: text[^label] … [^label]: definition) on
// goldmark's parser API. goldmark's own extension package is not linked:
// its init compiles the linkify regular expressions and builds tables
// (about 1.2 ms and 260 KB at every start of the binary, issue #31), and
// a citation check needs none of its rendering, only the two parsers
// below. The syntax accepted is that of goldmark's footnote extension,
// which the check parsed with before (check/footnote_test.go compares the
// two on a corpus).

import (
	"bytes"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	gparser "github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// maxFootnoteLabel caps a footnote label (bytes), as CommonMark caps a
// link label.
const maxFootnoteLabel = 999

// footnoteDef is a footnote definition: its label and, as children, the
// blocks of its text. Closing it moves it to a footnoteBlock (inline
// parsing still reaches its text), which leaves the document once inlines
// are parsed (the citations of its text are not the document's own): a
// reference holds its definition.
type footnoteDef struct {
	ast.BaseBlock
	Ref []byte
}

// footnoteBlock holds the definitions while the document is parsed.
type footnoteBlock struct{ ast.BaseBlock }

// footnoteRef is a reference to a footnote that the document defines.
type footnoteRef struct {
	ast.BaseInline
	Def *footnoteDef
}

// Node kinds are registered on first use (ast.NewNodeKind appends to a
// global table), not at init.
var (
	footnoteKinds                    sync.Once
	kindFootnoteDef, kindFootnoteRef ast.NodeKind
	kindFootnoteBlock                ast.NodeKind
)

func (n *footnoteDef) Kind() ast.NodeKind   { return kindFootnoteDef }
func (n *footnoteRef) Kind() ast.NodeKind   { return kindFootnoteRef }
func (n *footnoteBlock) Kind() ast.NodeKind { return kindFootnoteBlock }

func (n *footnoteBlock) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

func (n *footnoteDef) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Ref": string(n.Ref)}, nil)
}

func (n *footnoteRef) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"Ref": string(n.Def.Ref)}, nil)
}

// footnotes is the parse's list of definitions, in the order they close,
// and the block that holds them until inlines are parsed.
type footnotes struct {
	defs  []*footnoteDef
	block *footnoteBlock
}

// find is the first definition labelled ref (nil if none).
func (f *footnotes) find(ref []byte) *footnoteDef {
	for _, d := range f.defs {
		if bytes.Equal(d.Ref, ref) {
			return d
		}
	}
	return nil
}

// labelEnd is the index of the "]" that ends a footnote label starting at
// b[0], or -1: a backslash escapes a punctuation character, and a "[" ends
// the search (no nesting).
func labelEnd(b []byte) int {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\\':
			if i+1 < len(b) && util.IsPunct(b[i+1]) {
				i++
			}
		case ']':
			return i
		case '[':
			return -1
		}
	}
	return -1
}

// label reads "^label]" at line[pos:]; it returns the label's bounds and
// ok false when there is none.
func label(line []byte, pos int) (start, end int, ok bool) {
	if pos >= len(line) || line[pos] != '^' {
		return 0, 0, false
	}
	start = pos + 1
	if start >= len(line) {
		return 0, 0, false
	}
	n := labelEnd(line[start:min(len(line), start+maxFootnoteLabel)])
	if n < 0 {
		return 0, 0, false
	}
	return start, start + n, true
}

// footnoteParsers parses the definitions (a block parser) and the
// references (an inline parser) of one document; list is shared by both
// (all blocks are parsed before any inline, so a reference may come before
// its definition).
type footnoteParsers struct{ list *footnotes }

type footnoteBlocks footnoteParsers

func (b footnoteBlocks) Trigger() []byte { return []byte{'['} }

func (b footnoteBlocks) Open(parent ast.Node, reader text.Reader, pc gparser.Context) (ast.Node, gparser.State) {
	line, seg := reader.PeekLine()
	pos := pc.BlockOffset()
	if pos < 0 || pos >= len(line) || line[pos] != '[' {
		return nil, gparser.NoChildren
	}
	start, end, ok := label(line, pos+1)
	if !ok || end+1 >= len(line) || line[end+1] != ':' {
		return nil, gparser.NoChildren
	}
	ref := reader.Value(text.NewSegment(seg.Start+start-seg.Padding, seg.Start+end-seg.Padding))
	if util.IsBlank(ref) {
		return nil, gparser.NoChildren
	}
	def := &footnoteDef{Ref: ref}
	next := end + 2 - seg.Padding
	if next >= len(line) {
		reader.Advance(next)
		return def, gparser.NoChildren
	}
	reader.AdvanceAndSetPadding(next, seg.Padding)
	return def, gparser.HasChildren
}

// Continue: a definition goes on over blank lines and lines indented by
// four columns.
func (b footnoteBlocks) Continue(node ast.Node, reader text.Reader, pc gparser.Context) gparser.State {
	line, _ := reader.PeekLine()
	if util.IsBlank(line) {
		return gparser.Continue | gparser.HasChildren
	}
	at, padding := util.IndentPosition(line, reader.LineOffset(), 4)
	if at < 0 {
		return gparser.Close
	}
	reader.AdvanceAndSetPadding(at, padding)
	return gparser.Continue | gparser.HasChildren
}

func (b footnoteBlocks) Close(node ast.Node, reader text.Reader, pc gparser.Context) {
	l := b.list
	l.defs = append(l.defs, node.(*footnoteDef))
	parent := node.Parent()
	if l.block == nil {
		l.block = &footnoteBlock{}
		parent.InsertBefore(parent, node, l.block)
	}
	parent.RemoveChild(parent, node)
	l.block.AppendChild(l.block, node)
}

func (b footnoteBlocks) CanInterruptParagraph() bool { return true }
func (b footnoteBlocks) CanAcceptIndentedLine() bool { return false }

type footnoteInlines footnoteParsers

// Trigger: "!" too, or "![^1]" would be taken for an image.
func (s footnoteInlines) Trigger() []byte { return []byte{'!', '['} }

func (s footnoteInlines) Parse(parent ast.Node, block text.Reader, pc gparser.Context) ast.Node {
	line, seg := block.PeekLine()
	pos := 1
	if len(line) > 0 && line[0] == '!' {
		pos++
	}
	start, end, ok := label(line, pos)
	if !ok {
		return nil
	}
	def := s.list.find(block.Value(text.NewSegment(seg.Start+start, seg.Start+end)))
	if def == nil {
		return nil // the parser rewinds: "[^x]" is then plain text, or a link
	}
	block.Advance(end + 1)
	if line[0] == '!' {
		parent.AppendChild(parent, ast.NewTextSegment(text.NewSegment(seg.Start, seg.Start+1)))
	}
	return &footnoteRef{Def: def}
}

type footnoteOut footnoteParsers

// Transform takes the definitions out of the document, their inlines parsed.
func (t footnoteOut) Transform(doc *ast.Document, reader text.Reader, pc gparser.Context) {
	if b := t.list.block; b != nil && b.Parent() != nil {
		b.Parent().RemoveChild(b.Parent(), b)
	}
}

// newMarkdown is a CommonMark parser with footnotes; list receives the
// document's definitions.
func newMarkdown(list *footnotes) goldmark.Markdown {
	footnoteKinds.Do(func() {
		kindFootnoteDef = ast.NewNodeKind("CitationFootnoteDefinition")
		kindFootnoteRef = ast.NewNodeKind("CitationFootnoteReference")
		kindFootnoteBlock = ast.NewNodeKind("CitationFootnotes")
	})
	p := footnoteParsers{list: list}
	return goldmark.New(goldmark.WithParserOptions(
		// Before the paragraph's link reference definitions ("[^1]: x"
		// would be one) and the link parser.
		gparser.WithBlockParsers(util.Prioritized(footnoteBlocks(p), 999)),
		gparser.WithInlineParsers(util.Prioritized(footnoteInlines(p), 101)),
		gparser.WithASTTransformers(util.Prioritized(footnoteOut(p), 999)),
	))
}
