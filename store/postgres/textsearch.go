package postgres

import (
	"sort"
	"strconv"
	"strings"

	"github.com/retrieve-dev/retrieve/memory"
)

// PostgreSQL's tsvector limits: positions 1..16383, at most 256 positions
// per lexeme.
const (
	maxTSPosition  = 16383
	maxTSPositions = 256
)

// weightedTerms is one field of a document: its index terms (separated by
// spaces, intl.IndexText) and the weight (A..D) they get.
type weightedTerms struct {
	terms  string
	weight byte
}

// tsvectorLiteral writes the tsvector of fields as a literal that
// ::tsvector reads without any parser or configuration: every term a
// lexeme, its positions in term order across the fields (as the SQLite
// FTS5 columns count them), each with its field's weight.
func tsvectorLiteral(fields ...weightedTerms) string {
	type posList struct{ pos []string }
	lex := map[string]*posList{}
	pos := 0
	for _, f := range fields {
		for t := range strings.FieldsSeq(f.terms) {
			pos++
			p := lex[t]
			if p == nil {
				p = &posList{}
				lex[t] = p
			}
			if len(p.pos) < maxTSPositions {
				p.pos = append(p.pos, strconv.Itoa(min(pos, maxTSPosition))+string(f.weight))
			}
		}
	}
	keys := make([]string, 0, len(lex))
	for k := range lex {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(tsQuote(k))
		b.WriteByte(':')
		b.WriteString(strings.Join(lex[k].pos, ","))
	}
	return b.String()
}

// tsQuote quotes a lexeme for a tsvector or tsquery literal.
func tsQuote(t string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(t, `\`, `\\`), "'", "''") + "'"
}

// tsqueryLiteral writes a memory query as a tsquery literal: each phrase's
// terms joined by <-> (adjacent), the last one :* when it is a prefix, the
// phrases joined by & or |. It is "" for a query without terms.
func tsqueryLiteral(q memory.IndexQuery) string {
	parts := make([]string, 0, len(q.Phrases))
	for _, p := range q.Phrases {
		if len(p.Terms) == 0 {
			continue
		}
		ts := make([]string, len(p.Terms))
		for i, t := range p.Terms {
			ts[i] = tsQuote(t)
		}
		if p.Prefix {
			ts[len(ts)-1] += ":*"
		}
		s := strings.Join(ts, " <-> ")
		if len(ts) > 1 {
			s = "(" + s + ")"
		}
		parts = append(parts, s)
	}
	op := " & "
	if q.Any {
		op = " | "
	}
	return strings.Join(parts, op)
}
