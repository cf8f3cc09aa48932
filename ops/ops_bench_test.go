package ops_test

import (
	"context"
	"encoding/json"
	"testing"

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
			for b.Loop() {
				oc := env.Table.Call(context.Background(), op, in, "bench")
				if oc.Err != nil {
					b.Fatal(oc.Err)
				}
				_ = op.Render(oc)
				if _, err := json.Marshal(oc.Value); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
