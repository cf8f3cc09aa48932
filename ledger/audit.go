package ledger

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"

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
	// Witness is its RFC 3161 timestamp, when one was taken and checks.
	Witness    *Witness  `json:"witness,omitempty"`
	Consistent bool      `json:"consistent"`
	Findings   []Finding `json:"findings"`
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
	a := newAuditor(len(leaves))
	seen := make(map[string]bool, len(leaves))
	for _, l := range leaves {
		seen[l.ID] = true
		a.leaf(l, byID[l.ID])
	}
	for _, e := range entries {
		if !seen[e.ID] {
			a.unlogged(e)
		}
	}
	return a.finish(last)
}

// AuditLog is Audit over a store that walks its log and entries together
// (LogScanner): the ledger is never held in memory, only the leaf hashes
// (32 bytes a leaf) and the entries whose leaf differs.
func AuditLog(ctx context.Context, s LogScanner, last *Checkpoint) (*Report, error) {
	return AuditLogWith(ctx, s, AuditOptions{Checkpoint: last})
}

// AuditOptions are what AuditLogWith audits against.
type AuditOptions struct {
	// Checkpoint is the last checkpoint, or nil.
	Checkpoint *Checkpoint
	// Published are the leaf hashes of the checkpoint's first Size
	// positions as they were when it was signed (saved beside it). When
	// they hash to its root, they locate an entry rewritten together with
	// its leaf, which the root alone only says exists.
	Published []tlog.Hash
}

// AuditLogWith is AuditLog against a checkpoint and its published leaf
// hashes. The leaf hashes are recomputed on every core while the store is
// read (in batches, checked in order).
func AuditLogWith(ctx context.Context, s LogScanner, o AuditOptions) (*Report, error) {
	a := newAuditor(0)
	if err := a.publish(o.Checkpoint, o.Published); err != nil {
		return nil, err
	}
	p := newHashPipeline(a)
	err := s.ScanLog(ctx,
		func(l Leaf, e *store.Entry) error { p.add(auditItem{leaf: l, entry: e}); return nil },
		func(e *store.Entry) error { p.add(auditItem{entry: e, unlogged: true}); return nil })
	p.close()
	if err != nil {
		return nil, err
	}
	return a.finish(o.Checkpoint)
}

// auditItem is one row of a log scan: a leaf and its entry, or an entry
// without a leaf; computed is the entry's leaf hash at the leaf's index.
type auditItem struct {
	leaf     Leaf
	entry    *store.Entry
	unlogged bool
	computed tlog.Hash
}

// auditBatch is a run of items hashed by one worker.
type auditBatch struct {
	items []auditItem
	done  chan struct{}
}

// hashPipeline hashes batches of items on every core and hands them to
// the auditor in scan order.
type hashPipeline struct {
	a        *auditor
	cur      *auditBatch
	work     chan *auditBatch
	ordered  chan *auditBatch
	finished chan struct{}
}

const auditBatchSize = 256

func newHashPipeline(a *auditor) *hashPipeline {
	workers := max(runtime.GOMAXPROCS(0), 1)
	p := &hashPipeline{a: a, work: make(chan *auditBatch, 2*workers), ordered: make(chan *auditBatch, 4*workers), finished: make(chan struct{})}
	for range workers {
		go func() {
			for b := range p.work {
				for i := range b.items {
					if it := &b.items[i]; it.entry != nil && !it.unlogged {
						it.computed = LeafHash(it.leaf.Index, it.entry)
					}
				}
				close(b.done)
			}
		}()
	}
	go func() {
		defer close(p.finished)
		for b := range p.ordered {
			<-b.done
			for _, it := range b.items {
				if it.unlogged {
					a.unlogged(it.entry)
				} else {
					a.leafHashed(it.leaf, it.entry, it.computed)
				}
			}
		}
	}()
	return p
}

func (p *hashPipeline) add(it auditItem) {
	if p.cur == nil {
		p.cur = &auditBatch{items: make([]auditItem, 0, auditBatchSize), done: make(chan struct{})}
	}
	p.cur.items = append(p.cur.items, it)
	if len(p.cur.items) == auditBatchSize {
		p.flush()
	}
}

func (p *hashPipeline) flush() {
	if p.cur == nil {
		return
	}
	p.ordered <- p.cur
	p.work <- p.cur
	p.cur = nil
}

// close hashes what is left and waits until the auditor has every item.
func (p *hashPipeline) close() {
	p.flush()
	close(p.work)
	close(p.ordered)
	<-p.finished
}

// auditor checks a log leaf by leaf, in index order.
type auditor struct {
	r          *Report
	hashes     []tlog.Hash
	mismatched []mismatch
	// published are the checkpoint's leaf hashes, when they verified.
	published []tlog.Hash
}

// mismatch is a leaf whose entry no longer hashes to it.
type mismatch struct {
	leaf  Leaf
	entry *store.Entry // nil past maxPairing
}

func newAuditor(n int) *auditor {
	return &auditor{r: &Report{Findings: []Finding{}}, hashes: make([]tlog.Hash, 0, n)}
}

// publish checks the published leaf hashes against the checkpoint's root
// and keeps them when they match; when they do not, the audit says so.
func (a *auditor) publish(last *Checkpoint, published []tlog.Hash) error {
	if last == nil || published == nil {
		return nil
	}
	ok := int64(len(published)) == last.Size
	if ok {
		t, err := NewTree(published)
		if err != nil {
			return err
		}
		root, err := t.Root(t.Size())
		if err != nil {
			return err
		}
		ok = root == last.Root
	}
	if !ok {
		a.r.Findings = append(a.r.Findings, Finding{Kind: Rewritten, Index: -1,
			Detail: fmt.Sprintf("the leaf hashes saved with the checkpoint of size %d do not hash to its root: they were edited", last.Size)})
		return nil
	}
	a.published = published
	return nil
}

// leaf checks the next leaf against its entry (nil: none) and against the
// published leaf hash of its position.
func (a *auditor) leaf(l Leaf, e *store.Entry) {
	var computed tlog.Hash
	if e != nil {
		computed = LeafHash(l.Index, e)
	}
	a.leafHashed(l, e, computed)
}

// leafHashed is leaf with the entry's leaf hash at l.Index computed.
func (a *auditor) leafHashed(l Leaf, e *store.Entry, computed tlog.Hash) {
	i := int64(len(a.hashes))
	a.hashes = append(a.hashes, l.Hash)
	before := len(a.r.Findings)
	if l.Index != i {
		a.r.Findings = append(a.r.Findings, Finding{Kind: Rewritten, Index: i, ID: l.ID,
			Detail: fmt.Sprintf("the leaf at position %d says %d: leaves before it were deleted", i, l.Index)})
	}
	switch {
	case e == nil && l.Tombstone:
		a.r.Tombstones++
	case e == nil:
		a.r.Findings = append(a.r.Findings, Finding{Kind: Removed, Index: l.Index, ID: l.ID,
			Detail: "the log has a leaf for this entry, the ledger has no entry and no tombstone"})
	case computed != l.Hash:
		m := mismatch{leaf: l}
		if len(a.mismatched) < maxPairing {
			m.entry = e
		}
		a.mismatched = append(a.mismatched, m)
		return
	}
	if i < int64(len(a.published)) && a.published[i] != l.Hash {
		if len(a.r.Findings) == before { // not named already
			a.r.Findings = append(a.r.Findings, Finding{Kind: Rewritten, Index: i, ID: l.ID,
				Detail: "the entry and its leaf were rewritten together: the leaf is not the one the checkpoint signed"})
		}
	}
}

// unlogged reports an entry that has no leaf.
func (a *auditor) unlogged(e *store.Entry) {
	a.r.Findings = append(a.r.Findings, Finding{Kind: Inserted, Index: -1, ID: e.ID,
		Detail: "the ledger has this entry, the log has no leaf for it"})
}

// finish names the mismatches, builds the tree and checks it against last.
func (a *auditor) finish(last *Checkpoint) (*Report, error) {
	r := a.r
	r.Size, r.Checkpoint = int64(len(a.hashes)), last
	pair := len(a.mismatched) <= maxPairing
	found := []Finding{} // never null in the report
	for _, m := range a.mismatched {
		l := m.leaf
		f := Finding{Kind: Altered, Index: l.Index, ID: l.ID,
			Detail: "the entry no longer hashes to its leaf (a field of the entry was edited)"}
		if pair {
			for _, o := range a.mismatched {
				if o.leaf.Index != l.Index && LeafHash(o.leaf.Index, m.entry) == l.Hash {
					f.Kind = Reordered
					f.Detail = fmt.Sprintf("the leaf here was made for position %d: the leaves were moved", o.leaf.Index)
				}
			}
		}
		found = append(found, f)
	}
	// Leaf findings in index order, before the entries without a leaf.
	r.Findings = append(found, r.Findings...)
	sort.SliceStable(r.Findings, func(i, j int) bool { return findingOrder(r.Findings[i]) < findingOrder(r.Findings[j]) })
	t, err := NewTree(a.hashes)
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
		} else if old != last.Root && a.published == nil {
			// (With published hashes, each position that differs is named.)
			r.Findings = append(r.Findings, Finding{Kind: Rewritten, Index: -1,
				Detail: fmt.Sprintf("the first %d leaves no longer hash to the checkpoint's root: the log itself was edited", last.Size)})
		}
	}
	r.Consistent = len(r.Findings) == 0
	return r, nil
}

// findingOrder sorts findings about positions first, by position, then
// those about entries without a leaf or the whole log.
func findingOrder(f Finding) int64 {
	if f.Index < 0 {
		return math.MaxInt64
	}
	return f.Index
}
