package ops

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The one-pass decoding of the common flat input gives what the general
// decoding gives, and leaves every other shape to it.
func TestDecodeRetrieveFlatIsTheGeneralDecoding(t *testing.T) {
	for _, c := range []struct {
		in   string
		fast bool
	}{
		{`{"target":"f1.txt","lines":"1-20"}`, true},
		{`{"target":"f1.txt","lines":"1-20","no_record":true,"budget":5000,"session_id":"s1"}`, true},
		{`{"target":"notes.md","sections":["Intro"],"format":"text","fallback":"snapshot","max_bytes":100}`, true},
		{`{"target":"https://127.0.0.1/x","web":{"max_age":"1h","pages":2},"select":".a"}`, true},
		{`{"target":"notes.md","constraints":{"lines":"1-2"}}`, false},
		{`{"target":{"path":"notes.md"},"lines":"1-2"}`, true},
		{`{"target":{"path":"q.db","query":"SELECT 1"}}`, false},
		{`{"target":"notes.md","lines":5}`, false},
		{`{"target":"notes.md","nope":1}`, false},
		{`{"lines":"1-2"}`, false},
	} {
		fin, freq, ok := decodeRetrieveFlat(json.RawMessage(c.in))
		if ok != c.fast {
			t.Errorf("%s: one pass %v, want %v", c.in, ok, c.fast)
		}
		gin, greq, err := decodeRetrieve(json.RawMessage(c.in))
		if !ok {
			continue
		}
		if err != nil {
			t.Errorf("%s: the general decoding fails (%v) where one pass did not", c.in, err)
			continue
		}
		if !reflect.DeepEqual(freq, greq) || !reflect.DeepEqual(*fin, *gin) {
			t.Errorf("%s:\none pass %+v %+v\ngeneral  %+v %+v", c.in, freq, *fin, greq, *gin)
		}
	}
}
