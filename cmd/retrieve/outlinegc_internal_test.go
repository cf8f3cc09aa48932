package main

import (
	"runtime/debug"
	"testing"
)

// TestOutlineGC: an outline run collects at outlineGCPercent unless GOGC
// is set, and restores the collector's target after.
func TestOutlineGC(t *testing.T) {
	t.Setenv("GOGC", "")
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	restore := outlineGC()
	if got := debug.SetGCPercent(outlineGCPercent); got != outlineGCPercent {
		t.Errorf("GC percent during an outline = %d, want %d", got, outlineGCPercent)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent after = %d, want 100", got)
	}
	t.Setenv("GOGC", "50")
	defer outlineGC()()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent with GOGC set = %d, want it untouched (100)", got)
	}
}
