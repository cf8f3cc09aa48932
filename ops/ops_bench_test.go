//go:build unix

package ops_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/memprobe"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// BenchmarkCall is the server-side time of one retrieve call, without a
// transport: decoding, the engine, the ledger write and rendering.
func BenchmarkCall(b *testing.B) {
	env := opstest.New(b)
	op, _ := env.Table.Lookup("retrieve")
	for _, c := range []struct{ name, in string }{
		{"recorded", `{"target":"README.md"}`},
		{"no_record", `{"target":"README.md","no_record":true}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			in := json.RawMessage(c.in)
			defer cpuPerOp(b)()
			for b.Loop() {
				serve(b, env, op, in)
			}
		})
	}
	// Each call reads a file never read before, as an agent exploring a
	// repository does: its snapshot is new too.
	for _, c := range []struct{ name, extra string }{{"new_file/recorded", ""}, {"new_file/no_record", `,"no_record":true`}} {
		b.Run(c.name, func(b *testing.B) {
			i := 0
			defer cpuPerOp(b)()
			for b.Loop() {
				b.StopTimer()
				i++
				name := fmt.Sprintf("new/%s-%d.md", strings.ReplaceAll(c.name, "/", "-"), i)
				env.WS.Write(name, fmt.Sprintf("# Note %d\n\n%s", i, strings.Repeat("A line of a new small file.\n", 30)))
				in := json.RawMessage(`{"target":"` + name + `"` + c.extra + `}`)
				b.StartTimer()
				serve(b, env, op, in)
			}
		})
	}
}

// cpuPerOp reports the process's CPU time (user+sys, cpuTime) per op,
// background work included (the ledger journal's fold): under a machine
// loaded by other work it holds still where wall time does not.
func cpuPerOp(b *testing.B) func() {
	start := opstest.CPUTime()
	return func() {
		b.ReportMetric(float64(opstest.CPUTime()-start)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkMany is the server-side time of one retrieve_many call over 10
// small files (test/mcpclient/bench.mjs's case), without a transport,
// rendering and encoding included.
func BenchmarkMany(b *testing.B) {
	env := opstest.New(b)
	op, _ := env.Table.Lookup("retrieve_many")
	var targets []string
	for i := range 10 {
		name := fmt.Sprintf("f%d.md", i)
		env.WS.Write(name, fmt.Sprintf("# File %d\n\n", i)+strings.Repeat(fmt.Sprintf("Line of small file %d, read with nine others in one call.\n", i), 20+i))
		targets = append(targets, `"`+name+`"`)
	}
	for _, c := range []struct{ name, extra string }{{"recorded", ""}, {"no_record", `,"no_record":true`}} {
		b.Run(c.name, func(b *testing.B) {
			in := json.RawMessage(`{"targets":[` + strings.Join(targets, ",") + `]` + c.extra + `}`)
			defer cpuPerOp(b)()
			for b.Loop() {
				serve(b, env, op, in)
			}
		})
	}
}

// serve makes one call as a server does: the operation, its text
// rendering and the JSON encoding of its value.
func serve(b *testing.B, env *opstest.Env, op *ops.Op, in json.RawMessage) {
	oc := env.Table.Call(context.Background(), op, in, "bench")
	if oc.Err != nil {
		b.Fatal(oc.Err)
	}
	_ = op.Render(oc)
	if _, err := json.Marshal(oc.Value); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkManyLarge is one retrieve_many call of 50 files of 1 MiB with
// the largest budget a call may ask for (1 MiB), recorded, over each
// transport's cost: it reports the peak heap of the call (peak-MiB) beside
// the budget, which docs/SECURITY.md bounds ("Bounded cost").
func BenchmarkManyLarge(b *testing.B) {
	env := opstest.New(b)
	op, _ := env.Table.Lookup("retrieve_many")
	big := strings.Repeat("Alpha beta gamma delta epsilon zeta eta theta. ", (1<<20)/48)
	var targets []string
	for i := range ops.MaxManyTargets {
		name := fmt.Sprintf("many/f%02d.txt", i)
		env.WS.Write(name, big)
		targets = append(targets, `"`+name+`"`)
	}
	for _, transport := range []string{"mcp", "http"} {
		for _, c := range []struct{ name, extra string }{{"recorded", ""}, {"no_record", `,"no_record":true`}} {
			b.Run(transport+"/"+c.name, func(b *testing.B) {
				in := json.RawMessage(`{"targets":[` + strings.Join(targets, ",") + `],"budget":1048576` + c.extra + `}`)
				var peak uint64
				for b.Loop() {
					p := memprobe.Peak(func() {
						if oc := env.Table.Call(context.Background(), op, in, transport); oc.Err != nil {
							b.Fatal(oc.Err)
						}
					})
					peak = max(peak, p)
				}
				b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
			})
		}
	}
}
