package ledger

import (
	"fmt"

	"github.com/retrieve-dev/retrieve/store"
	"golang.org/x/mod/sumdb/tlog"
)

// Kinds of finding.
const (
	// Altered: the entry's leaf hash, recomputed, differs from the leaf.
	Altered = "altered"
	// Inserted: an entry that has no leaf.
	Inserted = "inserted"
	// Removed: a leaf without an entry and without a tombstone.
	Removed = "removed"
	// Reordered: the entry's hash matches another leaf's position: the
	// leaves were moved.
	Reordered = "reordered"
	// Rewritten: the stored leaves no longer hash to the checkpoint's root
	// (the leaf table itself was edited), or the log is shorter than it.
	Rewritten = "rewritten"
)

// Finding is one discrepancy the audit names.
type Finding struct {
	Kind  string `json:"kind"`
	Index int64  `json:"index"` // -1 for an inserted entry or the whole log
	ID    string `json:"id,omitempty"`
	// Detail says what differs, for people.
	Detail string `json:"detail"`
}

// Report is the audit's result.
type Report struct {
	Size       int64  `json:"size"`
	Root       string `json:"root"`
	Tombstones int    `json:"tombstones"`
	// Checkpoint is the checkpoint audited against, if any.
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
	Consistent bool        `json:"consistent"`
	Findings   []Finding   `json:"findings"`
}

// maxPairing caps the mismatches compared pairwise to tell a reorder from
// an edit.
const maxPairing = 1000

// Audit recomputes the leaves of entries against the stored leaves and,
// when last is not nil, the stored log against that checkpoint.
func Audit(leaves []Leaf, entries []*store.Entry, last *Checkpoint) (*Report, error) {
	byID := make(map[string]*store.Entry, len(entries))
	for _, e := range entries {
		byID[e.ID] = e
	}
	r := &Report{Size: int64(len(leaves)), Checkpoint: last, Findings: []Finding{}}
	hashes := make([]tlog.Hash, len(leaves))
	seen := make(map[string]bool, len(leaves))
	var mismatched []int
	for i, l := range leaves {
		hashes[i] = l.Hash
		seen[l.ID] = true
		if l.Index != int64(i) {
			r.Findings = append(r.Findings, Finding{Kind: Rewritten, Index: int64(i), ID: l.ID,
				Detail: fmt.Sprintf("the leaf at position %d says %d: leaves before it were deleted", i, l.Index)})
		}
		e, ok := byID[l.ID]
		switch {
		case !ok && l.Tombstone:
			r.Tombstones++
		case !ok:
			r.Findings = append(r.Findings, Finding{Kind: Removed, Index: l.Index, ID: l.ID,
				Detail: "the log has a leaf for this entry, the ledger has no entry and no tombstone"})
		case LeafHash(l.Index, e) != l.Hash:
			mismatched = append(mismatched, i)
		}
	}
	for _, i := range mismatched {
		l := leaves[i]
		f := Finding{Kind: Altered, Index: l.Index, ID: l.ID,
			Detail: "the entry no longer hashes to its leaf (a field of the entry was edited)"}
		if len(mismatched) <= maxPairing {
			for _, j := range mismatched {
				if j != i && LeafHash(leaves[j].Index, byID[l.ID]) == l.Hash {
					f.Kind = Reordered
					f.Detail = fmt.Sprintf("the leaf here was made for position %d: the leaves were moved", leaves[j].Index)
				}
			}
		}
		r.Findings = append(r.Findings, f)
	}
	for _, e := range entries {
		if !seen[e.ID] {
			r.Findings = append(r.Findings, Finding{Kind: Inserted, Index: -1, ID: e.ID,
				Detail: "the ledger has this entry, the log has no leaf for it"})
		}
	}
	t, err := NewTree(hashes)
	if err != nil {
		return nil, err
	}
	root, err := t.Root(t.Size())
	if err != nil {
		return nil, err
	}
	r.Root = root.String()
	if last != nil {
		if last.Size > t.Size() {
			r.Findings = append(r.Findings, Finding{Kind: Rewritten, Index: -1,
				Detail: fmt.Sprintf("the log has %d leaves, the checkpoint %d: leaves were deleted", t.Size(), last.Size)})
		} else if old, err := t.Root(last.Size); err != nil {
			return nil, err
		} else if old != last.Root {
			r.Findings = append(r.Findings, Finding{Kind: Rewritten, Index: -1,
				Detail: fmt.Sprintf("the first %d leaves no longer hash to the checkpoint's root: the log itself was edited", last.Size)})
		}
	}
	r.Consistent = len(r.Findings) == 0
	return r, nil
}
