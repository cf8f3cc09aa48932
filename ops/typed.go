package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// Spec is what a typed op says about itself; its schemas are inferred
// from its input and output types.
type Spec struct {
	Name        string
	Title       string
	Description string
	ReadOnly    bool
	OpenWorld   bool
	Destructive bool
	Aliases     []string
	Method      string
	// Examples are sample inputs, shown to models in the input schema.
	Examples []any
	// Describe gives the top-level input properties their descriptions
	// (the services' input types are not written for models).
	Describe map[string]string
	// Enums give top-level string input properties their closed set of
	// values (a tier, a category), so clients can offer and check them.
	Enums map[string][]string
	// Text renders a successful output; nil uses indented JSON.
	Text func(out any) string
}

// Typed builds an op from a typed function: the input is decoded strictly
// into In, the JSON Schemas of In and Out are inferred once, here.
// Services that already have typed methods (memory, graph, wiki) become
// ops in one line each.
func Typed[In, Out any](s Spec, fn func(ctx context.Context, in In) (Out, error)) *Op {
	op := &Op{Name: s.Name, Title: s.Title, Description: s.Description, ReadOnly: s.ReadOnly, OpenWorld: s.OpenWorld,
		Destructive: s.Destructive, Aliases: s.Aliases, Method: s.Method, Text: s.Text}
	op.Input = describe(normalize(schemaFor[In](s.Examples), false), s.Describe, s.Enums)
	op.Output = withNoteProperty(normalize(schemaFor[Out](nil), true))
	op.Handle = func(ctx context.Context, raw json.RawMessage) (any, error) {
		var in In
		if err := Decode(raw, &in); err != nil {
			return nil, err
		}
		return fn(ctx, in)
	}
	return op
}

// schemaFor infers the object schema of T (of *T's element for pointers).
func schemaFor[T any](examples []any) json.RawMessage {
	t := reflect.TypeFor[T]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{IgnoreInvalidTypes: true})
	if err != nil {
		panic(fmt.Sprintf("ops: schema of %s: %v", t, err))
	}
	if s.Type != "object" {
		panic(fmt.Sprintf("ops: %s is not a JSON object type", t))
	}
	s.Examples = examples
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}

// normalize makes an inferred schema acceptable to every client: property
// and item schemas that are booleans (what an `any` field infers to) become
// objects, which clients such as the TypeScript SDK require. For outputs
// (nullable) every nested object and array may also be null: Go encodes
// nil maps and slices as null.
func normalize(schema json.RawMessage, nullable bool) json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal(schema, &m); err != nil {
		panic(err)
	}
	var walk func(v any, root bool)
	walk = func(v any, root bool) {
		s, ok := v.(map[string]any)
		if !ok {
			return
		}
		if t, ok := s["type"].(string); ok && nullable && !root && (t == "object" || t == "array") {
			s["type"] = []any{"null", t}
		}
		if ts, ok := s["type"].([]any); ok && !nullable && len(ts) == 2 && (ts[0] == "null" || ts[1] == "null") {
			// Inputs: a pointer field is optional, not nullable; stricter
			// clients (Gemini-style schemas) reject type unions.
			if ts[0] == "null" {
				s["type"] = ts[1]
			} else {
				s["type"] = ts[0]
			}
		}
		if props, ok := s["properties"].(map[string]any); ok {
			for k, p := range props {
				if b, ok := p.(bool); ok {
					props[k] = boolSchema(b)
				}
				walk(props[k], false)
			}
		}
		if b, ok := s["items"].(bool); ok {
			s["items"] = boolSchema(b)
		}
		walk(s["items"], false)
		walk(s["additionalProperties"], false)
		if defs, ok := s["$defs"].(map[string]any); ok {
			for _, d := range defs {
				walk(d, false)
			}
		}
	}
	walk(m, true)
	b, _ := json.Marshal(m)
	return b
}

// withNoteProperty opens an output schema at its top level to the "note"
// that a capped budget adds (withNote): the property is declared, and the
// top level no longer refuses other properties, so that a client that
// validates structuredContent accepts it.
func withNoteProperty(schema json.RawMessage) json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal(schema, &m); err != nil {
		panic(err)
	}
	props, _ := m["properties"].(map[string]any)
	if props == nil || props["note"] != nil || props["assumptions"] != nil {
		return schema
	}
	delete(m, "additionalProperties")
	props["note"] = map[string]any{"type": "string"}
	b, _ := json.Marshal(m)
	return b
}

func boolSchema(b bool) map[string]any {
	if b {
		return map[string]any{}
	}
	return map[string]any{"not": map[string]any{}}
}

// describe sets the descriptions of top-level properties; naming a
// property the schema does not have is a programming error.
func describe(schema json.RawMessage, desc map[string]string, enums map[string][]string) json.RawMessage {
	if len(desc) == 0 && len(enums) == 0 {
		return schema
	}
	var m map[string]any
	if err := json.Unmarshal(schema, &m); err != nil {
		panic(err)
	}
	props, _ := m["properties"].(map[string]any)
	prop := func(k string) map[string]any {
		p, ok := props[k].(map[string]any)
		if !ok {
			panic(fmt.Sprintf("ops: no input property %q to describe", k))
		}
		return p
	}
	for k, d := range desc {
		prop(k)["description"] = d
	}
	for k, values := range enums {
		p := prop(k)
		if p["type"] != "string" {
			panic(fmt.Sprintf("ops: input property %q is not a string: no enum", k))
		}
		p["enum"] = values
	}
	b, _ := json.Marshal(m)
	return b
}
