// Package langcorpus generates multilingual test corpora with known
// answers: notes in Chinese, Japanese, Korean, German, French, Russian and
// mixed Chinese/English, each holding one key word (a word of two
// characters or more inside a sentence, inflected or with a particle
// attached), and the queries that must find it. Tests measure recall@k of
// the memory search and of the graph's seed finding on it; the benchmarks
// of docs/memory.md compare segmentations on it.
package langcorpus

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"golang.org/x/text/width"
)

// Languages are the generated languages, in report order.
var Languages = []string{"zh", "ja", "ko", "de", "fr", "ru", "mixed"}

// Note is one generated note.
type Note struct {
	Lang  string
	Title string
	Body  string
	// Key is the word the note is about, as the body holds it (without the
	// inflection or particle the body adds).
	Key string
}

// Query is a search with its known answer.
type Query struct {
	Lang string
	Text string
	// Want is the index in Corpus.Notes of the note that must be found.
	Want int
}

// Corpus is a generated corpus.
type Corpus struct {
	Notes   []Note
	Queries []Query
}

// Generate makes n notes per language (CJK: nCJK for Chinese) with a fixed
// seed, and one query per note whose key occurs in no other note (queries
// for ambiguous keys are left out). Some queries are written differently
// from the note: without diacritics (de, fr), in another case form (ru), in
// half-width katakana (ja), inside a question (zh).
func Generate(seed uint64, nCJK, n int) *Corpus {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	c := &Corpus{}
	type gen struct {
		lang string
		n    int
		make func(r *rand.Rand, i int) (Note, string)
	}
	zhPool := pool(r, 0x4E00, 0x9FA5, 2500)
	jaKanji := pool(r, 0x4E00, 0x9FA5, 1200)
	koPool := pool(r, 0xAC00, 0xD7A3, 1500)
	zhVocab := words(r, 3000, func() string { return pick(r, zhPool, 2+r.IntN(2)) })
	jaVocab := words(r, 2000, func() string {
		if r.IntN(3) == 0 {
			return katakanaWord(r)
		}
		return pick(r, jaKanji, 2)
	})
	koVocab := words(r, 2000, func() string { return pick(r, koPool, 2+r.IntN(2)) })
	deVocab := words(r, 2000, func() string { return latinWord(r, deSyl) })
	frVocab := words(r, 2000, func() string { return latinWord(r, frSyl) })
	ruVocab := words(r, 2000, func() string { return latinWord(r, ruSyl) })
	enVocab := words(r, 2000, func() string { return latinWord(r, enSyl) })
	particlesJa := []string{"の", "が", "を", "に", "は", "で", "と", "から"}
	particlesKo := []string{"이", "가", "을", "를", "은", "는", "에서", "의"}
	gens := []gen{
		{"zh", nCJK, func(r *rand.Rand, i int) (Note, string) {
			key := pick(r, zhPool, 2+r.IntN(3))
			body := sentences(r, 8, func() string { return zhVocab[zipf(r, len(zhVocab))] }, "", "，", "。", key)
			q := key
			if i%4 == 0 {
				q = "为什么" + key + "会失败?"
			}
			return Note{Title: zhVocab[r.IntN(len(zhVocab))] + zhVocab[r.IntN(len(zhVocab))], Body: body, Key: key}, q
		}},
		{"ja", n, func(r *rand.Rand, i int) (Note, string) {
			var key string
			if i%2 == 0 {
				key = katakanaWord(r)
			} else {
				key = pick(r, jaKanji, 2+r.IntN(2))
			}
			w := func() string { return jaVocab[zipf(r, len(jaVocab))] + particlesJa[r.IntN(len(particlesJa))] }
			body := sentences(r, 8, w, "", "、", "。", key+particlesJa[r.IntN(len(particlesJa))])
			q := key
			if i%6 == 0 {
				q = width.Narrow.String(key) // half-width katakana
			}
			return Note{Title: jaVocab[r.IntN(len(jaVocab))], Body: body, Key: key}, q
		}},
		{"ko", n, func(r *rand.Rand, i int) (Note, string) {
			key := pick(r, koPool, 2+r.IntN(2))
			w := func() string { return koVocab[zipf(r, len(koVocab))] + particlesKo[r.IntN(len(particlesKo))] }
			body := sentences(r, 8, w, " ", " ", ". ", key+particlesKo[r.IntN(len(particlesKo))])
			return Note{Title: koVocab[r.IntN(len(koVocab))], Body: body, Key: key}, key
		}},
		{"de", n, func(r *rand.Rand, i int) (Note, string) {
			key := latinWord(r, deSyl) + "ung"
			body := sentences(r, 8, func() string { return deVocab[zipf(r, len(deVocab))] }, " ", " ", ". ", key+"en")
			return Note{Title: capital(deVocab[r.IntN(len(deVocab))]), Body: body, Key: key}, fold(key) + "en"
		}},
		{"fr", n, func(r *rand.Rand, i int) (Note, string) {
			key := latinWord(r, frSyl) + "é"
			body := sentences(r, 8, func() string { return frVocab[zipf(r, len(frVocab))] }, " ", " ", ". ", key+"s")
			return Note{Title: capital(frVocab[r.IntN(len(frVocab))]), Body: body, Key: key}, fold(key)
		}},
		{"ru", n, func(r *rand.Rand, i int) (Note, string) {
			key := latinWord(r, ruSyl) + "к"
			body := sentences(r, 8, func() string { return ruVocab[zipf(r, len(ruVocab))] }, " ", " ", ". ", key+"ами")
			return Note{Title: capital(ruVocab[r.IntN(len(ruVocab))]), Body: body, Key: key}, key + "а"
		}},
		{"mixed", n, func(r *rand.Rand, i int) (Note, string) {
			w := func() string {
				if r.IntN(2) == 0 {
					return zhVocab[zipf(r, len(zhVocab))]
				}
				return " " + enVocab[zipf(r, len(enVocab))] + " "
			}
			var key, inBody string
			if i%2 == 0 {
				key = latinWord(r, enSyl)
				inBody = " " + key + "ing "
			} else {
				key = pick(r, zhPool, 2+r.IntN(2))
				inBody = key
			}
			body := sentences(r, 8, w, "", "，", "。", inBody)
			return Note{Title: enVocab[r.IntN(len(enVocab))] + " " + zhVocab[r.IntN(len(zhVocab))], Body: body, Key: key}, key
		}},
	}
	for _, g := range gens {
		first := len(c.Notes)
		var qs []string
		for i := range g.n {
			note, q := g.make(r, i)
			note.Lang = g.lang
			c.Notes = append(c.Notes, note)
			qs = append(qs, q)
		}
		// Keep the queries whose key is in exactly one note of the corpus
		// (ambiguous keys have no single right answer).
		notes := c.Notes[first:]
		count := map[string]int{}
		for _, n := range notes {
			count[n.Key] = 0
		}
		for _, n := range notes {
			text := strings.ToLower(n.Title + " " + n.Body)
			for k := range substrings(text, count) {
				count[k]++
			}
		}
		for i, n := range notes {
			if count[n.Key] == 1 {
				c.Queries = append(c.Queries, Query{Lang: g.lang, Text: qs[i], Want: first + i})
			}
		}
	}
	return c
}

// substrings returns the keys of keys that occur in text.
func substrings(text string, keys map[string]int) map[string]bool {
	lens := map[int]bool{}
	for k := range keys {
		lens[len(k)] = true
	}
	out := map[string]bool{}
	for i := range text {
		for l := range lens {
			if i+l <= len(text) {
				if _, ok := keys[text[i:i+l]]; ok {
					out[text[i:i+l]] = true
				}
			}
		}
	}
	return out
}

var (
	deSyl = []string{"ba", "ge", "mü", "lö", "ster", "rä", "ko", "wi", "ßen", "ta", "nu", "schä", "dre", "fa"}
	frSyl = []string{"ré", "vè", "ça", "mo", "li", "pé", "tê", "ro", "du", "na", "sé", "ga", "cô", "bi"}
	ruSyl = []string{"ка", "ро", "ми", "ле", "ту", "на", "ве", "зо", "ши", "да", "пу", "ры", "ло", "жи"}
	enSyl = []string{"ka", "ro", "mi", "le", "tu", "na", "ve", "zo", "shi", "da", "pu", "ry", "lo", "ji"}
)

func pool(r *rand.Rand, lo, hi rune, n int) []rune {
	seen := map[rune]bool{}
	var out []rune
	for len(out) < n {
		c := lo + rune(r.IntN(int(hi-lo)))
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

func pick(r *rand.Rand, p []rune, n int) string {
	b := make([]rune, n)
	for i := range b {
		b[i] = p[r.IntN(len(p))]
	}
	return string(b)
}

func words(r *rand.Rand, n int, f func() string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = f()
	}
	return out
}

func katakanaWord(r *rand.Rand) string {
	b := make([]rune, 3+r.IntN(3))
	for i := range b {
		b[i] = 0x30A2 + rune(r.IntN(0x30F3-0x30A2))
	}
	if r.IntN(3) == 0 {
		b = append(b, 'ー')
	}
	return string(b)
}

func latinWord(r *rand.Rand, syl []string) string {
	var b strings.Builder
	for range 2 + r.IntN(3) {
		b.WriteString(syl[r.IntN(len(syl))])
	}
	return b.String()
}

// zipf picks common words more often, as real text does.
func zipf(r *rand.Rand, n int) int {
	return min(n-1, int(float64(n)*r.Float64()*r.Float64()*r.Float64()))
}

// sentences writes about n sentences of words, with key inside one of
// them (between two words, no separator around it in CJK text).
func sentences(r *rand.Rand, n int, word func() string, sep, comma, stop, key string) string {
	var b strings.Builder
	at := r.IntN(n*6-2) + 1
	k := 0
	for s := range n {
		for w := range 6 {
			if w > 0 {
				if r.IntN(4) == 0 {
					b.WriteString(comma)
				} else {
					b.WriteString(sep)
				}
			}
			b.WriteString(word())
			k++
			if k == at {
				b.WriteString(sep)
				b.WriteString(key)
			}
		}
		b.WriteString(stop)
		_ = s
	}
	return b.String()
}

func capital(s string) string {
	rs := []rune(s)
	rs[0] = []rune(strings.ToUpper(string(rs[0])))[0]
	return string(rs)
}

// fold writes a word as one types it without accents.
func fold(s string) string {
	return strings.NewReplacer("ü", "u", "ö", "o", "ä", "a", "ß", "ss", "é", "e", "è", "e", "ç", "c", "ê", "e", "ô", "o").Replace(s)
}

// String summarizes the corpus.
func (c *Corpus) String() string {
	per := map[string]int{}
	for _, q := range c.Queries {
		per[q.Lang]++
	}
	return fmt.Sprintf("%d notes, queries per language %v", len(c.Notes), per)
}
