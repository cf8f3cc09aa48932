package ledger_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/retrieve-dev/retrieve/store"
	"golang.org/x/mod/sumdb/tlog"
)

func entries(n int) []*store.Entry {
	var out []*store.Entry
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	for i := 0; i < n; i++ {
		out = append(out, &store.Entry{ID: fmt.Sprintf("id-%03d", i), Time: t0.Add(time.Duration(i) * time.Second), Op: "get",
			Target: "f.txt", Status: store.StatusOK, Hash: fmt.Sprintf("sha256:%064d", i),
			Request: []byte(`{"target":"f.txt"}`), Result: []byte(fmt.Sprintf(`{"n":%d}`, i))})
	}
	return out
}

func leavesOf(es []*store.Entry) []ledger.Leaf {
	var out []ledger.Leaf
	for i, e := range es {
		out = append(out, ledger.Leaf{Index: int64(i), ID: e.ID, Hash: ledger.LeafHash(int64(i), e)})
	}
	return out
}

// mth is RFC 6962's Merkle tree hash, written out from the RFC.
func mth(leaves []tlog.Hash) tlog.Hash {
	if len(leaves) == 1 {
		return leaves[0]
	}
	k := 1
	for k*2 < len(leaves) {
		k *= 2
	}
	l, r := mth(leaves[:k]), mth(leaves[k:])
	return sha256.Sum256(append(append([]byte{1}, l[:]...), r[:]...))
}

func TestTreeRootIsRFC6962(t *testing.T) {
	es := entries(13)
	var hs []tlog.Hash
	for i, e := range es {
		h := ledger.LeafHash(int64(i), e)
		if want := sha256.Sum256(append([]byte{0}, ledger.Canonical(int64(i), e)...)); h != want {
			t.Fatalf("leaf %d: got %s, want SHA-256(0x00 || canonical)", i, h)
		}
		split := append(append(ledger.LeafHead(), binary.BigEndian.AppendUint64(nil, uint64(i))...), ledger.CanonicalTail(e)...)
		if sha256.Sum256(split) != h {
			t.Fatalf("leaf %d: SHA-256(LeafHead || position || CanonicalTail) is not the leaf hash", i)
		}
		hs = append(hs, h)
	}
	tree, err := ledger.NewTree(hs)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= len(hs); n++ {
		got, err := tree.Root(int64(n))
		if err != nil {
			t.Fatal(err)
		}
		if want := mth(hs[:n]); got != want {
			t.Errorf("root of %d: got %s, want %s", n, got, want)
		}
	}
	if empty, _ := tree.Root(0); empty != sha256.Sum256(nil) {
		t.Errorf("empty root %s, want SHA-256 of nothing", empty)
	}
}

func TestLeafCoversEveryField(t *testing.T) {
	base := entries(1)[0]
	h := ledger.LeafHash(0, base)
	edits := map[string]func(e *store.Entry){
		"id": func(e *store.Entry) { e.ID += "x" }, "time": func(e *store.Entry) { e.Time = e.Time.Add(1) },
		"op": func(e *store.Entry) { e.Op = "verify" }, "target": func(e *store.Entry) { e.Target = "g" },
		"source": func(e *store.Entry) { e.Source = "git" }, "reference": func(e *store.Entry) { e.Reference = "r" },
		"hash": func(e *store.Entry) { e.Hash = "sha256:1" }, "source_hash": func(e *store.Entry) { e.SourceHash = "s" },
		"snapshot": func(e *store.Entry) { e.Snapshot = "s" }, "status": func(e *store.Entry) { e.Status = "error" },
		"code": func(e *store.Entry) { e.Code = "C" }, "duration": func(e *store.Entry) { e.Duration = 1 },
		"request": func(e *store.Entry) { e.Request = []byte("{}") }, "result": func(e *store.Entry) { e.Result = []byte("{}") },
		"data_in_snapshot": func(e *store.Entry) { e.DataInSnapshot = true },
		// Fields run into each other without the length prefixes.
		"boundary": func(e *store.Entry) { e.Op, e.Target = "getf", ".txt" },
	}
	for name, edit := range edits {
		e := *base
		edit(&e)
		if ledger.LeafHash(0, &e) == h {
			t.Errorf("editing %s leaves the leaf hash unchanged", name)
		}
	}
	if ledger.LeafHash(1, base) == h {
		t.Error("the position is not in the leaf")
	}
}

func TestProofs(t *testing.T) {
	var hs []tlog.Hash
	for _, l := range leavesOf(entries(21)) {
		hs = append(hs, l.Hash)
	}
	tree, _ := ledger.NewTree(hs)
	r21, _ := tree.Root(21)
	r8, _ := tree.Root(8)
	p, err := tree.ProveInclusion(5, 21)
	if err != nil {
		t.Fatal(err)
	}
	if err := tlog.CheckRecord(p, 21, r21, 5, hs[5]); err != nil {
		t.Errorf("inclusion of leaf 5: %v", err)
	}
	if err := tlog.CheckRecord(p, 21, r21, 5, hs[6]); err == nil {
		t.Error("the proof of leaf 5 also proves leaf 6")
	}
	cp, err := tree.ProveConsistency(8, 21)
	if err != nil {
		t.Fatal(err)
	}
	if err := tlog.CheckTree(cp, 21, r21, 8, r8); err != nil {
		t.Errorf("consistency 8 → 21: %v", err)
	}
}

func TestCheckpointSignAndOpen(t *testing.T) {
	priv, pub, err := ledger.GenerateKey("test-log")
	if err != nil {
		t.Fatal(err)
	}
	if derived, err := ledger.PublicKey(priv); err != nil || derived != pub {
		t.Fatalf("PublicKey: got %q, %v; want %q", derived, err, pub)
	}
	c := ledger.Checkpoint{Size: 7, Root: tlog.Hash{1, 2, 3}, Time: time.Date(2026, 11, 26, 9, 0, 0, 5, time.UTC)}
	msg, signed, err := ledger.Sign(c, priv)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(msg), "test-log\n7\n") || signed.Origin != "test-log" {
		t.Errorf("note %q does not open with the origin and size", msg)
	}
	got, err := ledger.Open(msg, pub)
	if err != nil {
		t.Fatal(err)
	}
	if got.Size != 7 || got.Root != c.Root || !got.Time.Equal(c.Time) || got.Origin != "test-log" {
		t.Errorf("opened %+v, want %+v", got, signed)
	}
	_, otherPub, _ := ledger.GenerateKey("test-log")
	if _, err := ledger.Open(msg, otherPub); !errors.Is(err, ledger.ErrBadCheckpoint) {
		t.Errorf("another key: got %v, want ErrBadCheckpoint", err)
	}
	edited := strings.Replace(string(msg), "\n7\n", "\n8\n", 1)
	if _, err := ledger.Open([]byte(edited), pub); !errors.Is(err, ledger.ErrBadCheckpoint) {
		t.Errorf("edited size: got %v, want ErrBadCheckpoint", err)
	}
	if _, _, err := ledger.Sign(c, ""); !errors.Is(err, ledger.ErrNoKey) {
		t.Errorf("no key: got %v, want ErrNoKey", err)
	}
	if _, _, err := ledger.Sign(c, "PRIVATE+KEY+x+00000000+AAAA"); !errors.Is(err, ledger.ErrBadKey) {
		t.Errorf("bad key: got %v, want ErrBadKey", err)
	}
}

func TestAuditConsistentAndTruncated(t *testing.T) {
	es := entries(5)
	ls := leavesOf(es)
	var hs []tlog.Hash
	for _, l := range ls {
		hs = append(hs, l.Hash)
	}
	tree, _ := ledger.NewTree(hs)
	root, _ := tree.Root(5)
	cp := &ledger.Checkpoint{Size: 5, Root: root}
	rep, err := ledger.Audit(ls, es, cp)
	if err != nil || !rep.Consistent || len(rep.Findings) != 0 || rep.Root != root.String() {
		t.Fatalf("untouched log: %+v, %v", rep, err)
	}
	if b, _ := json.Marshal(rep); !strings.Contains(string(b), `"findings":[]`) {
		t.Errorf("a consistent report's findings are not an empty list: %s", b)
	}
	// Two leaves and their entries gone: shorter than the checkpoint.
	rep, err = ledger.Audit(ls[:3], es[:3], cp)
	if err != nil || rep.Consistent || len(rep.Findings) != 1 || rep.Findings[0].Kind != ledger.Rewritten {
		t.Errorf("truncated log: %+v, %v; want one %s finding", rep, err, ledger.Rewritten)
	}
}

func FuzzParseCheckpoint(f *testing.F) {
	f.Add("log\n3\nAQIDAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\ntime 2026-11-26T09:00:00Z\n")
	f.Add("log\n-1\n\n")
	f.Add("")
	f.Add("log\n3\nAQID\n")
	f.Fuzz(func(t *testing.T, text string) {
		c, err := ledger.ParseText(text)
		if err != nil {
			if !errors.Is(err, ledger.ErrBadCheckpoint) {
				t.Fatalf("error %v is not ErrBadCheckpoint", err)
			}
			return
		}
		if c.Size < 0 || c.Origin == "" {
			t.Fatalf("parsed %+v from %q", c, text)
		}
		again, err := ledger.ParseText(c.Text())
		if err != nil || again.Size != c.Size || again.Root != c.Root {
			t.Fatalf("round trip of %q: %+v, %v", text, again, err)
		}
	})
}
