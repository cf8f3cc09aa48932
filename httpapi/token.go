package httpapi

import (
	"math"
	"strings"
	"unicode"

	"github.com/retrieve-dev/retrieve"
)

// MinTokenBits is the least estimated entropy of a bearer token on a
// server reachable off loopback.
const MinTokenBits = 128

// TokenBits estimates the entropy of a token in bits, as a guesser who
// knows its length and character classes would see it: each character
// counts log2 of the pool of the classes it uses (digits, lower case,
// upper case, others); runs of one character, progressions (abcdefgh,
// 0123) and repeats of an earlier stretch count once. A token of
// fewer than 8 distinct characters estimates 0: it is a word or a
// pattern, not a random string. `openssl rand -hex 32` gives ~330 bits.
func TokenBits(token string) float64 {
	var digit, lower, upper, other bool
	distinct := map[rune]bool{}
	rs := []rune(token)
	n := 0
	var prev, delta rune = -1, 0
	for i, c := range rs {
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case unicode.IsSpace(c) || !unicode.IsPrint(c):
			return 0
		default:
			other = true
		}
		distinct[c] = true
		// A character counts when a guesser could not predict it: not
		// the next step of a progression (aaaa, abcd, 0246), and not
		// inside a repeat of an earlier stretch of 4 or more characters
		// (abcdefgh abcdefgh…).
		d := c - prev
		if prev >= 0 && d == delta && i > 1 || repeats(rs, i) {
			prev, delta = c, d
			continue
		}
		if prev < 0 || d != 0 {
			n++
		}
		prev, delta = c, d
	}
	if len(distinct) < 8 {
		return 0
	}
	pool := 0
	for _, p := range []struct {
		in   bool
		size int
	}{{digit, 10}, {lower, 26}, {upper, 26}, {other, 33}} {
		if p.in {
			pool += p.size
		}
	}
	return float64(n) * math.Log2(float64(pool))
}

// CheckToken refuses a token too weak to guard a server reachable off
// loopback (fewer than MinTokenBits estimated bits, spaces or control
// characters) with PERMISSION_DENIED and a hint to generate one.
func CheckToken(token string) error {
	if b := TokenBits(token); b < MinTokenBits {
		return retrieve.Errorf(retrieve.CodePermissionDenied, "RETRIEVE_TOKEN is too weak to serve off loopback: about %.0f bits, at least %d needed", b, MinTokenBits).
			WithHint("generate one: export RETRIEVE_TOKEN=$(openssl rand -hex 32)")
	}
	return nil
}

// repeatMin is the shortest earlier stretch whose repeat counts as a
// pattern.
const repeatMin = 4

// repeats reports whether rs[i] lies inside a stretch of at least
// repeatMin characters that also occurs earlier in rs.
func repeats(rs []rune, i int) bool {
	if len(rs) > 4096 {
		return false // not a token anyone types; its length is counted
	}
	for start := max(0, i-repeatMin+1); start <= i; start++ {
		end := start + repeatMin
		if end > len(rs) {
			break
		}
		w := string(rs[start:end])
		if j := strings.Index(string(rs[:end-1]), w); j >= 0 && j < start {
			return true
		}
	}
	return false
}
