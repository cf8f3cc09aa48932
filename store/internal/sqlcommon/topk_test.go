package sqlcommon

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Top keeps the k-th best of any sequence, k from 1 to past its length.
func TestTopKeepsTheKthBest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		vals := make([]float64, r.IntN(300))
		for i := range vals {
			vals[i] = float64(r.IntN(50)) // ties
		}
		k := 1 + r.IntN(60)
		h := make(Top[float64], 0, k)
		for _, v := range vals {
			h = h.Offer(v)
		}
		sorted := slices.Clone(vals)
		slices.SortFunc(sorted, func(a, b float64) int { return int(b - a) })
		if want := min(k, len(vals)); len(h) != want {
			t.Fatalf("round %d: %d values kept of %d, k %d; want %d", round, len(h), len(vals), k, want)
		}
		if len(vals) >= k && h[0] != sorted[k-1] {
			t.Fatalf("round %d: k-th best %v, want %v (k %d of %d)", round, h[0], sorted[k-1], k, len(vals))
		}
	}
}
