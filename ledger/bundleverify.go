package ledger

import (
	"context"
	"fmt"
	"io"

	"golang.org/x/mod/sumdb/tlog"
)

// What anchors a bundle's entry in a signed tree head.
const (
	// AnchorSigned: the entry is in a checkpoint whose signature the key
	// given to the verifier checks.
	AnchorSigned = "signed"
	// AnchorBundleKey: the same, checked only with the key the bundle
	// carries (whoever made the bundle chose it): give --key to trust it.
	AnchorBundleKey = "signed_by_bundle_key"
	// AnchorAfter: the entry was appended after the checkpoint; its
	// inclusion is proved against the bundle's unsigned tree head.
	AnchorAfter = "after_checkpoint"
	// AnchorUnsigned: the bundle has no checkpoint.
	AnchorUnsigned = "unsigned"
)

// Result of one check.
const (
	CheckOK   = "ok"
	CheckNone = "none"
	CheckFail = "failed"
)

// EntryCheck is what Verify found for one entry.
type EntryCheck struct {
	ID        string `json:"id"`
	Op        string `json:"op"`
	Reference string `json:"reference,omitempty"`
	Hash      string `json:"hash,omitempty"`
	Index     int64  `json:"index"`
	// Snapshot: the snapshot's bytes hash to the entry's snapshot hash
	// (ok), the entry has none (none), or not (failed).
	Snapshot string `json:"snapshot"`
	// Leaf: the entry as carried hashes to its leaf at its position.
	Leaf string `json:"leaf"`
	// Inclusion: the leaf's proof leads to the bundle's tree head.
	Inclusion string `json:"inclusion"`
	// Anchor says what signs that tree head for this entry.
	Anchor   string         `json:"anchor"`
	Problems []*BundleError `json:"problems"`
}

// Failed reports whether a check of e failed.
func (e *EntryCheck) Failed() bool { return len(e.Problems) > 0 }

// Fail adds a problem to e.
func (e *EntryCheck) Fail(kind, name, format string, args ...any) {
	e.Problems = append(e.Problems, bundleErr(kind, name, format, args...))
}

// CheckpointCheck is what Verify found of the bundle's checkpoint.
type CheckpointCheck struct {
	Present    bool        `json:"present"`
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
	// KeySource is "given" (the verifier's key) or "bundle" (key.pub).
	KeySource string `json:"key_source,omitempty"`
	// Signature and Consistency: ok, none or failed.
	Signature   string       `json:"signature"`
	Consistency string       `json:"consistency"`
	Problem     *BundleError `json:"problem,omitempty"`
}

// BundleVerification is the outcome of Verify.
type BundleVerification struct {
	Log        BundleLog       `json:"log"`
	Checkpoint CheckpointCheck `json:"checkpoint"`
	Entries    []*EntryCheck   `json:"entries"`
	// WARC is the check of the web part (warcverify.go).
	WARC  WARCCheck `json:"warc"`
	Notes []string  `json:"notes,omitempty"`
}

// Verify checks the bundle offline: the checkpoint's signature (with key,
// or the bundle's own key.pub when key is empty) and its consistency with
// the bundle's tree head, then for each entry its leaf, its inclusion
// proof and its snapshot's hash; and the web part's records against the
// entries and snapshots (WARCCheck). It does not extract data again (the
// caller does, with an engine reading b's snapshots).
func (b *Bundle) Verify(ctx context.Context, key string) *BundleVerification {
	m := &b.Manifest
	v := &BundleVerification{Log: m.Log, Entries: []*EntryCheck{}, Notes: m.Notes}
	v.Log.Checkpoint = nil
	signed := b.verifyCheckpoint(key, &v.Checkpoint)
	snaps := map[string]*BundleError{}
	for _, be := range m.Entries {
		e := b.Entries[be.ID]
		c := &EntryCheck{ID: be.ID, Op: e.Op, Reference: e.Reference, Hash: e.Hash, Index: be.Index,
			Snapshot: CheckNone, Leaf: CheckOK, Inclusion: CheckOK, Anchor: AnchorUnsigned, Problems: []*BundleError{}}
		v.Entries = append(v.Entries, c)
		leaf := LeafHash(be.Index, e)
		if leaf != be.LeafHash {
			c.Leaf = CheckFail
			c.Fail(BundleTampered, be.File, "the entry does not hash to its leaf %d: a field of the recorded result was edited", be.Index)
		}
		if be.Index < 0 || be.Index >= m.Log.Size {
			c.Inclusion = CheckFail
			c.Fail(BundleTampered, BundleManifest, "position %d is outside the tree of %d leaves", be.Index, m.Log.Size)
		} else if err := tlog.CheckRecord(be.Proof, m.Log.Size, m.Log.Root, be.Index, leaf); err != nil {
			c.Inclusion = CheckFail
			c.Fail(BundleTampered, BundleManifest, "the inclusion proof of leaf %d does not lead to the tree head: %v", be.Index, err)
		}
		switch {
		case signed == "":
		case be.Index < v.Checkpoint.Checkpoint.Size:
			c.Anchor = signed
		default:
			c.Anchor = AnchorAfter
		}
		if e.Snapshot == "" {
			continue
		}
		c.Snapshot = CheckOK
		err, done := snaps[e.Snapshot]
		if !done {
			err = b.hashSnapshot(ctx, e.Snapshot)
			snaps[e.Snapshot] = err
		}
		if err != nil {
			c.Snapshot = CheckFail
			c.Problems = append(c.Problems, err)
		}
	}
	v.WARC = b.verifyWARC()
	return v
}

// verifyCheckpoint opens checkpoint.note and checks that the bundle's tree
// head extends it; it returns the anchor of the entries it covers ("" when
// none does).
func (b *Bundle) verifyCheckpoint(key string, cc *CheckpointCheck) string {
	cc.Signature, cc.Consistency = CheckNone, CheckNone
	if len(b.Note) == 0 {
		return ""
	}
	cc.Present, cc.KeySource = true, "given"
	anchor := AnchorSigned
	if key == "" {
		key, cc.KeySource, anchor = b.Key, "bundle", AnchorBundleKey
	}
	c, err := Open(b.Note, key)
	if err != nil {
		cc.Signature = CheckFail
		cc.Problem = bundleErr(BundleTampered, BundleCheckpoint, "the signature does not check with the %s key: %v", cc.KeySource, err)
		return ""
	}
	cc.Signature, cc.Checkpoint = CheckOK, &c
	log := b.Manifest.Log
	switch {
	case c.Size > log.Size:
		err = fmt.Errorf("the checkpoint has %d leaves, the bundle's tree %d", c.Size, log.Size)
	case c.Size == log.Size && c.Root != log.Root:
		err = fmt.Errorf("the checkpoint's root is not the bundle's tree head")
	case c.Size < log.Size && c.Size > 0:
		err = tlog.CheckTree(log.Consistency, log.Size, log.Root, c.Size, c.Root)
	}
	if err != nil {
		cc.Consistency = CheckFail
		cc.Problem = bundleErr(BundleTampered, BundleManifest, "the bundle's tree head does not extend the signed checkpoint: %v", err)
		return ""
	}
	cc.Consistency = CheckOK
	return anchor
}

// hashSnapshot reads a snapshot through to its end; the reader fails when
// the bytes do not hash to the name.
func (b *Bundle) hashSnapshot(ctx context.Context, hash string) *BundleError {
	rc, err := b.OpenSnapshot(ctx, hash)
	if err == nil {
		_, err = io.Copy(io.Discard, rc)
		rc.Close()
	}
	if err == nil {
		return nil
	}
	if be, ok := err.(*BundleError); ok {
		return be
	}
	return bundleErr(BundleMalformed, hash, "cannot be read: %v", err)
}
