package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/retrieve-dev/retrieve"
)

// Message budgets. Every MCP tool result and every /v1 response is kept
// under a size budget counted over the whole message: for MCP the text
// block and structuredContent together (the data is in both, see
// docs/servers.md), for HTTP the JSON body. Ops that return large data cut
// it to fit and give the reference of the next part (extraction.next) or a
// cursor (next_cursor); the edge refuses, as TOO_LARGE, anything that still
// does not fit.
const (
	// DefaultBudget is the budget of a call that asks for none: 40,000
	// bytes, well inside Claude Code's default cap on tool output (25,000
	// tokens, ~100 KB of text) and its 50,000-character spill threshold.
	DefaultBudget = 40_000
	// DefaultMaxBudget is the most a call may ask for unless the server
	// raises it.
	DefaultMaxBudget = 1 << 20
	// MinBudget is the smallest budget a call may ask for: room for a
	// citation, the result's fields and some data.
	MinBudget = 4096
	// envelopeBytes is what a transport adds around the output (JSON-RPC
	// envelope and the content block's keys).
	envelopeBytes = 256
)

// Budget is the size budget of a server: Default for calls that set none,
// Max for calls that ask for more.
type Budget struct {
	Default int
	Max     int
}

// withDefaults fills zero fields.
func (b Budget) withDefaults() Budget {
	if b.Default <= 0 {
		b.Default = DefaultBudget
	}
	if b.Max <= 0 {
		b.Max = max(DefaultMaxBudget, b.Default)
	}
	if b.Default > b.Max {
		b.Default = b.Max
	}
	return b
}

// callState is what Table.Call tells an op about its call.
type callState struct {
	budget    int
	max       int
	transport string
	note      string
}

type callKey struct{}

func stateOf(ctx context.Context) *callState {
	if s, ok := ctx.Value(callKey{}).(*callState); ok {
		return s
	}
	// Outside a server call (the CLI) nothing travels in a message.
	return &callState{budget: math.MaxInt, max: math.MaxInt, transport: "cli"}
}

// addNote adds note to the call's top-level note (Typed ops' outputs have
// one), after any other.
func addNote(ctx context.Context, note string) {
	s := stateOf(ctx)
	if s.note != "" {
		s.note += "; "
	}
	s.note += note
}

// CallBudget validates the budget a call asked for (0: the server's
// default) and returns the budget in force. Above the server maximum the
// maximum is used and Note says so; 0 or less from a caller is
// INPUT_VALIDATION_FAILED (pass nothing for the default).
func CallBudget(ctx context.Context, asked *int) (int, error) {
	s := stateOf(ctx)
	if asked == nil {
		return s.budget, nil
	}
	switch {
	case *asked < MinBudget:
		return 0, retrieve.Errorf(retrieve.CodeInputValidation, "budget %d is too small", *asked).
			WithHint("give at least %d bytes, or leave budget out for the server's default (%d)", MinBudget, s.budget)
	case *asked > s.max:
		s.budget = s.max
		s.note = fmt.Sprintf("The budget asked (%d bytes) is above this server's maximum: %d bytes were used", *asked, s.max)
	default:
		s.budget = *asked
	}
	return s.budget, nil
}

// BudgetNote is the note of a capped budget, "" when the budget was not
// capped.
func BudgetNote(ctx context.Context) string { return stateOf(ctx).note }

// ItemSize is what one item of a list adds to the message: its JSON, and
// over MCP that JSON again inside the text block (escaped as a string),
// plus a separator each.
func ItemSize(ctx context.Context, item any) int {
	b, err := json.Marshal(item)
	if err != nil {
		return 0
	}
	n := len(b) + 1
	if stateOf(ctx).transport == "mcp" {
		n += jsonLen(string(b)) + 1
	}
	return n
}

// MessageSize is the size of an outcome as the transport sends it: the
// JSON of the value, plus the JSON string of the text block over MCP (the
// concatenation of text's parts), plus the envelope.
func MessageSize(transport string, value any, text ...string) int {
	n := envelopeBytes + jsonLen(value)
	if transport == "mcp" {
		n += textSize(text...)
	}
	return n
}

// textSize is the size of the MCP text block made of text's parts, as one
// JSON string.
func textSize(text ...string) int {
	n := len(`""`)
	for _, t := range text {
		n += JSONStringLen(t, true) - len(`""`)
	}
	return n
}

// overBudget is the error of an output that does not fit its budget.
func overBudget(op *Op, size, budget int) *retrieve.Error {
	return retrieve.Errorf(retrieve.CodeTooLarge, "the %s result is %d bytes, over the message budget of %d bytes", op.Name, size, budget).
		WithHint("ask for less (lines, a section, select, limit), or a larger budget up to the server's maximum")
}
