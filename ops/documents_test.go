package ops_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// TestRetrieveDocumentPages: the servers' retrieve takes a document's
// pages (flat or in constraints) and returns the reference of the part,
// itself a target with the same hash.
func TestRetrieveDocumentPages(t *testing.T) {
	env := opstest.New(t)
	env.WS.Write("events.jsonl", "{\"n\": 1}\n{\"n\": 2}\n{\"n\": 3}\n")
	op, ok := env.Table.Lookup("retrieve")
	if !ok {
		t.Fatal("no retrieve op")
	}
	call := func(in string) *retrieve.Result {
		t.Helper()
		oc := env.Table.Call(context.Background(), op, json.RawMessage(in), "test")
		if oc.Err != nil {
			t.Fatalf("%s: %v", in, oc.Err)
		}
		b, err := json.Marshal(oc.Value)
		if err != nil {
			t.Fatal(err)
		}
		var res retrieve.Result
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		return &res
	}
	flat := call(`{"target": "events.jsonl", "pages": "2"}`)
	nested := call(`{"target": "events.jsonl", "constraints": {"pages": "2"}}`)
	if flat.Retrieved.Data != "{\"n\": 2}\n" || flat.Citation.Reference != "events.jsonl#record=2" {
		t.Fatalf("flat pages: %q %s, want the second record and events.jsonl#record=2", flat.Retrieved.Data, flat.Citation.Reference)
	}
	if *nested.Citation.Hash != *flat.Citation.Hash {
		t.Errorf("nested pages: hash %s, want the flat form's %s", *nested.Citation.Hash, *flat.Citation.Hash)
	}
	again := call(`{"target": "events.jsonl#record=2"}`)
	if *again.Citation.Hash != *flat.Citation.Hash {
		t.Errorf("the reference as a target: hash %s, want %s", *again.Citation.Hash, *flat.Citation.Hash)
	}
}
