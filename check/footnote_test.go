package check

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	// goldmark's footnote extension, which the check parsed with before
	// check/footnote.go, linked in this test only: the reference the
	// footnotes of newMarkdown are compared with.
	"github.com/yuin/goldmark/extension"
)

// footnoteFragments are pieces of Markdown around footnotes: labels with
// escapes, brackets, blanks and spaces, definitions indented, nested in
// quotes and lists, continued and not, references before and after their
// definition, duplicates, images, links and code spans.
var footnoteFragments = []string{
	"text ", "more words", "[^1]", "[^a b]", "![^1]", "[^2]", "[^x]", "[^^]", "[^]", "[^ ]", "[^\\]]", "[^a[b]",
	"[^1]: c.md:4 sha256:" + strings.Repeat("ab", 32), "[^2]: d.md:1-2", "[^a b]: e.md:3", "[^\\]]: f.md:9",
	"[^1]:", "[^1]:x", "[^]: g.md:1", "[^ ]: h.md:1", "   [^2]: i.md:2", "    [^2]: not a definition",
	"\t[^x]: j.md:5", "[^x]:\tk.md:6", "[^1]: dup.md:7", "[^a[b]: l.md:8",
	"\n", "\n", "\n\n", "\n    continued", "\n  lazy", "\n\n    second para", "\n> ", "> ", "- ", "1. ", "  ",
	"[link](a.md:1)", "[link][^1]", "[^1][^2]", "`code [^1]`", "*em [^2]*", "\"quoted\" ", "— ", "```\n[^1]: in code\n```\n",
	"[^1]: [^2]: m.md:1", "[ref]: n.md:1", "[ref]", "![alt](p.png)", "\\[^1]", "<b>[^1]</b>",
}

// footnoteShape is a document's tree as the check sees it: every node's
// kind and text, a footnote reference as the label and text of its
// definition; the definitions themselves are not in it.
func footnoteShape(doc ast.Node, src []byte) string {
	defs := map[int]*east.Footnote{}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if f, ok := n.(*east.Footnote); ok && entering {
			defs[f.Index] = f
		}
		return ast.WalkContinue, nil
	})
	var b strings.Builder
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if _, ok := n.(*east.FootnoteList); ok && !entering {
			return ast.WalkContinue, nil
		}
		if !entering {
			b.WriteString(")")
			return ast.WalkContinue, nil
		}
		switch x := n.(type) {
		case *east.FootnoteList:
			return ast.WalkSkipChildren, nil
		case *east.FootnoteLink:
			f := defs[x.Index]
			fmt.Fprintf(&b, "(FN %q %q", f.Ref, plainText(f, src))
			return ast.WalkContinue, nil
		case *footnoteRef:
			fmt.Fprintf(&b, "(FN %q %q", x.Def.Ref, plainText(x.Def, src))
			return ast.WalkContinue, nil
		case *ast.Text:
			fmt.Fprintf(&b, "(Text %q", x.Segment.Value(src))
			return ast.WalkContinue, nil
		case *ast.Link:
			fmt.Fprintf(&b, "(Link %q %q", x.Destination, x.Title)
			return ast.WalkContinue, nil
		}
		fmt.Fprintf(&b, "(%s", n.Kind())
		return ast.WalkContinue, nil
	})
	return b.String()
}

// The footnotes of newMarkdown parse as goldmark's footnote extension
// does, for the check: the same tree outside the definitions, each
// reference to the same definition (label and text), over hand-picked
// documents and 5,000 made of random fragments.
func TestFootnotesAsGoldmarkExtension(t *testing.T) {
	docs := []string{
		"Some text[^1].\n\n[^1]: c.md:4 sha256:" + strings.Repeat("ab", 32) + "\n",
		"> quoted\n\n[^1]: a.md:1\n\n— [^1]\n",
		"a[^1] b[^1]\n\n[^1]: first.md:1\n[^1]: second.md:2\n",
		"x ![^n]\n\n[^n]: y.md:1\n    continued here\n\n    and a second paragraph\nlazy line\n",
		"- item[^i]\n\n  [^i]: in.md:1\n",
		"[^1]: only a definition\n",
		"a[^missing] [^1]\n\n[^1]: z.md:1",
	}
	r := rand.New(rand.NewSource(31))
	for range 5000 {
		var b strings.Builder
		for range 2 + r.Intn(12) {
			b.WriteString(footnoteFragments[r.Intn(len(footnoteFragments))])
		}
		docs = append(docs, b.String())
	}
	ref := goldmark.New(goldmark.WithExtensions(extension.Footnote))
	for _, d := range docs {
		src := []byte(d)
		want := footnoteShape(ref.Parser().Parse(text.NewReader(src)), src)
		got := footnoteShape(newMarkdown(&footnotes{}).Parser().Parse(text.NewReader(src)), src)
		if got != want {
			t.Fatalf("document %q:\ngot  %s\nwant %s", d, got, want)
		}
	}
}
