package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/memory"
)

// seedShaped makes an extractor op (extract_overview, extract_details)
// accept seed 004's input as an orchestrator sends it,
//
//	{"operation": "extract_overview", "context": {"target": …, "depth": …}}
//
// beside the flat form ({"target": …, "depth": …}), and answer every
// failure — a malformed input included — in the seed's envelope
// (success, operation, result, writes_to, errors). foreign are the keys of
// the seed's shared context that belong to the other operation: an
// orchestrator passes the full context to every call, so they are
// accepted when empty.
func seedShaped(op *Op, foreign ...string) *Op {
	inner := op.Handle
	op.Handle = func(ctx context.Context, raw json.RawMessage) (any, error) {
		flat, err := flattenSeed(op.Name, raw, foreign)
		var out any
		if err == nil {
			out, err = inner(ctx, flat)
		}
		if err != nil && !seedInput(raw) {
			// The service names fields as the seed nests them
			// (context.target); a flat caller gave them flat.
			e := *retrieve.AsError(err)
			e.Message = flatNames(op, e.Message)
			err = &e
			if env, ok := out.(*memory.OperationOutput); ok {
				for i := range env.Errors {
					env.Errors[i].Message = flatNames(op, env.Errors[i].Message)
				}
			}
		}
		if err != nil && isNil(out) {
			out = memory.Envelope(op.Name, nil, nil, err)
		}
		return out, err
	}
	var s map[string]any
	if err := json.Unmarshal(op.Input, &s); err != nil {
		panic(err)
	}
	props := s["properties"].(map[string]any)
	props["operation"] = map[string]any{"type": "string", "enum": []any{op.Name},
		"description": "Seed 004 form: this tool."}
	// context is not spelled out again (the tool list has a size budget):
	// its keys are the fields above, which flattenSeed checks strictly.
	props["context"] = map[string]any{"type": "object",
		"description": "Seed 004 form: the fields."}
	// target is required flat or in context: a schema cannot say "one of
	// the two" without a top-level anyOf, which some clients refuse, so the
	// handler checks it.
	delete(s, "required")
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	op.Input = b
	return op
}

// flattenSeed turns seed 004's {operation, context} input into the flat
// one. The operation must be the op's own name; a key given flat and in
// context must have the same value.
func flattenSeed(name string, raw json.RawMessage, foreign []string) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return raw, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return raw, nil // Decode reports it
	}
	opRaw, hasOp := top["operation"]
	ctxRaw, hasCtx := top["context"]
	if !hasOp && !hasCtx {
		return raw, nil
	}
	delete(top, "operation")
	delete(top, "context")
	if hasOp {
		var got string
		if err := json.Unmarshal(opRaw, &got); err != nil {
			return nil, retrieve.Errorf(retrieve.CodeInputValidation, "operation must be a string").
				WithHint("pass \"operation\": %q", name)
		}
		if got != name {
			valid := []string{memory.OpExtractOverview, memory.OpExtractDetails}
			e := retrieve.Errorf(retrieve.CodeInvalidOperation, "Unknown operation '%s'. Valid operations: %s", got, strings.Join(valid, ", "))
			if slices.Contains(valid, got) {
				e = retrieve.Errorf(retrieve.CodeInvalidOperation, "operation '%s' sent to %s", got, name)
			}
			return nil, e.WithHint("call the %s tool (POST /v1/%s) with \"operation\": %q", name, name, name)
		}
	}
	if hasCtx && string(bytes.TrimSpace(ctxRaw)) != "null" {
		var nested map[string]json.RawMessage
		if err := json.Unmarshal(ctxRaw, &nested); err != nil {
			return nil, retrieve.Errorf(retrieve.CodeInputValidation, "context must be an object").
				WithHint(`pass {"operation": %q, "context": {"target": "…"}}`, name)
		}
		for k, v := range nested {
			if slices.Contains(foreign, k) {
				if s := strings.TrimSpace(string(v)); s == "null" || s == `""` {
					continue
				}
				return nil, retrieve.Errorf(retrieve.CodeInputValidation, "context.%s does not apply to %s", k, name).
					WithHint("leave it out or null")
			}
			if f, both := top[k]; both && !jsonEqual(f, v) {
				return nil, retrieve.Errorf(retrieve.CodeInputValidation, "%s is given twice with different values (flat and context.%s)", k, k).
					WithHint("give it once: flat or inside context")
			}
			top[k] = v
		}
	}
	b, err := json.Marshal(top)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// seedInput reports whether raw is seed 004's {operation, context} form.
func seedInput(raw json.RawMessage) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return false
	}
	_, op := top["operation"]
	_, ctx := top["context"]
	return op || ctx
}

// flatNames renames the fields a message names as the seed nests them
// (context.target) to the names the op's schema shows (query, target).
func flatNames(op *Op, msg string) string {
	for old, pub := range op.ArgAliases {
		msg = strings.ReplaceAll(msg, "context."+old, pub)
	}
	return strings.ReplaceAll(msg, "context.", "")
}

// jsonEqual compares two JSON values by meaning, not spelling.
func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}
