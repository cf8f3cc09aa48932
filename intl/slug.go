package intl

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// SlugAllowed says, for error messages, which characters make a slug.
const SlugAllowed = "letters of any script (Latin, CJK, Cyrillic, Arabic…) or digits; punctuation, symbols and emoji alone are not enough"

// Slug turns a title into a slug in any script: the title in NFKC
// (full-width letters and digits become ASCII), lowercased, every run of
// characters that are not letters, digits or combining marks turned into
// one "-", trimmed of "-". An ASCII title gets upstream's slug
// (lowercase, [^a-z0-9]+ → "-"). maxBytes, when above 0, caps the slug at
// that many bytes, cut at a character boundary. A title without letters or
// digits gives "".
func Slug(title string, maxBytes int) string {
	title = strings.ToValidUTF8(title, " ")
	if !isASCII(title) {
		title = norm.NFKC.String(title)
	}
	var b strings.Builder
	b.Grow(len(title))
	dash := false
	for _, r := range title {
		if slugRune(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		dash = true
	}
	s := b.String()
	if !isASCII(s) {
		// Lowercasing can leave a sequence NFKC composes (Ϋ́ → ΰ): normalize
		// again, so that a slug's slug is itself.
		s = norm.NFKC.String(s)
	}
	if maxBytes > 0 && len(s) > maxBytes {
		cut := maxBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
		// A cut may leave combining marks without their base: drop them.
		s = strings.TrimRightFunc(s, func(r rune) bool { return r == '-' || unicode.In(r, unicode.Mn, unicode.Me) })
	}
	return s
}

// slugRune reports whether r is kept in a slug.
func slugRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc)
}

// SlugRunes caps a slug at n characters (not bytes), trimmed of "-".
func SlugRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			s = s[:j]
			break
		}
		i++
	}
	return strings.TrimRightFunc(s, func(r rune) bool { return r == '-' || unicode.In(r, unicode.Mn, unicode.Me) })
}

// PathEscape percent-encodes a slug (or a path of slugs) where a URL needs
// it: letters of other scripts become %XX bytes, "/" is kept.
func PathEscape(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}
