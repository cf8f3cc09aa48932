package ops_test

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// refusedInput reports whether an outcome refuses its input as malformed:
// the handler disagrees with a schema that offered the value.
func refusedInput(e *retrieve.Error) bool {
	if e == nil {
		return false
	}
	switch e.Code {
	case retrieve.CodeInputValidation, retrieve.CodeInvalidOperation, retrieve.CodeInvalidMemoryType:
		return true
	}
	return false
}

// TestSchemasAgreeWithHandlers: every example an op shows, and every value
// of every enum of its input schema, is accepted by the op's HANDLER — a
// schema that offers what the server refuses (extract_details' scope
// "code", once) misleads every agent that reads it. An enum value may fail
// for another reason (a note that does not exist, a format that does not
// parse), never as a malformed input naming that value.
func TestSchemasAgreeWithHandlers(t *testing.T) {
	env := opstest.NewFull(t)
	ctx := context.Background()
	for _, op := range env.Table.Ops() {
		var schema struct {
			Properties map[string]struct {
				Enum []any `json:"enum"`
			} `json:"properties"`
			Examples []map[string]any `json:"examples"`
		}
		if err := json.Unmarshal(op.Input, &schema); err != nil {
			t.Fatalf("%s: %v", op.Name, err)
		}
		for i, ex := range schema.Examples {
			in, _ := json.Marshal(ex)
			if oc := env.Table.Call(ctx, op, in, "mcp"); refusedInput(oc.Err) {
				t.Errorf("%s: example %d %s refused: %s: %s", op.Name, i, in, oc.Err.Code, oc.Err.Message)
			}
		}
		base := map[string]any{}
		if len(schema.Examples) > 0 {
			base = schema.Examples[0]
		}
		for name, p := range schema.Properties {
			for _, v := range p.Enum {
				args := maps.Clone(base)
				args[name] = v
				if name == "scope" && v == "section" {
					args["format_hints"] = "Deploys need the staging token" // section names a heading
				}
				in, _ := json.Marshal(args)
				oc := env.Table.Call(ctx, op, in, "mcp")
				if refusedInput(oc.Err) && (strings.Contains(oc.Err.Message, `"`+str(v)+`"`) || strings.Contains(oc.Err.Message, "'"+str(v)+"'") || strings.Contains(oc.Err.Message, name)) {
					t.Errorf("%s: %s=%v is in the schema's enum, the handler refuses it: %s: %s", op.Name, name, v, oc.Err.Code, oc.Err.Message)
				}
			}
		}
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
