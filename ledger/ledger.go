// Package ledger makes the evidence ledger tamper-evident: an RFC 6962/9162
// Merkle log over the ledger entries in append order (golang.org/x/mod's
// sumdb/tlog hashes and proofs), signed tree heads in the C2SP
// tlog-checkpoint signed-note format (sumdb/note, ed25519), and the audit
// that recomputes the log from a store and names what was altered,
// inserted, removed or reordered. docs/ledger.md explains the choices.
//
// A store keeps one leaf hash per entry, written in the same transaction
// as the entry (LeafStore); the signing key never reaches the store.
package ledger

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/retrieve-dev/retrieve/store"
	"golang.org/x/mod/sumdb/tlog"
)

// Leaf is one position of the log as a store keeps it.
type Leaf struct {
	// Index is the position, from 0, in append order.
	Index int64
	// ID is the entry's id.
	ID string
	// Hash is the leaf hash recorded when the entry was appended.
	Hash tlog.Hash
	// Tombstone says that gc or retention deleted the entry: the leaf
	// stays so that the log still verifies.
	Tombstone bool
}

// LeafStore is implemented by a store that keeps the log's leaves.
type LeafStore interface {
	// Leaves returns every leaf in index order.
	Leaves(ctx context.Context) ([]Leaf, error)
}

// LogScanner is implemented by a store that walks its log and its entries
// together, in one consistent read, without holding the ledger in memory
// (what an audit of millions of entries needs).
type LogScanner interface {
	// ScanLog calls leaf for every leaf in index order with its entry
	// (nil when the ledger has none), then entry for every entry that has
	// no leaf.
	ScanLog(ctx context.Context, leaf func(Leaf, *store.Entry) error, entry func(*store.Entry) error) error
}

// leafDomain opens the canonical bytes: a version, so that a later layout
// never hashes like this one.
const leafDomain = "retrieve-ledger-leaf/v1\n"

// Canonical returns the bytes a leaf hashes: the position and every field
// of the entry whose edit must show (id, time, op, target, source,
// reference, hashes, snapshot, status, code, duration, request, result and
// whether the data is in the snapshot), each length-prefixed so that no two
// entries share bytes. The position is in the leaf so that moving a leaf
// (reordering) changes its hash.
func Canonical(index int64, e *store.Entry) []byte {
	b := make([]byte, 0, 256+len(e.Request)+len(e.Result))
	b = append(b, leafDomain...)
	b = binary.BigEndian.AppendUint64(b, uint64(index))
	return appendTail(b, e)
}

// LeafHead is what a leaf hash hashes before the position: the RFC 6962
// leaf prefix 0x00 and the version line. A store that learns the position
// only inside its database (store/postgres) hashes LeafHead, the position
// as 8 big-endian bytes and CanonicalTail there: SHA-256 of the three is
// LeafHash.
func LeafHead() []byte { return append([]byte{0}, leafDomain...) }

// CanonicalTail is the part of Canonical after the position.
func CanonicalTail(e *store.Entry) []byte {
	return appendTail(make([]byte, 0, 256+len(e.Request)+len(e.Result)), e)
}

func appendTail(b []byte, e *store.Entry) []byte {
	for _, s := range []string{e.ID, e.Op, e.Target, e.Source, e.Reference, e.Hash, e.SourceHash, e.Snapshot, e.Status, e.Code} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(e.Time.UnixNano()))
	b = binary.BigEndian.AppendUint64(b, uint64(e.Duration))
	for _, p := range [][]byte{e.Request, e.Result} {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
	}
	if e.DataInSnapshot {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	return b
}

// LeafHash is the RFC 6962 leaf hash of e at index: SHA-256(0x00 ||
// Canonical(index, e)).
func LeafHash(index int64, e *store.Entry) tlog.Hash {
	return tlog.RecordHash(Canonical(index, e))
}

// Tree holds the stored hashes of a log in memory (about 64 bytes per
// leaf) and answers tree hashes and proofs.
type Tree struct {
	n      int64
	stored []tlog.Hash
}

// NewTree builds the tree over the leaf hashes in order.
func NewTree(leaves []tlog.Hash) (*Tree, error) {
	t := &Tree{stored: make([]tlog.Hash, 0, 2*len(leaves))}
	for _, h := range leaves {
		hs, err := tlog.StoredHashesForRecordHash(t.n, h, t)
		if err != nil {
			return nil, fmt.Errorf("build the log tree: %w", err)
		}
		t.stored = append(t.stored, hs...)
		t.n++
	}
	return t, nil
}

// ReadHashes implements tlog.HashReader.
func (t *Tree) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		if x < 0 || x >= int64(len(t.stored)) {
			return nil, fmt.Errorf("stored hash %d out of range", x)
		}
		out[i] = t.stored[x]
	}
	return out, nil
}

// Size is the number of leaves.
func (t *Tree) Size() int64 { return t.n }

// Root is the tree hash of the first n leaves (n ≤ Size).
func (t *Tree) Root(n int64) (tlog.Hash, error) {
	if n > t.n {
		return tlog.Hash{}, fmt.Errorf("tree of %d leaves has no head at %d", t.n, n)
	}
	if n == 0 {
		return emptyRoot, nil
	}
	return tlog.TreeHash(n, t)
}

// ProveInclusion is the inclusion proof of leaf i in the tree of the first
// n leaves.
func (t *Tree) ProveInclusion(i, n int64) (tlog.RecordProof, error) {
	return tlog.ProveRecord(n, i, t)
}

// ProveConsistency is the consistency proof between the trees of the first
// m and the first n leaves (m ≤ n).
func (t *Tree) ProveConsistency(m, n int64) (tlog.TreeProof, error) {
	return tlog.ProveTree(n, m, t)
}

// emptyRoot is the RFC 6962 hash of the empty tree, SHA-256 of nothing.
var emptyRoot = tlog.Hash{0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
	0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55}
