package retrieve

import (
	"math"
)

// Confidence computes retrieval fidelity: 1 minus the deductions, times the
// staleness decay, clamped to [0, 1] and rounded to three decimals.
func Confidence(deductions []Deduction, decay float64) float64 {
	c := 1.0
	for _, d := range deductions {
		c -= d.Amount
	}
	c *= decay
	c = math.Max(0, math.Min(1, c))
	return math.Round(c*1000) / 1000
}
