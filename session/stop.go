package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/check"
)

// DefaultMaxBlocks is how many end-of-turn checks in a row may block
// before the hook lets the turn end anyway (Claude Code itself gives up
// after more).
const DefaultMaxBlocks = 3

// StopOptions configure the end-of-turn check.
type StopOptions struct {
	// Check turns the citation check on (provenance.check_on_stop).
	Check bool
	// MaxBlocks caps consecutive blocks (DefaultMaxBlocks when 0).
	MaxBlocks int
}

// StopOutcome is the end-of-turn decision: Block with the Reason the host
// shows the agent, or not.
type StopOutcome struct {
	Block  bool          `json:"block" yaml:"block"`
	Reason string        `json:"reason" yaml:"reason"`
	Report *check.Report `json:"report" yaml:"report"`
	// Notes say why nothing was checked, or why a failing answer was let
	// through.
	Notes []string `json:"notes" yaml:"notes"`
}

// Stop runs at the end of a turn: it records the session's sources in the
// ledger, then (when opts.Check) checks the citations of the agent's final
// answer — ev.Text, else the last assistant message of ev.TranscriptPath —
// and blocks when one fails. Its own failures (no transcript, a transcript
// still being written) never block.
func (s *Service) Stop(ctx context.Context, ev *Event, opts StopOptions) (*StopOutcome, error) {
	out := &StopOutcome{Notes: []string{}}
	if _, err := s.Ingest(ctx, ev.SessionID); err != nil && retrieve.AsError(err).Code != retrieve.CodeNotFound {
		out.Notes = append(out.Notes, "the session's sources were not recorded: "+retrieve.AsError(err).Message)
	}
	if !opts.Check {
		out.Notes = append(out.Notes, "the end-of-turn check is off (provenance.check_on_stop)")
		return out, nil
	}
	text := ev.Text
	if strings.TrimSpace(text) == "" && ev.TranscriptPath != "" {
		t, err := LastAssistantText(ev.TranscriptPath)
		if err != nil {
			out.Notes = append(out.Notes, "nothing checked: "+retrieve.AsError(err).Message)
			return out, nil
		}
		text = t
	}
	if strings.TrimSpace(text) == "" {
		out.Notes = append(out.Notes, "nothing checked: no final answer")
		return out, nil
	}
	report, err := s.Checker.Check(ctx, "final answer", []byte(text))
	if err != nil {
		out.Notes = append(out.Notes, "nothing checked: "+retrieve.AsError(err).Message)
		return out, nil
	}
	out.Report = report
	rec := Record{Type: TypeStop, ID: retrieve.NewID(), Session: ev.SessionID, Time: s.now().UTC(), Host: ev.Host, Decision: "pass"}
	if report.Passed() {
		return out, s.Journal.Append(ev.SessionID, rec)
	}
	for _, f := range report.Failing() {
		rec.Failures = append(rec.Failures, fmt.Sprintf("%s: %s", f.Reference, f.Reason))
	}
	max := opts.MaxBlocks
	if max <= 0 {
		max = DefaultMaxBlocks
	}
	if n := s.consecutiveBlocks(ev.SessionID); n >= max {
		rec.Decision = "allow-after-blocks"
		out.Notes = append(out.Notes, fmt.Sprintf("%d failing citations let through: the turn was already blocked %d times in a row", len(rec.Failures), n))
		return out, s.Journal.Append(ev.SessionID, rec)
	}
	rec.Decision = "block"
	out.Block, out.Reason = true, BlockReason(report)
	return out, s.Journal.Append(ev.SessionID, rec)
}

func (s *Service) consecutiveBlocks(id string) int {
	recs, _, err := s.Journal.Read(id)
	if err != nil {
		return 0
	}
	n := 0
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Type != TypeStop {
			continue
		}
		if recs[i].Decision != "block" {
			break
		}
		n++
	}
	return n
}

// BlockReason is the message the agent gets when its answer is blocked:
// each failing citation, where it is and why, and what to do.
func BlockReason(r *check.Report) string {
	fails := r.Failing()
	var b strings.Builder
	fmt.Fprintf(&b, "retrieve check: %d of %d citations in your answer cannot be proven. Fix or remove each one before you finish:\n", len(fails), r.Citations)
	for i, f := range fails {
		fmt.Fprintf(&b, "%d. line %d: %s — %s", i+1, f.Line, f.Reference, f.Reason)
		if f.Hint != "" {
			fmt.Fprintf(&b, " (%s)", f.Hint)
		}
		b.WriteByte('\n')
	}
	b.WriteString("Quote sources verbatim, cite the span that holds the quotation, and give the hash that `retrieve get` or `retrieve cite` prints.")
	return b.String()
}
