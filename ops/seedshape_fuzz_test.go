package ops_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// FuzzExtractorInput: any input to the extractor tools — flat, seed 004's
// {operation, context}, with renamed arguments or garbage — gets the seed's
// envelope back, success exactly when no error, and never panics.
func FuzzExtractorInput(f *testing.F) {
	for _, s := range []string{
		`{"operation": "extract_overview", "context": {"target": "deploy", "depth": "shallow"}}`,
		`{"operation": "extract_details", "context": {"target": "staging token", "scope": "section", "format_hints": "x"}}`,
		`{"query": "deploy", "target": "deploy"}`,
		`{"query": "a", "target": "b"}`,
		`{"operation": "summarize"}`,
		`{"context": null}`,
		`{"context": [1]}`,
		`{"operation": 3, "context": {}}`,
		`[]`, `"x"`, `{`, ``,
	} {
		f.Add(s)
	}
	env := opstest.NewFull(f)
	f.Fuzz(func(t *testing.T, in string) {
		for _, name := range []string{"extract_overview", "extract_details"} {
			op, _ := env.Table.Lookup(name)
			oc := env.Table.Call(context.Background(), op, json.RawMessage(in), "mcp")
			out, ok := oc.Value.(*memory.OperationOutput)
			if !ok {
				t.Fatalf("%s %q: output %T, want the seed's envelope", name, in, oc.Value)
			}
			if out.Success != (oc.Err == nil) || out.Operation != name || out.WritesTo != nil {
				t.Fatalf("%s %q: envelope %+v with error %v", name, in, out, oc.Err)
			}
		}
	})
}
