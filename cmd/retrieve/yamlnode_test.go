package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"go.yaml.in/yaml/v3"
)

// yamlThroughDecoder is the YAML that writeYAML wrote before jsonNode: the
// JSON text decoded by the YAML parser (ok is false when that parser
// refused it: a DEL character, which JSON leaves unescaped).
func yamlThroughDecoder(t testing.TB, j []byte) (string, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(j, &doc); err != nil {
		return "", false
	}
	plainStyle(&doc)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		t.Fatal(err)
	}
	enc.Close()
	return buf.String(), true
}

// sameYAML checks that writeYAML of v writes what the YAML parser's node
// tree gave.
func sameYAML(t testing.TB, v any) {
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := writeYAML(&got, v); err != nil {
		t.Fatalf("writeYAML(%s): %v", j, err)
	}
	want, ok := yamlThroughDecoder(t, j)
	if !ok {
		// The YAML written must read back.
		var back any
		if err := yaml.Unmarshal(got.Bytes(), &back); err != nil {
			t.Errorf("JSON %s: the YAML written does not read back: %v\n%s", j, err, got.String())
		}
		return
	}
	if got.String() != want {
		t.Errorf("JSON %s\ngot:\n%s\nwant (YAML decoder):\n%s", j, got.String(), want)
	}
}

var yamlNodeCases = []string{
	`{"reference":"notes.md:10-20","version":{"sha256":"ab","git":{"state":"clean"}},"lines":[1,2,3]}`,
	`{"a":"yes","b":"No","c":"on","d":"y","e":"true","f":"null","g":"123","h":"1.5e3","i":"0x1F","j":"~","k":""}`,
	`{"text":"line one\nline two\n","tab":"a\tb","quote":"he said \"hi\"","uni":"été – ✓ 😀","html":"<a href=\"x\">&</a>","ls":"a\u2028b"}`,
	`{"n":0,"neg":-12,"f":1.5,"e":1e-7,"big":18446744073709551616,"huge":1e400,"t":true,"fa":false,"nil":null}`,
	`{"empty":{},"none":[],"nested":[{"x":[[]]},{}],"keys with spaces":1,"- dash":2,"#hash":3,":colon":4}`,
	`[1,"two",null,{"k":"v"}]`,
	`"just a string"`,
	`42`,
	`null`,
	`{"control":"\u0001\u001f","bom":"\ufeffx","bad":"\ufffd","trailing":"x ","leading":" x","colon":"a: b","comment":"a #b"}`,
	"{\"del\x7f\":\"\x7f\"}", // the YAML parser refused it: writeYAML failed on such data

}

// jsonNode builds the node tree yaml.Unmarshal gives for JSON text: the
// YAML written is the same, byte for byte.
func TestJSONNodeAsYAMLDecodes(t *testing.T) {
	for _, c := range yamlNodeCases {
		sameYAML(t, json.RawMessage(c))
	}
	if _, err := jsonNode([]byte(`{"a":1} {"b":2}`)); err == nil {
		t.Error("two JSON values: no error")
	}
	if _, err := jsonNode([]byte(`{"a":`)); err == nil {
		t.Error("a cut JSON text: no error")
	}
}

func FuzzJSONNode(f *testing.F) {
	for _, c := range yamlNodeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			if _, err := jsonNode(b); err == nil {
				t.Errorf("invalid JSON %q: no error", b)
			}
			return
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return
		}
		sameYAML(t, v)
	})
}
