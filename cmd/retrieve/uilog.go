package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/ui"
)

// uiLog is the review UI's view of the tamper-evident log (ui.Log): its
// state on the ledger page, an audit on demand, and evidence bundles of a
// session or of the page's filter. The UI never signs: a bundle carries
// the latest checkpoint saved by `retrieve ledger checkpoint`.
type uiLog struct{ a *app }

// uiLogOf returns the UI's log, or nil when the store keeps none.
func uiLogOf(a *app) ui.Log {
	if a.Store == nil {
		return nil
	}
	if _, ok := a.Store.(ledger.LeafStore); !ok {
		return nil
	}
	return uiLog{a: a}
}

func (l uiLog) State(ctx context.Context, audit bool) (*ui.LogState, error) {
	leaves, err := logLeaves(ctx, l.a.Store)
	if err != nil {
		return nil, err
	}
	st := &ui.LogState{Size: int64(len(leaves))}
	for _, lf := range leaves {
		if lf.Tombstone {
			st.Tombstones++
		}
	}
	last, err := lastCheckpoint(checkpointDir(l.a.Root), "")
	if err != nil {
		return st, err
	}
	if last != nil {
		st.Checkpoint = &ui.LogCheckpoint{Origin: last.Origin, Size: last.Size, Root: last.Root.String(), Time: last.Time}
	}
	if !audit {
		return st, nil
	}
	dir := checkpointDir(l.a.Root)
	rep, err := auditStore(ctx, l.a.Store, last, publishedLeaves(dir, last)) // as `ledger audit`
	if err != nil {
		return st, err
	}
	checkWitness(dir, rep)
	st.Audited, st.Consistent, st.Root = true, rep.Consistent, rep.Root
	for _, f := range rep.Findings {
		where := ""
		if f.Index >= 0 {
			where = fmt.Sprintf(" at %d", f.Index)
		}
		st.Findings = append(st.Findings, fmt.Sprintf("%s%s %s: %s", f.Kind, where, f.ID, f.Detail))
	}
	return st, nil
}

func (l uiLog) Export(ctx context.Context, w io.Writer, sel ui.ExportSelection) error {
	o := &exportOptions{Global: l.a.g, Session: sel.Session, Format: exportBundle}
	if sel.Session == "" {
		now := time.Now()
		since, err := ops.TimeBound("since", sel.Since, now)
		if err != nil {
			return err
		}
		until, err := ops.TimeBound("until", sel.Until, now)
		if err != nil {
			return err
		}
		// The page's rows: the log operation's filter (retrievals without
		// verification runs unless op says otherwise, targets redacted).
		f := &store.Filter{Target: retrieve.RedactText(sel.Target), Source: sel.Source, Op: sel.Op, Status: sel.Status, Since: since, Until: until}
		switch sel.Op {
		case ops.LogRetrievals:
			f.ExcludeOp = "verify"
		case ops.LogAll:
			f.Op = ""
		}
		o.filter = f
	}
	entries, selection, _, err := selectEntries(ctx, l.a, nil, o)
	if err != nil {
		return err
	}
	in, err := bundleInput(ctx, l.a, entries, "")
	if err != nil {
		return err
	}
	in.Selection = selection
	if _, err := ledger.WriteBundle(ctx, w, *in); err != nil {
		return ledgerError(err)
	}
	return nil
}
