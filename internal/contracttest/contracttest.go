// Package contracttest checks results against the published JSON Schema of
// the contract. Every test that produces a result validates it here.
package contracttest

import (
	"bytes"
	"encoding/json"
	"sync"
	"testing"

	"github.com/retrieve-dev/retrieve/docs"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var (
	once   sync.Once
	schema *jsonschema.Schema
	err    error
)

func compiled() (*jsonschema.Schema, error) {
	once.Do(func() {
		doc, uerr := jsonschema.UnmarshalJSON(bytes.NewReader(docs.ResultSchema))
		if uerr != nil {
			err = uerr
			return
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if err = c.AddResource("result.schema.json", doc); err != nil {
			return
		}
		schema, err = c.Compile("result.schema.json")
	})
	return schema, err
}

// Validate checks that the JSON encoding of v is a valid result.
func Validate(v any) error {
	s, err := compiled()
	if err != nil {
		return err
	}
	var raw []byte
	switch x := v.(type) {
	case []byte:
		raw = x
	default:
		if raw, err = json.Marshal(v); err != nil {
			return err
		}
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

// Check fails the test when v is not a valid result.
func Check(t testing.TB, v any) {
	t.Helper()
	if err := Validate(v); err != nil {
		t.Fatalf("result does not match docs/result.schema.json: %v", err)
	}
}
