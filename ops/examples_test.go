package ops_test

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// TestInputExamplesValidate: every example an operation shows models is
// valid against its own input schema (types and enums), so a model that
// copies one is not refused.
func TestInputExamplesValidate(t *testing.T) {
	env := opstest.NewFull(t)
	checked := 0
	for _, op := range env.Table.Ops() {
		var s jsonschema.Schema
		if err := json.Unmarshal(op.Input, &s); err != nil {
			t.Fatalf("%s: input schema: %v", op.Name, err)
		}
		examples := s.Examples
		s.Examples = nil
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: resolve its input schema: %v", op.Name, err)
		}
		for i, ex := range examples {
			// As a client sends it: JSON, decoded into plain values.
			b, _ := json.Marshal(ex)
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			if err := rs.Validate(v); err != nil {
				t.Errorf("%s: example %d %s is not valid input: %v", op.Name, i+1, b, err)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Fatalf("only %d examples checked: the table lost its examples?", checked)
	}
}

// TestClosedSetsHaveEnums: the inputs whose values are a closed set carry
// the set as an enum.
func TestClosedSetsHaveEnums(t *testing.T) {
	env := opstest.NewFull(t)
	for _, c := range []struct{ op, prop, value string }{
		{"extract_overview", "depth", "shallow"},
		{"extract_overview", "knowledge_type", "semantic"},
		{"memory_write", "memory_type", "procedural"},
		{"memory_list", "memory_type", "episodic"},
		{"wiki_read", "category", "topic"},
		{"wiki_write", "category", "entity"},
	} {
		op, ok := env.Table.Lookup(c.op)
		if !ok {
			t.Fatalf("no op %s", c.op)
		}
		var s struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(op.Input, &s); err != nil {
			t.Fatal(err)
		}
		enum := s.Properties[c.prop].Enum
		found := false
		for _, e := range enum {
			found = found || e == c.value
		}
		if !found {
			t.Errorf("%s.%s: enum %v lacks %q", c.op, c.prop, enum, c.value)
		}
	}
}
