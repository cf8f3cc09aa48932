package retrieve_test

import (
	"testing"

	"github.com/retrieve-dev/retrieve"
)

func TestConfidence(t *testing.T) {
	tests := []struct {
		name       string
		deductions []retrieve.Deduction
		decay      float64
		want       float64
	}{
		{"OK", nil, 1, 1},
		{"Truncated", []retrieve.Deduction{{Reason: "truncated", Amount: 0.1}}, 1, 0.9},
		{"TwoDeductions", []retrieve.Deduction{{Amount: 0.1}, {Amount: 0.05}}, 1, 0.85},
		{"HalfLife", nil, 0.5, 0.5},
		{"Floor", []retrieve.Deduction{{Amount: 2}}, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := retrieve.Confidence(tt.deductions, tt.decay); got != tt.want {
				t.Errorf("Confidence = %v, want %v", got, tt.want)
			}
		})
	}
}
