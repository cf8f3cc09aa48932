package engine

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve"
)

// Quote checks that text appears verbatim (or, loosely, modulo whitespace
// and case) in what ref names. On success the result cites the lines that
// hold the quotation: data is those lines, the anchors give the exact
// location as path:LINE:COL-LINE:COL (1-based, in characters, both ends
// inclusive), and provenance.metadata.quote holds
// the matched text and its positions. Otherwise the error is
// QUOTE_NOT_FOUND with the closest passage, marked as not matching.
func (e *Engine) Quote(ctx context.Context, ref, text string, opts retrieve.QuoteOptions) (*retrieve.Result, error) {
	if strings.TrimSpace(text) == "" {
		err := retrieve.Errorf(retrieve.CodeInputValidation, "the quotation is empty").WithHint(`pass the text to check: retrieve quote REF "text"`)
		return retrieve.FailureResult(retrieve.Request{Target: ref}, e.now(), err), err
	}
	src, srcFacts, err := e.run(ctx, "quote-source", retrieve.Request{Target: ref, NoRecord: true, Format: "text"})
	if err != nil {
		return src, err
	}
	data, ok := src.Retrieved.Data.(string)
	if !ok {
		err := retrieve.Errorf(retrieve.CodeUnsupportedFormat, "%s is not text; quotations are checked in text", ref).
			WithHint("quote from a text document or a line span of it")
		return retrieve.FailureResult(retrieve.Request{Target: ref}, e.now(), err), err
	}
	lineMap := e.spanLines(src)
	start, end, found := retrieve.FindQuote(data, text, opts.Loose)
	if !found {
		qerr := retrieve.Errorf(retrieve.CodeQuoteNotFound, "the quotation does not appear in %s", src.Citation.Reference).
			WithHint("quote the source verbatim; --loose ignores whitespace, case, normalization form and full-width/half-width forms")
		if l1, l2, passage, ok := closestPassage(data, text); ok {
			loc := fmt.Sprintf("%s:%d-%d", e.locatorOf(src.Citation.Reference), lineMap(l1), lineMap(l2))
			qerr.Message += fmt.Sprintf("; the closest passage, which does NOT match, is %s: %q", loc, passage)
			qerr.Alternatives = []string{loc}
		}
		req := retrieve.Request{Target: ref}
		res := retrieve.FailureResult(req, e.now(), qerr)
		e.recordQuote(ctx, req, res)
		return res, qerr
	}
	// The end column is that of the last character, inclusive.
	_, lastSize := utf8.DecodeLastRuneInString(data[start:end])
	p1, p2 := position(data, start), position(data, end-lastSize)
	p1.Line, p2.Line = lineMap(p1.Line), lineMap(p2.Line)
	loc := e.locatorOf(src.Citation.Reference)
	// Cite whole lines, so the reference re-retrieves exactly the data.
	req := retrieve.Request{Target: fmt.Sprintf("%s:%d-%d", loc, p1.Line, p2.Line), Source: src.Provenance.SourceType}
	if _, doc := src.Provenance.Metadata["extractor"]; doc && !srcFacts.TextFragments {
		// In a document, the lines of the one part that holds the
		// quotation (report.pdf#page=2:3-3) rather than of the whole text.
		if part, q1, q2, ok := e.partQuote(ctx, req, loc, text, opts.Loose); ok {
			req.Target, loc, p1, p2 = fmt.Sprintf("%s:%d-%d", part, q1.Line, q2.Line), part, q1, q2
		}
	}
	fragments := srcFacts.TextFragments
	if fragments {
		// A URL takes no line suffix: the lines go in the constraint, and the
		// anchor is a text fragment a browser highlights.
		req = retrieve.Request{Target: loc, Source: src.Provenance.SourceType, Constraints: retrieve.Constraints{Lines: fmt.Sprintf("%d-%d", p1.Line, p2.Line)}}
	}
	res, _, err := e.run(ctx, "quote", req)
	if err != nil {
		return res, err
	}
	// A document's anchors name the parts the lines lie in (report.pdf#page=3&box=…): kept.
	parts := e.partAnchors(res.EvidenceAnchors, e.locatorOf(src.Citation.Reference))
	res.EvidenceAnchors = append([]string{fmt.Sprintf("%s:%d:%d-%d:%d", loc, p1.Line, p1.Column, p2.Line, p2.Column)}, parts...)
	if fragments {
		res.EvidenceAnchors = []string{loc + "#:~:text=" + retrieve.TextFragment(data[start:end])}
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

// partAnchors returns the anchors that name a part of the document at
// loc (report.pdf#page=3&box=…), leaving out line spans, byte ranges and
// text fragments.
func (e *Engine) partAnchors(anchors []string, loc string) []string {
	var parts []string
	for _, a := range anchors {
		frag, ok := strings.CutPrefix(a, loc+"#")
		if ok && !strings.HasPrefix(frag, ":~:") && !strings.HasPrefix(frag, "bytes=") && e.reg.ParseReference(a).Lines == "" {
			parts = append(parts, a)
		}
	}
	return parts
}

// partQuote finds the one part of a document that holds a quotation whose
// lines of the whole text req names, and the quotation's positions in that
// part's text: the citation then names the part's lines
// (report.pdf#page=2:3-3), itself a target. ok is false when the lines
// cross parts or the part has no kind=N fragment (a sheet range, whose
// fragment a line suffix would make ambiguous): the whole text's lines
// are cited then.
func (e *Engine) partQuote(ctx context.Context, req retrieve.Request, loc, text string, loose bool) (part string, p1, p2 retrieve.Position, ok bool) {
	req.NoRecord, req.Format = true, "text"
	probe, _, err := e.run(ctx, "quote-source", req)
	if err != nil {
		return "", p1, p2, false
	}
	for _, a := range e.partAnchors(probe.EvidenceAnchors, loc) {
		ref, _, _ := strings.Cut(a, "&")
		if part != "" && ref != part {
			return "", p1, p2, false
		}
		part = ref
	}
	frag := strings.TrimPrefix(part, loc+"#")
	if part == "" || !strings.Contains(frag, "=") || strings.ContainsAny(frag, "!:,-") {
		return "", p1, p2, false
	}
	one, _, err := e.run(ctx, "quote-source", retrieve.Request{Target: part, Source: req.Source, NoRecord: true, Format: "text"})
	if err != nil {
		return "", p1, p2, false
	}
	data, isText := one.Retrieved.Data.(string)
	if !isText {
		return "", p1, p2, false
	}
	start, end, found := retrieve.FindQuote(data, text, loose)
	if !found {
		return "", p1, p2, false
	}
	_, lastSize := utf8.DecodeLastRuneInString(data[start:end])
	return part, position(data, start), position(data, end-lastSize), true
}

func (e *Engine) recordQuote(ctx context.Context, req retrieve.Request, res *retrieve.Result) {
	if e.store != nil {
		e.record(ctx, "quote", req, res, nil, kept{}, e.now(), 0)
	}
}

// locatorOf strips the line span of a reference, as the registry parses it.
func (e *Engine) locatorOf(ref string) string {
	r := e.reg.ParseReference(ref)
	r.Lines = ""
	return r.String()
}

// spanLines maps a line number of the returned data (1-based) to the line
// number in the source, from the result's evidence anchors.
func (e *Engine) spanLines(res *retrieve.Result) func(int) int {
	type span struct{ start, end int }
	var spans []span
	for _, a := range res.EvidenceAnchors {
		r := e.reg.ParseReference(a)
		var s, end int
		if _, err := fmt.Sscanf(r.Lines, "%d-%d", &s, &end); err == nil {
			spans = append(spans, span{s, end})
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

// position turns a byte offset of data into a 1-based line and character column.
func position(data string, off int) retrieve.Position {
	line := strings.Count(data[:off], "\n") + 1
	lineStart := strings.LastIndexByte(data[:off], '\n') + 1
	return retrieve.Position{Line: line, Column: utf8.RuneCountInString(data[lineStart:off]) + 1}
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
