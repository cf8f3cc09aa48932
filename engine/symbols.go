package engine

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"path"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/extract"
)

// symbols selects the code symbols that the section selectors name: each
// symbol is one span with its own anchor; with --lines, only the symbols
// inside the line ranges.
func (e *Engine) symbols(ctx context.Context, req *retrieve.Request, doc *retrieve.Document, br *bufio.Reader, format string, limit int64, out *outcome) (*extract.LinesResult, error) {
	src, err := io.ReadAll(io.LimitReader(br, e.parseLimit+1))
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	if int64(len(src)) > e.parseLimit {
		return nil, retrieve.Errorf(retrieve.CodeTooLarge, "%s is larger than the %d-byte limit for symbol selection", doc.Locator, e.parseLimit).
			WithHint("use --lines instead")
	}
	o, err := e.parseCode(ctx, format, src, "")
	if err != nil {
		return nil, err
	}
	if o.SyntaxErrors {
		out.assumptions = append(out.assumptions, fmt.Sprintf("The %s parser met syntax errors in %s: symbol spans are a best effort", format, doc.Locator))
		out.deductions = append(out.deductions, retrieve.Deduction{Reason: "syntax errors in the source", Amount: 0.1})
	}
	syms, err := e.code.Select(o, req.Constraints.Sections)
	if err != nil {
		return nil, err
	}
	if req.Constraints.Lines != "" {
		lines, err := extract.ParseRanges(req.Constraints.Lines)
		if err != nil {
			return nil, err
		}
		var inside []retrieve.CodeSymbol
		var alts []string
		for _, s := range syms {
			if within(s, lines) {
				inside = append(inside, s)
			} else {
				alts = append(alts, fmt.Sprintf("%s:%d-%d", doc.Locator, s.StartLine, s.EndLine))
			}
		}
		if len(inside) == 0 {
			err := retrieve.Errorf(retrieve.CodeSectionNotFound, "no selected symbol lies within lines %s", req.Constraints.Lines).
				WithHint("widen --lines or drop it; alternatives lists where the selected symbols are")
			err.Alternatives = alts
			return nil, err
		}
		syms = inside
	}
	ranges := make([]extract.Range, len(syms))
	for i, s := range syms {
		ranges[i] = extract.Range{Start: s.StartLine, End: s.EndLine}
	}
	sel, err := extract.Lines(bytes.NewReader(src), ranges, limit)
	if err != nil {
		return nil, err
	}
	sel.Spans = splitSpans(sel.Spans, ranges)
	return sel, nil
}

// within reports whether the symbol lies entirely inside one of the line
// ranges (End 0 = to the end).
func within(s retrieve.CodeSymbol, lines []extract.Range) bool {
	for _, r := range lines {
		if s.StartLine >= r.Start && (r.End == 0 || s.EndLine <= r.End) {
			return true
		}
	}
	return false
}

// splitSpans splits the spans that extract.Lines merged from adjacent
// symbols back into one span per symbol: every symbol keeps its own
// anchor. A span is split only where the symbols tile it exactly.
func splitSpans(spans, syms []extract.Range) []extract.Range {
	out := make([]extract.Range, 0, len(spans))
	for _, sp := range spans {
		var parts []extract.Range
		next := sp.Start
		for _, r := range syms {
			if r.Start < sp.Start || r.Start > sp.End {
				continue
			}
			if r.Start != next {
				parts = nil
				break
			}
			end := min(r.End, sp.End)
			parts = append(parts, extract.Range{Start: r.Start, End: end})
			next = end + 1
		}
		if len(parts) > 1 && next == sp.End+1 {
			out = append(out, parts...)
		} else {
			out = append(out, sp)
		}
	}
	return out
}

// CanOutline reports whether Outline parses a file named name: its
// extension is a language of the engine's code parser.
func (e *Engine) CanOutline(name string) bool {
	return e.isCode(extract.Detect(path.Base(name), nil))
}

// Outline lists the symbols of a source file, read through its source like
// any retrieval (roots, deny list, git revisions), without recording it.
// kinds, when not empty, keeps only the symbols of those kinds.
func (e *Engine) Outline(ctx context.Context, target string, kinds []string) (*retrieve.FileOutline, error) {
	req := retrieve.Request{Target: target, NoRecord: true}
	if req.Target == "" {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "target is required").WithHint("pass the path of a source file")
	}
	src, err := e.reg.Resolve(&req)
	if err != nil {
		return nil, err
	}
	if err := e.splitReferenceLines(&req); err != nil {
		return nil, err
	}
	doc, err := src.Fetch(ctx, &req)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", target, err)
	}
	if doc.Body == nil {
		return nil, retrieve.Errorf(retrieve.CodeUnsupportedFormat, "%s is structured data, not a source file", target).
			WithHint("outline takes source files: %s", e.codeLanguages())
	}
	defer doc.Body.Close()
	b, err := io.ReadAll(io.LimitReader(ctxReader{ctx, doc.Body}, e.parseLimit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", target, err)
	}
	if int64(len(b)) > e.parseLimit {
		return nil, retrieve.Errorf(retrieve.CodeTooLarge, "%s is larger than the %d-byte parse limit", target, e.parseLimit).
			WithHint("outline a smaller file")
	}
	// The outline cache keys on the hash of the bytes parsed: the file's
	// own unless a byte order mark is cut.
	parsedHash := retrieve.HashBytes(b)
	hash := parsedHash
	if doc.SourceHash != "" {
		hash = doc.SourceHash
	}
	if bytes.HasPrefix(b, []byte(extract.BOM)) {
		b = b[len(extract.BOM):]
		parsedHash = ""
	}
	format := doc.Format
	if format == "" {
		format = extract.Detect(doc.Name, b[:min(len(b), 8192)])
	}
	if !e.isCode(format) {
		return nil, retrieve.Errorf(retrieve.CodeUnsupportedFormat, "%s is %s, not a source file retrieve can outline", doc.Locator, format).
			WithHint("outline takes source files: %s; markdown headings are listed by retrieve get --section", e.codeLanguages())
	}
	o, err := e.parseCode(ctx, format, b, parsedHash)
	if err != nil {
		return nil, err
	}
	keep := func(k string) bool {
		if len(kinds) == 0 {
			return true
		}
		for _, want := range kinds {
			if e.code.MatchKind(want, k) {
				return true
			}
		}
		return false
	}
	fo := &retrieve.FileOutline{Target: doc.Locator, Language: o.Language, Version: doc.Version, SourceHash: hash, SyntaxErrors: o.SyntaxErrors, Symbols: []retrieve.OutlineSymbol{}}
	for _, s := range o.Symbols {
		if !keep(s.Kind) {
			continue
		}
		fo.Symbols = append(fo.Symbols, retrieve.OutlineSymbol{
			Name: s.Name, Kind: s.Kind, Parent: s.Parent, Path: s.Path,
			StartLine: s.StartLine, EndLine: s.EndLine,
			Anchor: fmt.Sprintf("%s:%d-%d", doc.Locator, s.StartLine, s.EndLine),
		})
	}
	return fo, nil
}
