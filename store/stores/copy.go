package stores

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
)

// Walker is what a store implements to be copied and counted: both
// store/sqlite and store/postgres do.
type Walker interface {
	store.Store
	// EntriesAfter returns up to limit entries with an id after afterID, in id order.
	EntriesAfter(ctx context.Context, afterID string, limit int) ([]*store.Entry, error)
	// ImportEntries inserts the entries whose id is absent and returns how many.
	ImportEntries(ctx context.Context, es []*store.Entry) (int, error)
	// SnapshotsAfter returns up to limit snapshot hashes after afterHash, in order.
	SnapshotsAfter(ctx context.Context, afterHash string, limit int) ([]string, error)
	// Counts returns the numbers of entries and snapshots and the stored bytes.
	Counts(ctx context.Context) (entries, snapshots, storedBytes int64, err error)
}

func walker(s store.Store) (Walker, error) {
	w, ok := s.(Walker)
	if !ok {
		return nil, retrieve.Errorf(retrieve.CodeInternal, "the store %T cannot be walked", s)
	}
	return w, nil
}

// batch is how many entries or snapshots are read at a time (a variable
// so that tests cross batch boundaries with small stores).
var batch = 500

// Summary is the content of a store: its counts and a digest of every
// entry (all fields, in id order) and every snapshot hash (in order). Two
// stores with the same digest hold the same ledger and snapshots.
type Summary struct {
	Entries   int64  `json:"entries" yaml:"entries"`
	Snapshots int64  `json:"snapshots" yaml:"snapshots"`
	Digest    string `json:"digest" yaml:"digest"`
}

// Summarize walks a store and returns its Summary.
func Summarize(ctx context.Context, s store.Store) (Summary, error) {
	w, err := walker(s)
	if err != nil {
		return Summary{}, err
	}
	h := sha256.New()
	var sum Summary
	after := ""
	for {
		es, err := w.EntriesAfter(ctx, after, batch)
		if err != nil {
			return Summary{}, err
		}
		for _, e := range es {
			hashEntry(h, e)
			sum.Entries++
		}
		if len(es) < batch {
			break
		}
		after = es[len(es)-1].ID
	}
	after = ""
	for {
		hs, err := w.SnapshotsAfter(ctx, after, batch)
		if err != nil {
			return Summary{}, err
		}
		for _, s := range hs {
			writeField(h, []byte(s))
			sum.Snapshots++
		}
		if len(hs) < batch {
			break
		}
		after = hs[len(hs)-1]
	}
	sum.Digest = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return sum, nil
}

func hashEntry(h hash.Hash, e *store.Entry) {
	for _, f := range []string{e.ID, e.Op, e.Target, e.Source, e.Reference, e.Hash, e.SourceHash, e.Snapshot, e.Status, e.Code} {
		writeField(h, []byte(f))
	}
	var n [16]byte
	binary.BigEndian.PutUint64(n[:8], uint64(e.Time.UnixNano()))
	binary.BigEndian.PutUint64(n[8:], uint64(e.Duration))
	h.Write(n[:])
	writeField(h, e.Request)
	writeField(h, e.Result)
	if e.DataInSnapshot {
		h.Write([]byte{1})
	}
}

// writeField writes a length-prefixed field, so that fields cannot run together.
func writeField(h hash.Hash, b []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}

// CopyReport says what Copy did.
type CopyReport struct {
	EntriesCopied    int64   `json:"entries_copied" yaml:"entries_copied"`
	EntriesSkipped   int64   `json:"entries_skipped" yaml:"entries_skipped"`
	SnapshotsCopied  int64   `json:"snapshots_copied" yaml:"snapshots_copied"`
	SnapshotsSkipped int64   `json:"snapshots_skipped" yaml:"snapshots_skipped"`
	From             Summary `json:"from" yaml:"from"`
	To               Summary `json:"to" yaml:"to"`
	// Verified is true when the destination holds everything the source
	// holds and nothing else (equal counts and digests).
	Verified bool `json:"verified" yaml:"verified"`
}

// Progress is told how many items (entries plus snapshots) are done out of total.
type Progress func(done, total int64)

// Copy copies every ledger entry and snapshot of from into to. It is
// idempotent, so an interrupted copy resumes by running again: entries
// already in to are skipped by id and snapshots by hash. Snapshots are
// streamed from one store to the other, never held whole. At the end both
// stores are summarised and compared.
func Copy(ctx context.Context, from, to store.Store, progress Progress) (CopyReport, error) {
	var rep CopyReport
	src, err := walker(from)
	if err != nil {
		return rep, err
	}
	dst, err := walker(to)
	if err != nil {
		return rep, err
	}
	nEntries, nSnaps, _, err := src.Counts(ctx)
	if err != nil {
		return rep, err
	}
	total := nEntries + nSnaps
	var done int64
	tick := func(n int64) {
		done += n
		if progress != nil {
			progress(min(done, total), total)
		}
	}
	tick(0)
	// Snapshots first: an entry never lands before the bytes it cites.
	after := ""
	for {
		hs, err := src.SnapshotsAfter(ctx, after, batch)
		if err != nil {
			return rep, err
		}
		for _, h := range hs {
			ok, err := dst.HasSnapshot(ctx, h)
			if err != nil {
				return rep, err
			}
			if ok {
				rep.SnapshotsSkipped++
			} else {
				rc, err := src.OpenSnapshot(ctx, h)
				if err != nil {
					return rep, err
				}
				err = dst.PutSnapshot(ctx, h, rc)
				rc.Close()
				if err != nil {
					return rep, err
				}
				rep.SnapshotsCopied++
			}
			tick(1)
		}
		if len(hs) < batch {
			break
		}
		after = hs[len(hs)-1]
	}
	after = ""
	for {
		es, err := src.EntriesAfter(ctx, after, batch)
		if err != nil {
			return rep, err
		}
		if len(es) > 0 {
			n, err := dst.ImportEntries(ctx, es)
			if err != nil {
				return rep, err
			}
			rep.EntriesCopied += int64(n)
			rep.EntriesSkipped += int64(len(es) - n)
			tick(int64(len(es)))
		}
		if len(es) < batch {
			break
		}
		after = es[len(es)-1].ID
	}
	if rep.From, err = Summarize(ctx, from); err != nil {
		return rep, err
	}
	if rep.To, err = Summarize(ctx, to); err != nil {
		return rep, err
	}
	rep.Verified = rep.From == rep.To
	return rep, nil
}
