package ops

import (
	"context"
	"fmt"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/check"
	"github.com/retrieve-dev/retrieve/session"
)

// SessionIDArg documents the session_id argument of retrieve, quote and
// verify: a host that passes its session id makes the call a source of
// that session (docs/sessions.md).
const SessionIDArg = `"session_id": {"type": "string", "description": "Your agent session: the call joins it.", "examples": ["9ecf22fa-edf8-4332-ae85-b6d5456eda64"]}`

// SessionInput names a session.
type SessionInput struct {
	SessionID string `json:"session_id" jsonschema:"the session id, as its hooks received it"`
}

// SessionList is the output of session_list.
type SessionList struct {
	Sessions []session.Summary `json:"sessions"`
}

// CheckInput is the input of the check op.
type CheckInput struct {
	Text  string `json:"text" jsonschema:"The Markdown draft to check."`
	Loose bool   `json:"loose,omitempty" jsonschema:"Match quotations modulo whitespace and case."`
	// SessionID records the check on that session.
	SessionID string `json:"session_id,omitempty" jsonschema:"Your agent session: the call joins it."`
}

// SessionOps are the session operations of svc: list, show, verify, and
// check (a document's citations).
func SessionOps(svc *session.Service) []*Op {
	need := func(id string) error {
		if strings.TrimSpace(id) == "" {
			return retrieve.Errorf(retrieve.CodeInputValidation, "session_id is required").WithHint("session_list lists the recorded sessions")
		}
		return nil
	}
	return []*Op{
		Typed(Spec{
			Name: "session_list", Title: "List agent sessions", ReadOnly: true, Method: "GET",
			Description: `Recorded agent sessions, newest first: sources seen, failed tool calls, blocked end-of-turn checks.`,
			Examples:    []any{map[string]any{}},
		}, func(ctx context.Context, _ LintInput) (*SessionList, error) {
			l, err := svc.List(ctx)
			return &SessionList{Sessions: l}, err
		}),
		Typed(Spec{
			Name: "session_show", Title: "Show an agent session", ReadOnly: true, Method: "GET",
			Description: `Every source an agent saw in a session (file spans with their hash, listings, web fetches), its failed tool calls and end-of-turn checks.`,
			Examples:    []any{map[string]any{"session_id": "9ecf22fa-edf8-4332-ae85-b6d5456eda64"}},
		}, func(ctx context.Context, in SessionInput) (*session.Session, error) {
			if err := need(in.SessionID); err != nil {
				return nil, err
			}
			return svc.Show(ctx, in.SessionID)
		}),
		Typed(Spec{
			Name: "session_verify", Title: "Verify an agent session", ReadOnly: true,
			Description: `Re-check every source of a session: verified, changed (a diff of what the agent saw against now) or unavailable (the reason).`,
			Examples:    []any{map[string]any{"session_id": "9ecf22fa-edf8-4332-ae85-b6d5456eda64"}},
			Text: func(out any) string {
				v := out.(*session.Verification)
				var b strings.Builder
				fmt.Fprintf(&b, "session %s: %d verified, %d changed, %d unavailable\n", v.SessionID, v.Verified, v.Changed, v.Unavailable)
				for _, c := range v.Sources {
					fmt.Fprintf(&b, "%s %s\n", strings.ToUpper(c.Verification.Status), c.Source.Reference)
					if c.Verification.Diff != "" {
						b.WriteString(c.Verification.Diff)
					}
				}
				return b.String()
			},
		}, func(ctx context.Context, in SessionInput) (*session.Verification, error) {
			if err := need(in.SessionID); err != nil {
				return nil, err
			}
			return svc.Verify(ctx, in.SessionID)
		}),
		Typed(Spec{
			Name: "check_citations", Title: "Check the citations of a draft", ReadOnly: true, Aliases: []string{"check"},
			Description: `Check every citation of a Markdown draft before you send it (links [ref](ref "sha256:…"), footnotes [^1]: ref sha256:…, a quotation right before its citation): each must resolve, match its hash and hold its quotation. Fix every finding not ok.`,
			Examples:    []any{map[string]any{"text": "The notes say \"alpha beta\" [notes.txt:1-2](notes.txt:1-2)."}},
			Text: func(out any) string {
				var b strings.Builder
				_ = check.WriteTable(&b, out.(*check.Report))
				return b.String()
			},
		}, func(ctx context.Context, in CheckInput) (*check.Report, error) {
			// The server's budget: findings past it are left out (ok ones
			// first) and counted in omitted. (No budget argument: the
			// tool list has no room for one.)
			budget, err := CallBudget(ctx, nil)
			if err != nil {
				return nil, err
			}
			c := *svc.Checker
			c.Loose = in.Loose
			r, err := c.Check(ctx, "draft", []byte(in.Text))
			if err != nil {
				return nil, err
			}
			// Recorded whole, before the report is cut to the budget.
			if err := svc.Checked(in.SessionID, "check_citations", r); err != nil {
				addNote(ctx, "This check was not recorded on session "+in.SessionID+": "+retrieve.AsError(err).Message)
			}
			// The report is cut to the budget here, where the budget is
			// known: the edge would refuse it whole.
			transport := stateOf(ctx).transport
			r.Fit(budget, func(r *check.Report) int {
				var b strings.Builder
				if transport == "mcp" {
					_ = check.WriteTable(&b, r)
				}
				return MessageSize(transport, r, b.String())
			}, func(f check.Finding) int { return ItemSize(ctx, f) })
			return r, nil
		}),
	}
}
