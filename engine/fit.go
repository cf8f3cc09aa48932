package engine

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"sort"
	"sync"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/extract"
)

// Fit holds a retrieval's data to a server's message budget, applied once
// to what extraction kept, before the result is cited: the cut falls on a
// line boundary (inside the first line only when it alone does not fit),
// and the citation, the anchors and extraction.next then describe exactly
// the data returned — no second retrieval. It is not a filter: the result
// reports it in extraction.budget, never in applied_filters.
type Fit struct {
	// MessageBytes is the call's message budget, reported.
	MessageBytes int
	// DataBytes is the most the data may cost.
	DataBytes int64
	// Cost is what a piece of data costs in the message as the transport
	// encodes it (JSON-escaped, once per copy). It must be additive: the
	// cost of a+b is the cost of a plus the cost of b.
	Cost func(s string) int64
	// Share, when set, is asked once what the data may cost after all,
	// given what the whole extracted data costs (0 when there is none);
	// DataBytes then only caps what extraction keeps. Retrievals sharing
	// one message (retrieve_many) decide their shares together through
	// it. It is not called when the retrieval fails before extraction.
	// While it waits for the others, Share may call trim with a bound its
	// share will not exceed: text data is cut to it at once, so that
	// waiting retrievals together hold about the message's budget, not
	// each its whole data (the final cut is the same).
	// cut weighs the result cut (Envelope), on demand: only when the
	// results do not all fit whole is it needed.
	Share func(cost ShareCost, cut func() int64, trim func(bound int64)) int64
	// Envelope, when set with Share, is what a result weighs in the
	// message around its data: it is given the result cited with empty
	// data (whole, and cut as the share would cut it) and whether the data
	// ends a line (false when it cannot tell), so that shares are given
	// from what the message can hold exactly, not from a guess.
	Envelope func(res *retrieve.Result, endsLine bool) int64
}

// ShareCost is what a retrieval tells Share: what its data costs, and what
// its result weighs around the data when whole and when cut (0 without
// Fit.Envelope; Cut 0 until weighed).
type ShareCost struct {
	Data, Whole, Cut int64
}

// RetrieveFit is Retrieve with the data held to fit.
func (e *Engine) RetrieveFit(ctx context.Context, req retrieve.Request, fit *Fit) (*retrieve.Result, error) {
	res, _, err := e.runFit(ctx, "get", req, fit)
	return res, err
}

// fitOutcome cuts out's data to fit and reports it. Structured data is
// not cut (a part of a JSON value is not JSON): over the budget it is
// TOO_LARGE, as over max_bytes.
func fitOutcome(out *outcome, fit *Fit, envelope func(o outcome, cut bool, dataBytes int64) int64) error {
	if fit == nil {
		return nil
	}
	trimmed := false
	if fit.Share != nil {
		var cost int64
		switch v := out.data.(type) {
		case string:
			cost = fit.Cost(v)
		case nil:
		default:
			cost = fit.Cost(bytesToString(out.dataBytes))
		}
		trim := func(bound int64) {
			if v, ok := out.data.(string); ok && out.format != "binary" && fit.Cost(v) > bound {
				f := *fit
				f.DataBytes = bound
				trimmed = fitText(out, &f) || trimmed
			}
		}
		sc := ShareCost{Data: cost}
		cut := func() int64 { return 0 }
		if fit.Envelope != nil && envelope != nil {
			snap := *out // trim changes out while Share waits
			cut = sync.OnceValue(func() int64 { return envelope(snap, true, fit.DataBytes) })
			if out.budgetCut {
				// Data extraction already stopped at the cap is cut, share
				// or not: it weighs as cut.
				sc.Whole = cut()
			} else {
				sc.Whole = envelope(*out, false, min(cost, fit.DataBytes))
			}
		}
		f := *fit
		f.DataBytes, f.Share = min(fit.Share(sc, cut, trim), fit.DataBytes), nil
		fit = &f
	}
	out.budget = &retrieve.BudgetReport{MessageBytes: fit.MessageBytes, DataBytes: fit.DataBytes}
	switch v := out.data.(type) {
	case nil:
		return nil
	case string:
		cut := trimmed
		switch {
		case out.format == "binary":
			cut = fitBinary(out, fit)
		case fit.Cost(v) > fit.DataBytes:
			cut = fitText(out, fit) || cut
		}
		if cut || out.budgetCut {
			markCut(out, fit)
		}
		return nil
	default:
		if cost := fit.Cost(string(out.dataBytes)); cost > fit.DataBytes {
			return retrieve.Errorf(retrieve.CodeTooLarge, "the selected data is %d bytes as JSON, over the %d bytes the server's message budget (%d) leaves for data", len(out.dataBytes), fit.DataBytes, fit.MessageBytes).
				WithHint("narrow it with select, or pass a larger budget")
		}
		return nil
	}
}

// fitRows keeps the most rows of a source's row array (Document.RowParts)
// that fit the message budget, and names them and the rest as parts; it
// reports false when it cannot (no row parts, a selection, not one row
// fits), and the data stays too large.
func fitRows(doc *retrieve.Document, out *outcome, fit *Fit) bool {
	rows, ok := out.data.([]any)
	if doc.RowParts == nil || !ok || out.selected != "" || out.budget == nil || len(rows) < 2 {
		return false
	}
	fits := func(n int) ([]byte, bool) {
		b, err := retrieve.CanonicalJSON(rows[:n])
		return b, err == nil && fit.Cost(string(b)) <= out.budget.DataBytes
	}
	// The largest n whose rows fit: cost grows with n.
	n := sort.Search(len(rows), func(i int) bool { _, ok := fits(i + 1); return !ok })
	if n == 0 {
		return false
	}
	b, _ := fits(n)
	out.data, out.dataBytes = rows[:n], b
	ref, next := doc.RowParts(n)
	out.reference, out.anchors = ref, []string{ref}
	doc.Next, doc.Incomplete = next, true
	markCut(out, fit)
	return true
}

// fitText keeps the longest prefix of whole lines that fits, or, when the
// first line alone does not, the longest prefix of it that ends on a
// character boundary.
func fitText(out *outcome, fit *Fit) bool {
	data := out.dataBytes
	var used int64
	keep, lines := 0, 0
	for keep < len(data) {
		end := bytes.IndexByte(data[keep:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += keep + 1
		}
		c := fit.Cost(bytesToString(data[keep:end]))
		if used+c > fit.DataBytes {
			break
		}
		used += c
		keep = end
		lines++
	}
	midLine := false
	if keep == 0 && !out.byteSpans {
		// One line longer than the whole share: cut it at a character
		// boundary, as max_bytes does.
		midLine = true
		for keep < len(data) {
			_, size := utf8.DecodeRune(data[keep:])
			c := fit.Cost(bytesToString(data[keep : keep+size]))
			if used+c > fit.DataBytes || data[keep] == '\n' {
				break
			}
			used += c
			keep += size
		}
		lines = 1
	}
	if out.byteSpans {
		// Byte ranges are cut at a character boundary, wherever it falls.
		keep = 0
		used = 0
		for keep < len(data) {
			_, size := utf8.DecodeRune(data[keep:])
			c := fit.Cost(bytesToString(data[keep : keep+size]))
			if used+c > fit.DataBytes {
				break
			}
			used += c
			keep += size
		}
		out.spans = keepBytes(out.spans, keep)
	} else if !midLine || len(out.spans) > 0 {
		out.spans = keepLines(out.spans, lines)
	}
	out.dataBytes = data[:keep]
	out.data = bytesToString(out.dataBytes)
	out.cutMidLine = out.cutMidLine || midLine
	return true
}

// fitBinary keeps the longest prefix of binary data whose base64 fits.
func fitBinary(out *outcome, fit *Fit) bool {
	per := max(fit.Cost("A"), 1)
	n := int(fit.DataBytes/per) / 4 * 3
	if n >= len(out.dataBytes) {
		return false
	}
	out.dataBytes = out.dataBytes[:n]
	out.data = base64.StdEncoding.EncodeToString(out.dataBytes)
	out.spans = keepBytes(out.spans, n)
	return true
}

// rawCap is the most raw bytes the budget could hold (a plain byte costs
// the least); 0 without a budget.
func (f *Fit) rawCap() int64 {
	if f == nil {
		return 0
	}
	return f.DataBytes / max(f.Cost("a"), 1)
}

// markCut records a cut by the budget: the data is truncated and no longer
// complete, and the confidence loses what a max_bytes cut loses (once).
func markCut(out *outcome, fit *Fit) {
	out.budget.Cut = true
	out.complete = false
	if !slices.ContainsFunc(out.deductions, func(d retrieve.Deduction) bool { return d.Reason == "truncated" }) {
		out.deductions = append(out.deductions, retrieve.Deduction{Reason: "truncated", Amount: 0.1})
	}
	out.truncated = true
	out.assumptions = append(out.assumptions, fmt.Sprintf("The server's message budget (%d bytes) held %d bytes of data (extraction.budget): read the next part with extraction.next",
		fit.MessageBytes, len(out.dataBytes)))
}

// keepLines is spans cut to their first n lines.
func keepLines(spans []extract.Range, n int) []extract.Range {
	var kept []extract.Range
	for _, s := range spans {
		if n <= 0 {
			break
		}
		lines := s.End - s.Start + 1
		if lines > n {
			s.End = s.Start + n - 1
		}
		kept = append(kept, s)
		n -= s.End - s.Start + 1
	}
	return kept
}

// keepBytes is byte spans cut to their first n bytes.
func keepBytes(spans []extract.Range, n int) []extract.Range {
	var kept []extract.Range
	for _, s := range spans {
		if n <= 0 {
			break
		}
		size := s.End - s.Start + 1
		if size > n {
			s.End = s.Start + n - 1
		}
		kept = append(kept, s)
		n -= s.End - s.Start + 1
	}
	return kept
}
