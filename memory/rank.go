package memory

import (
	"math"
	"strings"
)

// The ranking of memory search is BM25 as SQLite FTS5's bm25() computes it
// (k1 1.2, b 0.75, the column weights title 10, tags 5, body 1 summed into
// one weighted frequency, the note's length its terms in all columns):
//
//	score = Σ over the query's phrases  IDF(phrase) × Impact(af, dl, avgdl)
//
// The impact of a phrase in a note does not depend on the other notes but
// through avgdl, so a store can precompute it (see docs/memory.md, "Top k
// without scoring every match").
const (
	BM25K1 = 1.2
	BM25B  = 0.75
)

// ColumnWeights are the weights of a hit in the title, the tags and the
// body.
var ColumnWeights = [3]float64{10, 5, 1}

// Impact is a phrase's BM25 part in a note without its IDF: af is the
// phrase's weighted hit count, dl the note's length in terms, avgdl the
// notes' average length.
func Impact(af, dl, avgdl float64) float64 {
	if af <= 0 {
		return 0
	}
	return RoundImpact(af * (BM25K1 + 1) / (af + BM25K1*(1-BM25B+BM25B*dl/avgdl)))
}

// RoundImpact rounds an impact to 1e-12 (impacts are below 2.2), so that
// the same hit counts and length give the same impact whether SQLite's
// bm25() or Go computed it, and ties stay ties (broken by path).
func RoundImpact(g float64) float64 { return math.Round(g*1e12) / 1e12 }

// MaxImpact bounds Impact: af grows without bound, the ratio does not.
const MaxImpact = BM25K1 + 1

// IDF is FTS5's inverse document frequency of a phrase found in df of n
// notes (a phrase in more than half the notes gets 1e-6, not a negative
// weight).
func IDF(n, df float64) float64 {
	idf := math.Log((n - df + 0.5) / (df + 0.5))
	if idf <= 0 {
		idf = 1e-6
	}
	return idf
}

// PhraseFreqs returns, for each single-term phrase, its weighted hit count
// in the analyzed note (a prefix phrase counts every term it starts), and
// the note's length in terms. A phrase of several terms counts 0: the
// caller scores those through the store's own index.
func (n *IndexNote) PhraseFreqs(phrases []IndexPhrase) (af []float64, dl int) {
	n.Analyze()
	af = make([]float64, len(phrases))
	for c, terms := range [3]string{n.TitleTerms, n.TagTerms, n.BodyTerms} {
		for t := range strings.FieldsSeq(terms) {
			dl++
			for i, p := range phrases {
				if len(p.Terms) != 1 {
					continue
				}
				if t == p.Terms[0] || p.Prefix && strings.HasPrefix(t, p.Terms[0]) {
					af[i] += ColumnWeights[c]
				}
			}
		}
	}
	return af, dl
}
