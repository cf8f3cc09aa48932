// Package ops is the one table of operations that every server exposes.
// The MCP server (package mcpserver) and the HTTP JSON API (package httpapi)
// are both generated from a Table: a tool added here with Add appears as an
// MCP tool and as a /v1/ route, with the same input schema, the same output
// and the same error codes.
package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/retrieve-dev/retrieve"
)

// Op is one operation: its name, its documentation for a model, its input
// and output schemas, and its handler.
type Op struct {
	// Name is the MCP tool name and the route /v1/<Name>.
	Name string
	// Title is a short human title.
	Title string
	// Description is written for a model: when to call the tool, what it
	// returns and how to read it.
	Description string
	// ReadOnly marks tools that change nothing but the ledger
	// (MCP readOnlyHint). Recording a retrieval is not a side effect the
	// caller needs to approve.
	ReadOnly bool
	// OpenWorld marks ops that may reach outside the workspace (the web,
	// an API, a database): MCP openWorldHint.
	OpenWorld bool
	// Destructive marks write ops that may overwrite (MCP
	// destructiveHint); other write ops only add.
	Destructive bool
	// Aliases are former names, still accepted by tools/call and as
	// /v1/<alias> routes, never listed.
	Aliases []string
	// ArgAliases maps a former argument name to the name the input schema
	// shows (renameArgs): still accepted, in a body or a query string,
	// never listed.
	ArgAliases map[string]string
	// Method is the HTTP method of the route: GET ops take their input as
	// query parameters, POST ops as a JSON body.
	Method string
	// Input and Output are JSON Schemas (draft 2020-12) of type object.
	Input  json.RawMessage
	Output json.RawMessage
	// Handle runs the operation on a decoded input. It returns the
	// structured output, or an error; an output that is itself a failure
	// (a result envelope with error set) is returned with the error.
	Handle func(ctx context.Context, in json.RawMessage) (any, error)
	// Text renders a successful output compactly for a model; nil uses
	// indented JSON.
	Text func(out any) string
	// TextParts, set instead of Text by ops whose text ends with the
	// output's data, renders the text in two parts: a header and the data
	// string itself (not a copy), which a transport writes without joining
	// them (docs/servers.md, "Large results are encoded once").
	TextParts func(out any) (head, data string)
}

// Outcome is what a call produced: the structured output, whether it is an
// error, and the error when there is one.
type Outcome struct {
	// Value is the structured output: the op's output on success, the
	// failure envelope of a result op, or {"error": {...}} otherwise.
	Value any
	// Err is set on failure.
	Err *retrieve.Error
	// Text is the text block of an MCP call (empty over HTTP), or its
	// beginning when TextData is set: the block is Text + TextData.
	Text string
	// TextData is the end of the text block, the output's data string kept
	// apart (Op.TextParts).
	TextData string
	// Size is the size of the message as the transport sends it, at most
	// Budget.
	Size, Budget int
	// Encoded is Value's JSON, made once as the transport sends it (HTML
	// characters escaped over MCP, as the SDK's encoder does, not over
	// HTTP): what Size counts, and what the transports write, so that the
	// value is not encoded again (docs/servers.md, "Large results are
	// encoded once"). Nil when Value cannot be encoded.
	Encoded *Encoded
}

// ErrorBody is the structured output of a failed call that has no envelope
// of its own.
type ErrorBody struct {
	Error *retrieve.ErrorInfo `json:"error"`
}

// Table is an ordered set of operations. It is safe for concurrent calls
// once built.
type Table struct {
	mu     sync.RWMutex
	ops    []*Op
	byName map[string]*Op
	// Metrics counts calls, latencies and errors of every op.
	Metrics *Metrics
	// Timeout bounds one call when positive.
	Timeout time.Duration
	// Budget is the message budget (DefaultBudget, DefaultMaxBudget when
	// zero).
	Budget Budget
	// Kinds are the source kinds of the engine the table runs on, from its
	// registry (Core sets them; retrieve's schema offers the same): the
	// pages list them as the ledger's source filter.
	Kinds []string

	inflight atomic.Int64
	draining atomic.Bool
}

// NewTable returns an empty table.
func NewTable() *Table {
	return &Table{byName: map[string]*Op{}, Metrics: NewMetrics()}
}

// Add registers op; it panics on a duplicate or malformed op, which is a
// programming error caught by the first test that builds the table.
func (t *Table) Add(op *Op) {
	if op.Name == "" || op.Handle == nil {
		panic("ops: op without a name or handler")
	}
	for _, s := range []json.RawMessage{op.Input, op.Output} {
		var m map[string]any
		if err := json.Unmarshal(s, &m); err != nil || m["type"] != "object" {
			panic(fmt.Sprintf("ops: %s: schemas must be JSON objects of type object (%v)", op.Name, err))
		}
	}
	if op.Method == "" {
		op.Method = "POST"
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, n := range append([]string{op.Name}, op.Aliases...) {
		if _, dup := t.byName[n]; dup {
			panic("ops: duplicate op " + n)
		}
	}
	t.ops = append(t.ops, op)
	t.byName[op.Name] = op
	for _, a := range op.Aliases {
		t.byName[a] = op
	}
}

// Keep returns a table with the ops of t that keep accepts, sharing its
// metrics, timeout, budget and kinds: what `serve --tools` and `--read-only`
// expose.
func (t *Table) Keep(keep func(*Op) bool) *Table {
	k := NewTable()
	k.Metrics, k.Timeout, k.Budget, k.Kinds = t.Metrics, t.Timeout, t.Budget, t.Kinds
	for _, op := range t.Ops() {
		if keep(op) {
			k.Add(op)
		}
	}
	return k
}

// Ops returns the operations in registration order.
func (t *Table) Ops() []*Op {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return append([]*Op(nil), t.ops...)
}

// Names returns the sorted op names.
func (t *Table) Names() []string {
	var n []string
	for _, op := range t.Ops() {
		n = append(n, op.Name)
	}
	sort.Strings(n)
	return n
}

// Lookup returns the op called name (or formerly called so).
func (t *Table) Lookup(name string) (*Op, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	op, ok := t.byName[name]
	return op, ok
}

// Call runs op on a raw JSON input and always returns an Outcome.
// transport ("mcp" or "http") labels the metrics.
func (t *Table) Call(ctx context.Context, op *Op, in json.RawMessage, transport string) Outcome {
	done := t.Metrics.start(op.Name, transport)
	var (
		out any
		err error
	)
	t.inflight.Add(1)
	defer t.inflight.Add(-1)
	b := t.Budget.withDefaults()
	state := &callState{budget: b.Default, max: b.Max, transport: transport}
	ctx = context.WithValue(ctx, callKey{}, state)
	if t.draining.Load() {
		err = retrieve.Errorf(retrieve.CodeCanceled, "the server is shutting down").WithHint("retry against a running server")
	} else {
		if t.Timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, t.Timeout)
			defer cancel()
		}
		out, err = safeHandle(ctx, op, in)
	}
	oc := t.outcome(op, transport, state, out, err)
	code := ""
	if oc.Err != nil {
		code = string(oc.Err.Code)
	}
	done(code, oc.Value)
	return oc
}

// outcome wraps an op's output, renders its text block for MCP and holds
// the message to its budget: an output over budget becomes TOO_LARGE.
func (t *Table) outcome(op *Op, transport string, state *callState, out any, err error) Outcome {
	var oc Outcome
	if err != nil {
		oc.Err = retrieve.AsError(err)
		if isNil(out) {
			out = ErrorBody{Error: oc.Err.Info()}
		}
	}
	oc.Value = out
	oc.Budget = state.budget
	rewriteHints(transport, &oc)
	if transport == "mcp" {
		if oc.Err == nil && op.TextParts != nil {
			oc.Text, oc.TextData = op.TextParts(oc.Value)
		} else {
			oc.Text = op.Render(oc)
		}
	}
	if oc.Err == nil && state.note != "" {
		// A capped budget: a result says so in its assumptions (retrieveFit),
		// any other output in a top-level note, and so does its text.
		if v, ok := withNote(oc.Value, state.note); ok {
			oc.Value = v
			if transport == "mcp" && oc.TextData != "" {
				oc.TextData += "\nnote: " + state.note
			} else if transport == "mcp" {
				oc.Text += "\nnote: " + state.note
			}
		}
	}
	oc.encode(transport)
	if oc.Size > oc.Budget {
		size := oc.Size
		oc.Err = overBudget(op, size, oc.Budget)
		oc.Value = ErrorBody{Error: oc.Err.Info()}
		oc.Text, oc.TextData = "", ""
		if transport == "mcp" {
			oc.Text = op.Render(oc)
		}
		oc.encode(transport)
	}
	return oc
}

// encode sets Encoded, Value's JSON as transport sends it, and Size.
func (oc *Outcome) encode(transport string) {
	enc, err := Encode(oc.Value, transport != "http")
	if err != nil {
		oc.Encoded = nil
		oc.Size = MessageSize(transport, oc.Value, oc.Text, oc.TextData)
		return
	}
	oc.Encoded = enc
	oc.Size = envelopeBytes + enc.Len() - len("\n")
	if transport == "mcp" {
		oc.Size += textSize(oc.Text, oc.TextData)
	}
}

// withNote returns out's JSON object with a top-level "note", unless out
// is not an object or carries results with assumptions of their own (a
// result, retrieve_many's results), which hold the note already.
func withNote(out any, note string) (json.RawMessage, bool) {
	b, err := json.Marshal(out)
	if err != nil || len(b) < 2 || b[0] != '{' {
		return nil, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(b, &top) != nil {
		return nil, false
	}
	if _, ok := top["assumptions"]; ok {
		return nil, false
	}
	if _, ok := top["results"]; ok {
		return nil, false
	}
	n, _ := json.Marshal(note)
	v := append([]byte(`{"note":`), n...)
	if len(top) > 0 {
		v = append(v, ',')
	}
	return append(v, b[1:]...), true
}

// Drain refuses new calls and waits until the calls in flight are done
// (and their ledger entries written), or until ctx ends.
func (t *Table) Drain(ctx context.Context) error {
	t.draining.Store(true)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for t.inflight.Load() > 0 {
		select {
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func safeHandle(ctx context.Context, op *Op, in json.RawMessage) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, retrieve.Errorf(retrieve.CodeInternal, "internal error").WithErr(fmt.Errorf("panic in %s: %v", op.Name, r)).
				WithHint("this is a bug in retrieve; please report it with the call that caused it")
		}
	}()
	return op.Handle(ctx, in)
}

// Text renders an outcome for a model: the op's rendering on success, a
// compact error otherwise.
func (op *Op) Render(oc Outcome) string {
	if oc.Err != nil {
		s := fmt.Sprintf("ERROR %s: %s", oc.Err.Code, oc.Err.Message)
		if oc.Err.Hint != "" {
			s += "\nhint: " + oc.Err.Hint
		}
		if len(oc.Err.Alternatives) > 0 {
			s += "\nalternatives: " + fmt.Sprint(oc.Err.Alternatives)
		}
		if r, ok := oc.Value.(*retrieve.Result); ok && r.Error != nil {
			if p, ok := r.Provenance.Metadata["closest_passage"]; ok {
				s += fmt.Sprintf("\nclosest passage (NOT a match): %v", p)
			}
		}
		return s
	}
	if op.TextParts != nil {
		head, data := op.TextParts(oc.Value)
		return head + data
	}
	if op.Text != nil {
		return op.Text(oc.Value)
	}
	b, _ := json.Marshal(oc.Value)
	return string(b)
}

// Decode strictly decodes a JSON object into v: unknown fields are
// refused, an empty input is the zero value. The error is
// INPUT_VALIDATION_FAILED with a hint naming the schema.
func Decode(in json.RawMessage, v any) error {
	in = bytes.TrimSpace(in)
	if len(in) == 0 || string(in) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badArguments(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return retrieve.Errorf(retrieve.CodeInputValidation, "bad arguments: trailing data after the JSON object").
			WithHint("pass exactly one JSON object")
	}
	return nil
}

// badArguments is the error of an input that does not decode: a decoder's
// message made readable, or the message and hint of a field's own
// validation (target, constraints) without its code repeated.
func badArguments(err error) *retrieve.Error {
	var re *retrieve.Error
	if errors.As(err, &re) {
		hint := re.Hint
		if hint == "" {
			hint = "pass a JSON object that matches the tool's input schema"
		}
		return retrieve.Errorf(retrieve.CodeInputValidation, "bad arguments: %s", re.Message).WithHint("%s", hint)
	}
	return retrieve.Errorf(retrieve.CodeInputValidation, "bad arguments: %s", cleanJSONError(err)).
		WithHint("pass a JSON object that matches the tool's input schema")
}

func cleanJSONError(err error) string {
	switch e := err.(type) {
	case *json.UnmarshalTypeError:
		if e.Field != "" {
			return fmt.Sprintf("field %q must be %s, not %s", e.Field, e.Type.String(), e.Value)
		}
		return fmt.Sprintf("expected %s, not %s", e.Type.String(), e.Value)
	case *json.SyntaxError:
		return "invalid JSON: " + e.Error()
	}
	return err.Error()
}

// isNil reports whether v is nil or a nil pointer in an interface.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}
