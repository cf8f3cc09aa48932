package retrieve

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

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

// Quote checks that text appears verbatim (or, loosely, modulo whitespace
// and case) in what ref names. On success the result cites the lines that
// hold the quotation: data is those lines, the anchors give the exact
// location as path:LINE:COL-LINE:COL (1-based, in characters, both ends
// inclusive), and provenance.metadata.quote holds
// the matched text and its positions. Otherwise the error is
// QUOTE_NOT_FOUND with the closest passage, marked as not matching.
func (e *Engine) Quote(ctx context.Context, ref, text string, opts QuoteOptions) (*Result, error) {
	if strings.TrimSpace(text) == "" {
		err := Errorf(CodeInputValidation, "the quotation is empty").WithHint(`pass the text to check: retrieve quote REF "text"`)
		return FailureResult(Request{Target: ref}, e.now(), err), err
	}
	src, err := e.run(ctx, "quote-source", Request{Target: ref, NoRecord: true, Format: "text"})
	if err != nil {
		return src, err
	}
	data, ok := src.Retrieved.Data.(string)
	if !ok {
		err := Errorf(CodeUnsupportedFormat, "%s is not text; quotations are checked in text", ref).
			WithHint("quote from a text document or a line span of it")
		return FailureResult(Request{Target: ref}, e.now(), err), err
	}
	lineMap := spanLines(src)
	start, end, found := findQuote(data, text, opts.Loose)
	if !found {
		qerr := Errorf(CodeQuoteNotFound, "the quotation does not appear in %s", src.Citation.Reference).
			WithHint("quote the source verbatim; --loose ignores whitespace, case, normalization form and full-width/half-width forms")
		if l1, l2, passage, ok := closestPassage(data, text); ok {
			loc := fmt.Sprintf("%s:%d-%d", locatorOf(src.Citation.Reference), lineMap(l1), lineMap(l2))
			qerr.Message += fmt.Sprintf("; the closest passage, which does NOT match, is %s: %q", loc, passage)
			qerr.Alternatives = []string{loc}
		}
		req := Request{Target: ref}
		res := FailureResult(req, e.now(), qerr)
		e.recordQuote(ctx, req, res)
		return res, qerr
	}
	// The end column is that of the last character, inclusive.
	_, lastSize := utf8.DecodeLastRuneInString(data[start:end])
	p1, p2 := position(data, start), position(data, end-lastSize)
	p1.Line, p2.Line = lineMap(p1.Line), lineMap(p2.Line)
	loc := locatorOf(src.Citation.Reference)
	// Cite whole lines, so the reference re-retrieves exactly the data.
	req := Request{Target: fmt.Sprintf("%s:%d-%d", loc, p1.Line, p2.Line), Source: src.Provenance.SourceType}
	isWeb := ParseReference(loc).Scheme == "web"
	if isWeb {
		// A URL takes no line suffix: the lines go in the constraint, and the
		// anchor is a text fragment a browser highlights.
		req = Request{Target: loc, Source: src.Provenance.SourceType, Constraints: Constraints{Lines: fmt.Sprintf("%d-%d", p1.Line, p2.Line)}}
	}
	res, err := e.run(ctx, "quote", req)
	if err != nil {
		return res, err
	}
	res.EvidenceAnchors = []string{fmt.Sprintf("%s:%d:%d-%d:%d", loc, p1.Line, p1.Column, p2.Line, p2.Column)}
	if isWeb {
		res.EvidenceAnchors = []string{loc + "#:~:text=" + TextFragment(data[start:end])}
	}
	res.Provenance.Metadata["quote"] = map[string]any{
		"text":    data[start:end],
		"start":   p1,
		"end":     p2,
		"loose":   opts.Loose,
		"matched": true,
	}
	return res, nil
}

func (e *Engine) recordQuote(ctx context.Context, req Request, res *Result) {
	if e.store != nil {
		e.record(ctx, "quote", req, res, nil, "", e.now(), 0)
	}
}

// locatorOf strips the line span of a reference.
func locatorOf(ref string) string {
	r := ParseReference(ref)
	r.Lines = ""
	return r.String()
}

// spanLines maps a line number of the returned data (1-based) to the line
// number in the source, from the result's evidence anchors.
func spanLines(res *Result) func(int) int {
	type span struct{ start, end int }
	var spans []span
	for _, a := range res.EvidenceAnchors {
		r := ParseReference(a)
		var s, e int
		if _, err := fmt.Sscanf(r.Lines, "%d-%d", &s, &e); err == nil {
			spans = append(spans, span{s, e})
		}
	}
	return func(n int) int {
		for _, s := range spans {
			size := s.end - s.start + 1
			if n <= size {
				return s.start + n - 1
			}
			n -= size
		}
		return n
	}
}

// findQuote returns the byte offsets in data of text.
func findQuote(data, text string, loose bool) (int, int, bool) {
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

// position turns a byte offset of data into a 1-based line and character column.
func position(data string, off int) Position {
	line := strings.Count(data[:off], "\n") + 1
	lineStart := strings.LastIndexByte(data[:off], '\n') + 1
	return Position{Line: line, Column: utf8.RuneCountInString(data[lineStart:off]) + 1}
}

// closestPassage finds the window of lines that shares the most words with
// text. It returns 1-based line numbers in data.
func closestPassage(data, text string) (int, int, string, bool) {
	lines := strings.SplitAfter(data, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	want := words(text)
	if len(want) == 0 || len(lines) == 0 {
		return 0, 0, "", false
	}
	k := max(1, strings.Count(strings.TrimSpace(text), "\n")+1)
	best, bestScore := -1, 0.0
	for i := 0; i+k <= len(lines) || (i == 0 && len(lines) < k); i++ {
		end := min(i+k, len(lines))
		got := words(strings.Join(lines[i:end], ""))
		common := 0
		for w := range want {
			if got[w] {
				common++
			}
		}
		score := float64(common) / float64(len(want)+len(got)-common)
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return 0, 0, "", false
	}
	end := min(best+k, len(lines))
	return best + 1, end, strings.TrimRight(strings.Join(lines[best:end], ""), "\n"), true
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
		m[w] = true
	}
	return m
}
