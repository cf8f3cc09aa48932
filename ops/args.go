package ops

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/retrieve-dev/retrieve"
)

// renameArgs gives an op's inputs the names every tool uses for the same
// thing (docs/servers.md, "One vocabulary"): public maps a name the schema
// shows to the name the handler decodes (its old name, still accepted).
// The schema's property, required entry and examples are renamed; the
// handler takes either name, and both with different values is
// INPUT_VALIDATION_FAILED.
func renameArgs(op *Op, public map[string]string) *Op {
	inner := op.Handle
	op.Handle = func(ctx context.Context, raw json.RawMessage) (any, error) {
		raw, err := renameInput(raw, public)
		if err != nil {
			return nil, err
		}
		return inner(ctx, raw)
	}
	var s map[string]any
	if err := json.Unmarshal(op.Input, &s); err != nil {
		panic(err)
	}
	props := s["properties"].(map[string]any)
	if op.ArgAliases == nil {
		op.ArgAliases = map[string]string{}
	}
	for pub, old := range public {
		op.ArgAliases[old] = pub
		p, ok := props[old]
		if !ok {
			panic("ops: " + op.Name + " has no input " + old)
		}
		props[pub] = p
		delete(props, old)
		if req, ok := s["required"].([]any); ok {
			for i, r := range req {
				if r == old {
					req[i] = pub
				}
			}
		}
		if ex, ok := s["examples"].([]any); ok {
			for _, e := range ex {
				if m, ok := e.(map[string]any); ok {
					if v, has := m[old]; has {
						m[pub] = v
						delete(m, old)
					}
				}
			}
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	op.Input = b
	return op
}

// renameInput moves the public names of raw's top level to the names the
// handler decodes.
func renameInput(raw json.RawMessage, public map[string]string) (json.RawMessage, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		return raw, nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(t, &top) != nil {
		return raw, nil // Decode reports it
	}
	changed := false
	for pub, old := range public {
		v, ok := top[pub]
		if !ok {
			continue
		}
		if o, both := top[old]; both && !jsonEqual(o, v) {
			return nil, retrieve.Errorf(retrieve.CodeInputValidation, "%s and %s (its old name) differ", pub, old).
				WithHint("give %s only", pub)
		}
		top[old] = v
		delete(top, pub)
		changed = true
	}
	if !changed {
		return raw, nil
	}
	return json.Marshal(top)
}
