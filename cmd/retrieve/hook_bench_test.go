package main

import (
	"bytes"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/internal/testws"
)

// BenchmarkHookRead is the cost the Read hook adds to every Read of an
// agent: the real binary started cold per call, as Claude Code runs it,
// recording a Read of a small file. It reports the p50 and p90 per call in
// ms; "version" (the same binary printing its version) is the baseline of
// the same run: process start alone.
func BenchmarkHookRead(b *testing.B) {
	bin := binary(b)
	b.Setenv("CLAUDE_PROJECT_DIR", "")
	ws := testws.New(b)
	ws.Write("guide.md", "# Guide\n\nStep one: install.\nStep two: run.\n")
	ws.Write("notes.txt", "alpha beta\ngamma delta\nepsilon\n")
	input, err := readFixture("01-read.json", ws.Root)
	if err != nil {
		b.Fatal(err)
	}
	// The two commands alternate, so that the load of a shared machine
	// weighs on both alike.
	runs := map[string][]string{"version": {"--version"}, "read": {"hook", "claude-code"}}
	took := map[string][]time.Duration{}
	for b.Loop() {
		for _, name := range []string{"version", "read"} {
			cmd := exec.Command(bin, runs[name]...)
			cmd.Stdin = bytes.NewReader(input)
			cmd.Dir = ws.Root
			t0 := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil || (name == "read" && len(out) > 0) {
				b.Fatalf("%s: %v: %s", name, err, out)
			}
			took[name] = append(took[name], time.Since(t0))
		}
	}
	p50 := map[string]float64{}
	for name, d := range took {
		slices.Sort(d)
		p50[name] = float64(d[len(d)/2].Microseconds()) / 1000
		b.ReportMetric(p50[name], name+"-p50-ms")
		b.ReportMetric(float64(d[len(d)*9/10].Microseconds())/1000, name+"-p90-ms")
	}
	b.ReportMetric(p50["read"]/p50["version"], "read/version")
}
