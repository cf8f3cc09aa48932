// Package intl is the one place where text in any script is normalized,
// cut into search terms, turned into slugs and measured for display. Memory,
// wiki and graph search, both stores' index columns, slugs, loose quotes,
// markdown section titles and terminal tables all go through it, so that
// the same text is treated the same way everywhere (docs/memory.md,
// "Languages and scripts").
//
// It is a leaf package: it imports the standard library and golang.org/x/text,
// the Snowball stemmers and rivo/uniseg, and no package of this module.
package intl

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// folders are full case folders (cases.Caser is stateful, so not shared
// between goroutines).
var folders = sync.Pool{New: func() any { c := cases.Fold(); return &c }}

// caseFold returns s case folded (ß → ss, final sigma → σ, İ → i̇).
func caseFold(s string) string {
	if isASCII(s) {
		return asciiLower(s)
	}
	c := folders.Get().(*cases.Caser)
	out := c.String(s)
	folders.Put(c)
	return out
}

// Key returns s as names are compared: NFKC (full-width letters and digits
// become ASCII, half-width katakana become full-width, ligatures are split),
// case folded, whitespace runs collapsed to one space and trimmed. Two
// names with the same Key are the same name.
func Key(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !isASCII(s) {
		s = norm.NFKC.String(s)
	}
	return strings.Join(strings.Fields(caseFold(s)), " ")
}

// NFC returns s in Unicode normalization form C (the form titles and names
// are stored in when they are typed in, so that a title typed on a system
// that decomposes accents gives the same slug).
func NFC(s string) string {
	if isASCII(s) {
		return s
	}
	return norm.NFC.String(s)
}

// NFKC returns s in normalization form KC: full-width letters and digits
// become ASCII, half-width katakana full-width, ligatures and circled
// digits plain.
func NFKC(s string) string {
	if isASCII(s) {
		return s
	}
	return norm.NFKC.String(s)
}

// LooseFold returns s compatibility-decomposed (NFKD), case folded and with
// every run of whitespace collapsed to one space, and, for each byte of the
// result, the byte offset in s it comes from. Two texts that differ only in
// normalization form, full-width or half-width letters and digits, case or
// spacing fold to the same string. Invalid UTF-8 bytes are kept as they are.
func LooseFold(s string) (string, []int) {
	var b strings.Builder
	b.Grow(len(s))
	offsets := make([]int, 0, len(s))
	inSpace := false
	var it norm.Iter
	it.InitString(norm.NFKD, s)
	c := folders.Get().(*cases.Caser)
	defer folders.Put(c)
	for !it.Done() {
		pos := it.Pos()
		seg := it.Next()
		if len(seg) == 1 && seg[0] < utf8.RuneSelf {
			ch := seg[0]
			if ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f' {
				if !inSpace {
					b.WriteByte(' ')
					offsets = append(offsets, pos)
				}
				inSpace = true
				continue
			}
			if 'A' <= ch && ch <= 'Z' {
				ch += 'a' - 'A'
			}
			b.WriteByte(ch)
			offsets = append(offsets, pos)
			inSpace = false
			continue
		}
		if r, _ := utf8.DecodeRune(seg); unicode.IsSpace(r) {
			if !inSpace {
				b.WriteByte(' ')
				offsets = append(offsets, pos)
			}
			inSpace = true
			continue
		}
		inSpace = false
		var folded string
		if utf8.Valid(seg) {
			c.Reset()
			folded = c.String(string(seg))
			// Folding can compose again (rarely): keep it decomposed.
			folded = norm.NFKD.String(folded)
		} else {
			folded = string(seg)
		}
		b.WriteString(folded)
		for range len(folded) {
			offsets = append(offsets, pos)
		}
	}
	return b.String(), offsets
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
