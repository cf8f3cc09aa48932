package main

import (
	"bytes"
	"testing"
)

// FuzzParseLeavesFile: a .leaves file under .retrieve/checkpoints is as
// writable as the store: never a panic, and what parses has whole hashes
// from a position that is not negative.
func FuzzParseLeavesFile(f *testing.F) {
	f.Add([]byte(leavesHeader + "0\n"))
	f.Add(append([]byte(leavesHeader+"3\n"), bytes.Repeat([]byte{7}, 64)...))
	f.Add(append([]byte(leavesHeader+"-1\n"), bytes.Repeat([]byte{7}, 32)...))
	f.Add(append([]byte(leavesHeader+"9223372036854775807\n"), bytes.Repeat([]byte{7}, 31)...))
	f.Add([]byte("retrieve-ledger-leaves/v2 from 0\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		lf, ok := parseLeavesFile(b)
		if !ok {
			return
		}
		if lf.from < 0 {
			t.Fatalf("negative start %d", lf.from)
		}
		_, body, _ := bytes.Cut(b, []byte("\n"))
		if len(lf.hashes)*32 != len(body) {
			t.Fatalf("%d hashes from %d bytes", len(lf.hashes), len(body))
		}
		// Assembling never panics, whatever the start.
		covered([]leavesFile{lf})
	})
}
