package intl

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/russian"
	"golang.org/x/text/unicode/norm"
)

// The analyzer (docs/memory.md, "Languages and scripts"):
//
//   - text is cut into runs of one class: CJK (Han, Hiragana, Katakana,
//     Hangul and their marks), other letters and digits (with their
//     combining marks), and separators (everything else, invalid UTF-8
//     included);
//   - each run is put in NFKC and case folded; Latin letters lose their
//     diacritics (résumé → resume);
//   - a word of Latin letters is stemmed with the English Snowball stemmer
//     (Porter 2: crashes → crash), a Cyrillic word with the Russian one;
//   - a CJK run is cut into overlapping bigrams (服务崩溃 → 服务 务崩 崩溃), a
//     run of one character is kept as a unigram: a word of two characters or
//     more is found inside a sentence as the phrase of its bigrams.
//
// maxTermBytes drops longer terms (PostgreSQL refuses lexemes over 2 KB;
// nobody searches for them).
const maxTermBytes = 255

// Term is one index term and the byte span of the text it comes from.
type Term struct {
	Text       string
	Start, End int
	// CJK says the term is a bigram (or unigram) of a CJK run.
	CJK bool
	// Run numbers the run the term comes from: the bigrams of one CJK run
	// share it.
	Run int
}

type runClass uint8

const (
	classSep runClass = iota
	classWord
	classCJK
)

// IsCJK reports whether r is written without spaces between words and is
// indexed in bigrams: Han, Hiragana, Katakana, Hangul, and the marks that
// belong to them (ー, 々, ゝ).
func IsCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	switch r {
	case 0x30FC, 0xFF70, 0x3005, 0x3006, 0x303B, 0xFF9E, 0xFF9F, 0x3099, 0x309A, 0x309B, 0x309C: // ー ｰ 々 〆 〻, the (half-width) voiced sound marks
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

func classOf(r rune) runClass {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return classWord
		}
		return classSep
	}
	if r == utf8.RuneError {
		return classSep
	}
	if IsCJK(r) {
		return classCJK
	}
	if unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.In(r, unicode.Mn, unicode.Mc) {
		return classWord
	}
	return classSep
}

// Scan calls emit with every index term of s, in order, and the byte span
// of s it comes from.
func Scan(s string, emit func(Term)) { scan(s, true, emit) }

// Keywords returns the terms of s without stemming: NFKC, case folded,
// Latin diacritics removed, CJK runs in bigrams. On ASCII text they are the
// lowercased [a-z0-9]+ runs, as upstream's keyword index has them.
func Keywords(s string) []string {
	var out []string
	scan(s, false, func(t Term) { out = append(out, t.Text) })
	return out
}

func scan(s string, stemmed bool, emit func(Term)) {
	run := 0
	i := 0
	for i < len(s) {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		c := classOf(r)
		if c == classSep {
			i += size
			continue
		}
		start := i
		ascii := r < utf8.RuneSelf
		i += size
		for i < len(s) {
			r, size = rune(s[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(s[i:])
				ascii = false
			}
			// Combining marks stay with the run they follow.
			if classOf(r) != c && !(c != classSep && r >= utf8.RuneSelf && unicode.In(r, unicode.Mn, unicode.Mc)) {
				break
			}
			i += size
		}
		run++
		text := s[start:i]
		if c == classWord && ascii {
			emitWord(asciiLower(text), start, i, run, stemmed, emit)
			continue
		}
		analyzeRun(text, start, i, c, run, stemmed, emit)
	}
}

// analyzeRun normalizes a non-ASCII run. NFKC can change a run's class
// (full-width katakana are CJK before and after; "①" becomes "1"), so the
// normalized run is cut again; its terms carry the span of the whole run,
// except CJK characters, whose spans are kept when NFKC did not change the
// run.
func analyzeRun(text string, start, end int, c runClass, run int, stemmed bool, emit func(Term)) {
	n := text
	if !norm.NFKC.IsNormalString(text) {
		n = norm.NFKC.String(text)
	}
	same := n == text
	i := 0
	for i < len(n) {
		r, size := utf8.DecodeRuneInString(n[i:])
		cc := classOf(r)
		if cc == classSep {
			i += size
			continue
		}
		s := i
		i += size
		for i < len(n) {
			r, size = utf8.DecodeRuneInString(n[i:])
			if classOf(r) != cc && !unicode.In(r, unicode.Mn, unicode.Mc) {
				break
			}
			i += size
		}
		part := n[s:i]
		if cc == classCJK {
			emitCJK(caseFold(part), func(t Term) {
				if same {
					t.Start, t.End = start+s+t.Start, start+s+t.End
				} else {
					t.Start, t.End = start, end
				}
				t.Run = run
				emit(t)
			})
			continue
		}
		w, ok := folds.get(part)
		if !ok {
			w = foldLatin(caseFold(part))
			folds.put(part, w)
		}
		emitWord(w, start, end, run, stemmed, emit)
	}
}

// emitCJK emits the bigrams of a CJK run (spans relative to run).
func emitCJK(run string, emit func(Term)) {
	first, size := utf8.DecodeRuneInString(run)
	if size == len(run) {
		_ = first
		emit(Term{Text: run, Start: 0, End: len(run), CJK: true})
		return
	}
	prev := 0
	i := size
	for i < len(run) {
		_, size := utf8.DecodeRuneInString(run[i:])
		emit(Term{Text: run[prev : i+size], Start: prev, End: i + size, CJK: true})
		prev, i = i, i+size
	}
}

// emitWord stems a folded word (when asked) and emits it.
func emitWord(w string, start, end, run int, stemmed bool, emit func(Term)) {
	if w == "" || len(w) > maxTermBytes {
		return
	}
	if stemmed {
		w = stem(w)
	}
	emit(Term{Text: w, Start: start, End: end, Run: run})
}

// Stem returns the stem of a word as the index terms have it (English
// Snowball for Latin letters, Russian for Cyrillic), after folding it.
func Stem(w string) string {
	ts := Terms(w)
	if len(ts) != 1 {
		return Key(w)
	}
	return ts[0]
}

// latinFold maps Latin letters that have no decomposition to their base.
var latinFold = map[rune]string{'ø': "o", 'đ': "d", 'ł': "l", 'ħ': "h", 'ŧ': "t", 'ı': "i", 'æ': "ae", 'œ': "oe", 'ð': "d", 'þ': "th"}

// foldLatin removes the diacritics of Latin letters (résumé → resume);
// combining marks on letters of other scripts are kept (й, が, हिं).
func foldLatin(w string) string {
	if isASCII(w) {
		return w
	}
	d := norm.NFD.String(w)
	var b strings.Builder
	b.Grow(len(d))
	latinBase := false
	changed := false
	for _, r := range d {
		if unicode.Is(unicode.Mn, r) {
			if latinBase {
				changed = true
				continue
			}
			b.WriteRune(r)
			continue
		}
		latinBase = r < utf8.RuneSelf || unicode.Is(unicode.Latin, r)
		if f, ok := latinFold[r]; ok {
			b.WriteString(f)
			changed = true
			continue
		}
		b.WriteRune(r)
	}
	if !changed {
		return w
	}
	return norm.NFC.String(b.String())
}

// wordCache remembers what a word became (its stem, its folded form):
// words repeat (Zipf), and the stemmers and normalizers allocate. It is
// sharded by the word's length and first byte (the reader goroutines of
// indexing hit it at once); a shard is dropped when it grows past
// cacheShardMax words.
type wordCache [cacheShards]struct {
	mu sync.RWMutex
	m  map[string]string
}

const (
	cacheShards   = 32
	cacheShardMax = 1 << 13
)

func (c *wordCache) get(w string) (string, bool) {
	sh := &c[(int(w[0])*7+len(w))%cacheShards]
	sh.mu.RLock()
	out, ok := sh.m[w]
	sh.mu.RUnlock()
	return out, ok
}

func (c *wordCache) put(w, out string) {
	sh := &c[(int(w[0])*7+len(w))%cacheShards]
	sh.mu.Lock()
	if sh.m == nil || len(sh.m) >= cacheShardMax {
		sh.m = make(map[string]string, 256)
	}
	sh.m[strings.Clone(w)] = out
	sh.mu.Unlock()
}

var stems, folds wordCache

var envs = sync.Pool{New: func() any { return snowballstem.NewEnv("") }}

// stem returns the stem of a folded word: English for Latin letters,
// Russian for Cyrillic, the word itself otherwise (and for words with
// digits).
func stem(w string) string {
	if len(w) < 3 {
		return w
	}
	lang := stemLang(w)
	if lang == 0 {
		return w
	}
	if out, ok := stems.get(w); ok {
		return out
	}
	env := envs.Get().(*snowballstem.Env)
	env.SetCurrent(w)
	if lang == 'e' {
		english.Stem(env)
	} else {
		russian.Stem(env)
	}
	out := strings.Clone(env.Current())
	envs.Put(env)
	stems.put(w, out)
	return out
}

// stemLang says which stemmer fits w: 'e' (only a-z), 'r' (only Cyrillic
// letters) or 0.
func stemLang(w string) byte {
	if isASCII(w) {
		for i := 0; i < len(w); i++ {
			if w[i] < 'a' || w[i] > 'z' {
				return 0
			}
		}
		return 'e'
	}
	for _, r := range w {
		if !unicode.Is(unicode.Cyrillic, r) || !unicode.IsLetter(r) {
			return 0
		}
	}
	return 'r'
}

// Terms returns the index terms of s.
func Terms(s string) []string {
	var out []string
	Scan(s, func(t Term) { out = append(out, t.Text) })
	return out
}

// IndexText returns the index terms of s joined by single spaces, in
// order: the text both stores put in their full-text index, whose own
// tokenizer then only splits on spaces.
func IndexText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	Scan(s, func(t Term) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.Text)
	})
	return b.String()
}

// Word is one word of a query: the terms of one run, which must appear
// next to each other (a phrase: the bigrams of a CJK word), or a single
// term.
type Word struct {
	Terms []string
	// CJK says the word is a CJK run (its terms are bigrams).
	CJK bool
}

// QueryWords cuts a query into words, each with its index terms; repeated
// words are dropped.
func QueryWords(q string) []Word {
	var out []Word
	cur := -1
	Scan(q, func(t Term) {
		if cur == t.Run && t.CJK && len(out) > 0 {
			out[len(out)-1].Terms = append(out[len(out)-1].Terms, t.Text)
			return
		}
		cur = t.Run
		out = append(out, Word{Terms: []string{t.Text}, CJK: t.CJK})
	})
	seen := map[string]bool{}
	uniq := out[:0]
	for _, w := range out {
		k := strings.Join(w.Terms, " ")
		if !seen[k] {
			seen[k] = true
			uniq = append(uniq, w)
		}
	}
	return uniq
}
