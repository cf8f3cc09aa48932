package retrieve

import (
	"strings"
	"unicode"

	"github.com/retrieve-dev/retrieve/intl"
)

// QuoteOptions tune a quote check.
type QuoteOptions struct {
	// Loose matches modulo whitespace, case, Unicode normalization form
	// and full-width/half-width forms (intl.LooseFold).
	Loose bool
}

// Position is a 1-based line and column (in characters) in a document.
type Position struct {
	Line   int `json:"line" yaml:"line"`
	Column int `json:"column" yaml:"column"`
}

// FindQuote reports where text appears in data: byte offsets of the match,
// verbatim, or with loose modulo whitespace and case (the rules of Quote).
func FindQuote(data, text string, loose bool) (start, end int, ok bool) {
	if !loose {
		i := strings.Index(data, text)
		if i < 0 {
			return 0, 0, false
		}
		return i, i + len(text), true
	}
	nd, offsets := intl.LooseFold(data)
	nt, _ := intl.LooseFold(text)
	nt = strings.TrimSpace(nt)
	if nt == "" {
		return 0, 0, false
	}
	// A match must start and end on whole characters of data: "cafe" is
	// not found in "café" (decomposed: "cafe" + U+0301).
	boundary := func(k int) bool { return k == 0 || k >= len(offsets) || offsets[k] != offsets[k-1] }
	from := 0
	for {
		i := strings.Index(nd[from:], nt)
		if i < 0 {
			return 0, 0, false
		}
		i += from
		endIdx := i + len(nt) // exclusive, in normalized bytes
		if !boundary(i) || !boundary(endIdx) {
			from = i + 1
			continue
		}
		start := offsets[i]
		end := len(data)
		if endIdx < len(offsets) {
			end = offsets[endIdx]
		}
		// Do not end on trailing whitespace of the source.
		end = start + len(strings.TrimRightFunc(data[start:end], unicode.IsSpace))
		return start, end, true
	}
}
