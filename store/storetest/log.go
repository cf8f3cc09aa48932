package storetest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/retrieve-dev/retrieve/store"
	"golang.org/x/mod/sumdb/tlog"
)

// Tamper edits a store's database behind its back, as someone with write
// access to it would.
type Tamper struct {
	// Exec runs one statement on the store's database.
	Exec func(t *testing.T, query string)
	// Blob is the SQL literal of b in the store's dialect.
	Blob func(b []byte) string
	// LeafSQL are the statements that move the leaf at position $1 to $2,
	// delete the leaf at $1 and set the hash at $1 to $2; empty: the
	// leaves are rows of ledger_leaves (idx, id, hash).
	MoveLeaf, DeleteLeaf, SetLeaf string
}

// leafSQL fills one of the Tamper's leaf statements with its arguments.
func (tp Tamper) leafSQL(q, dflt string, args ...string) string {
	if q == "" {
		q = dflt
	}
	for i := len(args); i > 0; i-- {
		q = strings.ReplaceAll(q, fmt.Sprintf("$%d", i), args[i-1])
	}
	return q
}

func (tp Tamper) moveLeaf(t *testing.T, from, to string) {
	tp.Exec(t, tp.leafSQL(tp.MoveLeaf, "UPDATE ledger_leaves SET idx = $2 WHERE idx = $1", from, to))
}

func (tp Tamper) deleteLeaf(t *testing.T, at string) {
	tp.Exec(t, tp.leafSQL(tp.DeleteLeaf, "DELETE FROM ledger_leaves WHERE idx = $1", at))
}

func (tp Tamper) setLeaf(t *testing.T, at string, h []byte) {
	tp.Exec(t, tp.leafSQL(tp.SetLeaf, "UPDATE ledger_leaves SET hash = $2 WHERE idx = $1", at, tp.Blob(h)))
}

// LogOpener returns a new, empty store that keeps the tamper-evident log
// (ledger.LeafStore and ledger.LogScanner), a second handle on the same
// store (another pool, as another process or replica has), and a Tamper.
type LogOpener func(t *testing.T) (s, second store.Store, tamper Tamper)

// RunLog runs the conformance suite of the tamper-evident log: many
// writers, gc's tombstones, and each way of editing a store by hand
// named by the audit.
func RunLog(t *testing.T, open LogOpener) {
	t.Run("Log/ConcurrentWriters", func(t *testing.T) { testLogConcurrentWriters(t, open) })
	t.Run("Log/GCTombstones", func(t *testing.T) { testLogGCTombstones(t, open) })
	t.Run("Log/Tampering", func(t *testing.T) { testLogTampering(t, open) })
}

// Audit audits s's log against last (nil: none) and published (the leaf
// hashes saved with last, or nil) with ledger.AuditLogWith, and checks that
// ledger.Audit over Leaves and Entries finds the same when published is
// nil.
func Audit(t *testing.T, s store.Store, last *ledger.Checkpoint, published []tlog.Hash) *ledger.Report {
	t.Helper()
	ctx := context.Background()
	rep, err := ledger.AuditLogWith(ctx, s.(ledger.LogScanner), ledger.AuditOptions{Checkpoint: last, Published: published})
	if err != nil {
		t.Fatal(err)
	}
	if published != nil {
		return rep
	}
	leaves, err := s.(ledger.LeafStore).Leaves(ctx)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := s.Entries(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := ledger.Audit(leaves, entries, last)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := findings(rep), findings(whole); !slices.Equal(a, b) || rep.Root != whole.Root || rep.Size != whole.Size {
		t.Errorf("AuditLog and Audit disagree:\n%v (%s, %d)\n%v (%s, %d)", a, rep.Root, rep.Size, b, whole.Root, whole.Size)
	}
	return rep
}

// findings are the kind, index and id of each finding, sorted.
func findings(r *ledger.Report) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, fmt.Sprintf("%s %d %s", f.Kind, f.Index, f.ID))
	}
	sort.Strings(out)
	return out
}

// testLogConcurrentWriters: two handles (pools) with eight writers each
// append at once; every entry has one leaf, at positions 0…n-1 with no
// gap and none shared, and the log audits consistent.
func testLogConcurrentWriters(t *testing.T, open LogOpener) {
	ctx := context.Background()
	a, b, _ := open(t)
	const writers, each = 8, 20
	var wg sync.WaitGroup
	errs := make(chan error, 2*writers*each)
	for h, s := range []store.Store{a, b} {
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					errs <- s.Append(ctx, entry(h*1000+w*each+i, "get", fmt.Sprintf("w%d-%d.md", w, i), store.StatusOK))
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	n := 2 * writers * each
	for _, s := range []store.Store{a, b} {
		leaves, err := s.(ledger.LeafStore).Leaves(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(leaves) != n {
			t.Fatalf("%d leaves, want %d", len(leaves), n)
		}
		ids := map[string]bool{}
		for i, l := range leaves {
			if l.Index != int64(i) {
				t.Fatalf("leaf %d has position %d: a gap or a shared position", i, l.Index)
			}
			if ids[l.ID] {
				t.Fatalf("entry %s has two leaves", l.ID)
			}
			ids[l.ID] = true
		}
		if rep := Audit(t, s, nil, nil); !rep.Consistent || rep.Size != int64(n) {
			t.Fatalf("audit: consistent %v, size %d, findings %+v", rep.Consistent, rep.Size, rep.Findings)
		}
	}
}

// testLogGCTombstones: gc leaves tombstones, the log still verifies
// against a checkpoint taken before, and an entry copied back gets its
// leaf back rather than a second one.
func testLogGCTombstones(t *testing.T, open LogOpener) {
	ctx := context.Background()
	s, _, _ := open(t)
	var es []*store.Entry
	for i := range 5 {
		e := entry(i, "get", fmt.Sprintf("g%d.md", i), store.StatusOK)
		if err := s.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
	before := checkpoint(t, s)
	n, err := s.DeleteEntriesBefore(ctx, es[2].Time)
	if err != nil || n != 2 {
		t.Fatalf("deleted %d, %v; want 2", n, err)
	}
	rep := Audit(t, s, before, nil)
	if !rep.Consistent || rep.Tombstones != 2 || rep.Size != 5 {
		t.Fatalf("after gc: consistent %v, %d tombstones, size %d, findings %+v", rep.Consistent, rep.Tombstones, rep.Size, rep.Findings)
	}
	type importer interface {
		ImportEntries(context.Context, []*store.Entry) (int, error)
	}
	if imp, ok := s.(importer); ok {
		if k, err := imp.ImportEntries(ctx, es[:1]); err != nil || k != 1 {
			t.Fatalf("import: %d, %v", k, err)
		}
		rep := Audit(t, s, before, nil)
		if !rep.Consistent || rep.Tombstones != 1 || rep.Size != 5 {
			t.Fatalf("after import: consistent %v, %d tombstones, size %d, findings %+v", rep.Consistent, rep.Tombstones, rep.Size, rep.Findings)
		}
	}
}

// checkpoint is the tree head of s's log now (unsigned: the audit's
// comparison does not need the signature).
func checkpoint(t *testing.T, s store.Store) *ledger.Checkpoint {
	t.Helper()
	hs := leafHashes(t, s)
	tree, err := ledger.NewTree(hs)
	if err != nil {
		t.Fatal(err)
	}
	root, err := tree.Root(tree.Size())
	if err != nil {
		t.Fatal(err)
	}
	return &ledger.Checkpoint{Origin: "storetest", Size: tree.Size(), Root: root, Time: base}
}

func leafHashes(t *testing.T, s store.Store) []tlog.Hash {
	t.Helper()
	leaves, err := s.(ledger.LeafStore).Leaves(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var hs []tlog.Hash
	for _, l := range leaves {
		hs = append(hs, l.Hash)
	}
	return hs
}

// testLogTampering edits a store of six entries by hand, one way per
// case, and wants the audit to name exactly what changed.
func testLogTampering(t *testing.T, open LogOpener) {
	zero := "'sha256:" + fmt.Sprintf("%064d", 0) + "'"
	cases := []struct {
		name   string
		tamper func(t *testing.T, s store.Store, tp Tamper, ids []string)
		// want are the findings against the checkpoint taken before; with
		// the leaf hashes published beside it, wantPublished.
		want, wantPublished []string
		// subset: want is part of what the audit finds, not all.
		subset bool
	}{
		{name: "entry deleted",
			tamper: func(t *testing.T, _ store.Store, tp Tamper, ids []string) {
				tp.Exec(t, "DELETE FROM ledger WHERE id = '"+ids[2]+"'")
			},
			want: []string{"removed 2 {2}"}},
		{name: "hash changed",
			tamper: func(t *testing.T, _ store.Store, tp Tamper, ids []string) {
				tp.Exec(t, "UPDATE ledger SET hash = "+zero+" WHERE id = '"+ids[3]+"'")
			},
			want: []string{"altered 3 {3}"}},
		{name: "entries reordered",
			tamper: func(t *testing.T, _ store.Store, tp Tamper, ids []string) {
				tp.moveLeaf(t, "1", "-1")
				tp.moveLeaf(t, "4", "1")
				tp.moveLeaf(t, "-1", "4")
			},
			want:          []string{"reordered 1 {4}", "reordered 4 {1}", "rewritten -1 "},
			wantPublished: []string{"reordered 1 {4}", "reordered 4 {1}"}},
		{name: "leaf deleted",
			tamper: func(t *testing.T, _ store.Store, tp Tamper, ids []string) {
				tp.deleteLeaf(t, "5")
			},
			want: []string{"inserted -1 {5}", "rewritten -1 "}},
		{name: "leaf deleted in the middle",
			tamper: func(t *testing.T, _ store.Store, tp Tamper, ids []string) {
				tp.deleteLeaf(t, "2")
			},
			want: []string{"inserted -1 {2}", "rewritten 2 {3}", "rewritten 3 {4}", "rewritten 4 {5}"}, subset: true},
		{name: "entry inserted",
			tamper: func(t *testing.T, _ store.Store, tp Tamper, ids []string) {
				tp.Exec(t, `INSERT INTO ledger (id, time, op, target, source, reference, hash, source_hash, snapshot, status, code, duration_ns, request, result)
					SELECT 'forged', time, op, target, source, reference, hash, source_hash, snapshot, status, code, duration_ns, request, result
					FROM ledger WHERE id = '`+ids[1]+`'`)
			},
			want: []string{"inserted -1 forged"}},
		{name: "entry and leaf rewritten together",
			tamper: func(t *testing.T, s store.Store, tp Tamper, ids []string) {
				tp.Exec(t, "UPDATE ledger SET hash = "+zero+" WHERE id = '"+ids[3]+"'")
				e, err := s.Entry(context.Background(), ids[3])
				if err != nil {
					t.Fatal(err)
				}
				h := ledger.LeafHash(3, e)
				tp.setLeaf(t, "3", h[:])
			},
			want:          []string{"rewritten -1 "},
			wantPublished: []string{"rewritten 3 {3}"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			s, _, tp := open(t)
			var ids []string
			for i := range 6 {
				e := entry(i, "get", fmt.Sprintf("t%d.md", i), store.StatusOK)
				if err := s.Append(ctx, e); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, e.ID)
			}
			last := checkpoint(t, s)
			published := leafHashes(t, s)
			if rep := Audit(t, s, last, published); !rep.Consistent {
				t.Fatalf("before tampering: %+v", rep.Findings)
			}
			c.tamper(t, s, tp, ids)
			expand := func(want []string) []string {
				var out []string
				for _, w := range want {
					for i, id := range ids {
						w = strings.ReplaceAll(w, fmt.Sprintf("{%d}", i), id)
					}
					out = append(out, w)
				}
				sort.Strings(out)
				return out
			}
			check := func(rep *ledger.Report, want []string) {
				t.Helper()
				if rep.Consistent {
					t.Fatalf("audit says consistent after tampering")
				}
				got := findings(rep)
				want = expand(want)
				if c.subset {
					for _, w := range want {
						if !slices.Contains(got, w) {
							t.Errorf("findings %q lack %q", got, w)
						}
					}
					return
				}
				if !slices.Equal(got, want) {
					t.Errorf("findings %q, want %q", got, want)
				}
			}
			check(Audit(t, s, last, nil), c.want)
			wp := c.wantPublished
			if wp == nil {
				wp = c.want
			}
			check(Audit(t, s, last, published), wp)
		})
	}
}
