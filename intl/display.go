package intl

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// Snippet returns up to about maxTokens tokens of text around the first
// term that match accepts (a word counts as one token, a CJK character as
// one), with "…" where text was cut. Both stores use it, so a hit's snippet
// is the same on SQLite and PostgreSQL. Without a matching term, the start
// of the text is returned.
func Snippet(text string, match func(term string) bool, maxTokens int) string {
	hitAt := -1
	Scan(text, func(t Term) {
		if hitAt < 0 && match(t.Text) {
			hitAt = t.Start
		}
	})
	// Display tokens: words, and each CJK character.
	type span struct{ start, end int }
	var toks []span
	hit, found := 0, false
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		c := classOf(r)
		if c == classSep {
			i += size
			continue
		}
		start := i
		i += size
		if c == classWord {
			for i < len(text) {
				r, size := utf8.DecodeRuneInString(text[i:])
				if classOf(r) == classWord || r >= utf8.RuneSelf && unicode.In(r, unicode.Mn, unicode.Mc) {
					i += size
					continue
				}
				break
			}
		}
		if !found && hitAt >= 0 && hitAt < i {
			hit, found = len(toks), true
		}
		toks = append(toks, span{start, i})
	}
	if len(toks) == 0 {
		return ""
	}
	from := max(0, hit-maxTokens/4)
	to := min(len(toks), from+maxTokens)
	from = max(0, min(from, to-maxTokens))
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	// Whole text at either end: its leading markup and final punctuation
	// stay; inside, the cut is at the tokens.
	start, end := toks[from].start, toks[to-1].end
	if from == 0 {
		start = 0
	}
	if to == len(toks) {
		end = len(text)
	}
	b.WriteString(strings.Join(strings.Fields(text[start:end]), " "))
	if to < len(toks) {
		b.WriteString("…")
	}
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}

// Width returns the number of terminal cells s takes: East Asian wide and
// full-width characters take two, combining marks none. Printable ASCII
// takes one cell a byte, without the grapheme segmentation (a table of
// outlines measures every cell).
func Width(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return uniseg.StringWidth(s)
		}
	}
	return len(s)
}

// PadRight pads s with spaces to width terminal cells (a wider s is
// kept whole), as fmt's %-Ns does for ASCII.
func PadRight(s string, width int) string {
	return s + strings.Repeat(" ", max(0, width-Width(s)))
}
