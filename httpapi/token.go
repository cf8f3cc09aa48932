package httpapi

import (
	"math"
	"unicode"

	"github.com/retrieve-dev/retrieve"
)

// MinTokenBits is the least estimated entropy of a bearer token on a
// server reachable off loopback.
const MinTokenBits = 128

// TokenBits estimates the entropy of a token in bits, as a guesser who
// knows its length and character classes would see it: each character
// counts log2 of the pool of the classes it uses (digits, lower case,
// upper case, others), and runs of one character count once. A token of
// fewer than 8 distinct characters estimates 0: it is a word or a
// pattern, not a random string. `openssl rand -hex 32` gives ~330 bits.
func TokenBits(token string) float64 {
	var digit, lower, upper, other bool
	distinct := map[rune]bool{}
	n := 0
	var prev rune = -1
	for _, c := range token {
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
		if c != prev {
			n++
		}
		prev = c
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
