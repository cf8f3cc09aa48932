package ops_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

var objectSchema = json.RawMessage(`{"type":"object"}`)

// TestDrainWaitsForCallsInFlight: Drain returns only when the call in
// flight is done, and refuses new calls with CANCELED.
func TestDrainWaitsForCallsInFlight(t *testing.T) {
	tbl := ops.NewTable()
	release := make(chan struct{})
	started := make(chan struct{})
	tbl.Add(&ops.Op{Name: "slow", Description: "blocks", Input: objectSchema, Output: objectSchema,
		Handle: func(ctx context.Context, in json.RawMessage) (any, error) {
			close(started)
			<-release
			return map[string]any{"done": true}, nil
		}})
	op, _ := tbl.Lookup("slow")
	result := make(chan ops.Outcome, 1)
	go func() { result <- tbl.Call(context.Background(), op, nil, "test") }()
	<-started
	drained := make(chan error, 1)
	go func() { drained <- tbl.Drain(context.Background()) }()
	select {
	case <-drained:
		t.Fatal("Drain returned with a call in flight")
	case <-time.After(50 * time.Millisecond):
	}
	if oc := tbl.Call(context.Background(), op, nil, "test"); oc.Err == nil || oc.Err.Code != retrieve.CodeCanceled {
		t.Fatalf("a call while draining: %+v", oc)
	}
	close(release)
	if err := <-drained; err != nil {
		t.Fatal(err)
	}
	if oc := <-result; oc.Err != nil {
		t.Fatalf("the call in flight failed: %v", oc.Err)
	}
}

func TestAddRefusesBadOps(t *testing.T) {
	for name, op := range map[string]*ops.Op{
		"no handler":     {Name: "x", Input: objectSchema, Output: objectSchema},
		"non-object":     {Name: "x", Input: json.RawMessage(`{"type":"string"}`), Output: objectSchema, Handle: func(context.Context, json.RawMessage) (any, error) { return nil, nil }},
		"duplicate core": {Name: "retrieve", Input: objectSchema, Output: objectSchema, Handle: func(context.Context, json.RawMessage) (any, error) { return nil, nil }},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("Add accepted it")
				}
			}()
			opstest.New(t).Table.Add(op)
		})
	}
}

func TestPanicBecomesInternalError(t *testing.T) {
	tbl := ops.NewTable()
	tbl.Add(&ops.Op{Name: "boom", Input: objectSchema, Output: objectSchema,
		Handle: func(context.Context, json.RawMessage) (any, error) { panic("secret detail") }})
	op, _ := tbl.Lookup("boom")
	oc := tbl.Call(context.Background(), op, nil, "test")
	if oc.Err == nil || oc.Err.Code != retrieve.CodeInternal || strings.Contains(op.Render(oc), "secret") {
		t.Fatalf("%+v %q", oc, op.Render(oc))
	}
	b, _ := json.Marshal(oc.Value)
	if strings.Contains(string(b), "secret") {
		t.Fatalf("panic detail leaked: %s", b)
	}
}

func TestTimeout(t *testing.T) {
	tbl := ops.NewTable()
	tbl.Timeout = 20 * time.Millisecond
	tbl.Add(&ops.Op{Name: "wait", Input: objectSchema, Output: objectSchema,
		Handle: func(ctx context.Context, _ json.RawMessage) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}})
	op, _ := tbl.Lookup("wait")
	if oc := tbl.Call(context.Background(), op, nil, "test"); oc.Err == nil || oc.Err.Code != retrieve.CodeTimeout {
		t.Fatalf("%+v", oc.Err)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"target":"a"}`, `{"target":1}`, `{"target":"a"} x`, `null`, ``, `{"sections":[1]}`, `{"max_bytes":1e99}`, `{"target":{"path":"a"},"constraints":{"lines":"1-2"}}`, `{"target":"a","lines":"1","constraints":{"lines":"2"}}`, `{"constraints":{"nope":1}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, _, err := ops.DecodeRetrieve(json.RawMessage(s)); err != nil && retrieve.ErrorCode(err) != retrieve.CodeInputValidation {
			t.Fatalf("%q: %v", s, err)
		}
	})
}
