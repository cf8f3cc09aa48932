package extract

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/retrieve-dev/retrieve/internal/frontmatter"
	"github.com/retrieve-dev/retrieve/intl"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Heading is a markdown heading and the lines of its section.
type Heading struct {
	// Level is 1 for "#" (or a "===" setext underline) to 6 for "######".
	Level int
	// Title is the heading's text without markup.
	Title string
	// Path is the titles from the top down to this one, joined by " > ".
	Path string
	// StartLine is the heading's line; EndLine the last line before the next
	// heading of the same or higher level, or the document's last line.
	StartLine, EndLine int
	// Start and End are the byte offsets of the section in src: from the
	// heading's line to the end of EndLine, its newline included.
	Start, End int
}

// SectionNotFoundError is the error of Sections when a selector matches no
// heading. It wraps ErrSectionNotFound.
type SectionNotFoundError struct {
	// Selector is the selector that matched nothing.
	Selector string
	// Available lists the heading paths of the document, in order.
	Available []string
}

// Error says which section was not found.
func (e *SectionNotFoundError) Error() string {
	if len(e.Available) == 0 {
		return fmt.Sprintf("section %q not found: the document has no headings", e.Selector)
	}
	return fmt.Sprintf("section %q not found among the %s of the document", e.Selector, intl.Plural(len(e.Available), "heading"))
}

// Unwrap returns ErrSectionNotFound.
func (e *SectionNotFoundError) Unwrap() error { return ErrSectionNotFound }

// maxAlternatives bounds the list Alternatives returns.
const maxAlternatives = 20

// Alternatives returns at most 20 of the available heading paths, such as
// "Install > Linux": those that share words with the selector first, then
// the others in document order.
func (e *SectionNotFoundError) Alternatives() []string {
	words := strings.Fields(strings.ToLower(strings.ReplaceAll(e.Selector, ">", " ")))
	score := func(p string) int {
		p = strings.ToLower(p)
		n := 0
		for _, w := range words {
			if strings.Contains(p, w) {
				n++
			}
		}
		return n
	}
	out := append([]string(nil), e.Available...)
	sort.SliceStable(out, func(i, j int) bool { return score(out[i]) > score(out[j]) })
	if len(out) > maxAlternatives {
		out = out[:maxAlternatives]
	}
	return out
}

// frontmatterEnd returns the byte offset after a leading "---" YAML block,
// or 0 when there is none (internal/frontmatter).
func frontmatterEnd(src []byte) int {
	_, end, _ := frontmatter.Split(src)
	return end
}

// Headings lists the top-level headings of a markdown document, ATX ("# x")
// and setext ("x" underlined), with their line numbers in src. Lines
// inside fenced or indented code blocks are not headings, and a leading
// YAML frontmatter block ("---" ... "---") is skipped while line numbers
// still count from the start of src.
func Headings(src []byte) []Heading {
	fm := frontmatterEnd(src)
	body := src[fm:]
	doc := goldmark.New().Parser().Parse(text.NewReader(body))
	lineStarts := []int{0}
	for i, c := range src {
		if c == '\n' {
			lineStarts = append(lineStarts, i+1)
		}
	}
	lineOf := func(off int) int { // 1-based line of a byte offset of src
		lo, hi := 0, len(lineStarts)-1
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if lineStarts[mid] <= off {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		return lo + 1
	}
	total := len(lineStarts)
	if len(src) == 0 || src[len(src)-1] == '\n' {
		total--
	}
	var hs []Heading
	var stack []Heading
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok {
			continue
		}
		lines := h.Lines()
		if lines.Len() == 0 {
			continue
		}
		start := lineOf(fm + lines.At(0).Start)
		title := strings.TrimSpace(string(plainText(h, body)))
		for len(stack) > 0 && stack[len(stack)-1].Level >= h.Level {
			stack = stack[:len(stack)-1]
		}
		var path []string
		for _, p := range stack {
			path = append(path, p.Title)
		}
		path = append(path, title)
		hd := Heading{Level: h.Level, Title: title, Path: strings.Join(path, " > "), StartLine: start}
		stack = append(stack, hd)
		hs = append(hs, hd)
	}
	for i := range hs {
		hs[i].EndLine = total
		for j := i + 1; j < len(hs); j++ {
			if hs[j].Level <= hs[i].Level {
				hs[i].EndLine = hs[j].StartLine - 1
				break
			}
		}
		hs[i].Start = lineStarts[hs[i].StartLine-1]
		hs[i].End = len(src)
		if hs[i].EndLine < len(lineStarts) {
			hs[i].End = max(hs[i].Start, lineStarts[hs[i].EndLine])
		}
	}
	return hs
}

// plainText returns the text of a heading without markup.
func plainText(n ast.Node, src []byte) []byte {
	var buf bytes.Buffer
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			buf.Write(t.Segment.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				buf.WriteByte(' ')
			}
		case *ast.String:
			buf.Write(t.Value)
		case *ast.AutoLink:
			buf.Write(t.Label(src))
		case *ast.CodeSpan:
			for cc := t.FirstChild(); cc != nil; cc = cc.NextSibling() {
				if tt, ok := cc.(*ast.Text); ok {
					buf.Write(tt.Segment.Value(src))
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return buf.Bytes()
}

// Sections returns the line ranges of the sections the selectors name. A
// selector matches a heading by its title or by a suffix of its path
// ("Install > Linux" matches "Guide > Install > Linux"), ignoring case and
// surrounding spaces, in any script: titles are compared after NFKC and case
// folding (intl.Key), so a full-width or decomposed title is found too. All matches of all selectors are returned, sorted and
// merged. A selector that matches nothing gives a *SectionNotFoundError.
func Sections(src []byte, selectors []string) ([]Range, error) {
	return SelectHeadings(Headings(src), selectors)
}

// SelectHeadings returns the line ranges of the headings of hs the
// selectors name, by the rules of Sections: a document's outline that does
// not come from Markdown (a PDF's bookmarks, a notebook's cells) is
// selected the same way. A selector that matches nothing gives a
// *SectionNotFoundError.
func SelectHeadings(hs []Heading, selectors []string) ([]Range, error) {
	var out []Range
	for _, sel := range selectors {
		want := splitPath(sel)
		found := false
		for _, h := range hs {
			if matchPath(splitPath(h.Path), want) {
				out = append(out, Range{Start: h.StartLine, End: max(h.EndLine, h.StartLine)})
				found = true
			}
		}
		if !found {
			avail := []string{}
			seen := map[string]bool{}
			for _, h := range hs {
				if !seen[h.Path] {
					seen[h.Path] = true
					avail = append(avail, h.Path)
				}
			}
			return nil, &SectionNotFoundError{Selector: strings.TrimSpace(sel), Available: avail}
		}
	}
	return merge(out, 0), nil
}

// Outline sets the Path of each heading of hs (an outline in document
// order that does not come from Markdown: a PDF's bookmarks, a notebook's
// cells) from the titles above it by level, as Headings does.
func Outline(hs []Heading) {
	var stack []Heading
	for i := range hs {
		for len(stack) > 0 && stack[len(stack)-1].Level >= hs[i].Level {
			stack = stack[:len(stack)-1]
		}
		var path []string
		for _, p := range stack {
			path = append(path, p.Title)
		}
		hs[i].Path = strings.Join(append(path, hs[i].Title), " > ")
		stack = append(stack, hs[i])
	}
}

func splitPath(p string) []string {
	// Full-width ＞ separates too: NFKC makes it ">".
	parts := strings.Split(strings.ReplaceAll(p, "＞", ">"), ">")
	for i := range parts {
		parts[i] = intl.Key(parts[i])
	}
	return parts
}

// matchPath reports whether want is a suffix of path.
func matchPath(path, want []string) bool {
	if len(want) > len(path) {
		return false
	}
	off := len(path) - len(want)
	for i, w := range want {
		if path[off+i] != w {
			return false
		}
	}
	return true
}
