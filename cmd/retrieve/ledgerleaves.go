package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ledger"
	"golang.org/x/mod/sumdb/tlog"
)

// The leaf hashes of the log are published beside each checkpoint, from
// where the previous checkpoints' files end to its size: X.note gets
// X.leaves, a header line "retrieve-ledger-leaves/v1 from N" then the raw
// 32-byte hashes of positions N… Audit assembles them, checks that they
// hash to the last checkpoint's (signed) root, and then names the exact
// position of an entry rewritten together with its leaf (docs/ledger.md).
// Files edited or missing only lose that precision: the root check stays.
const leavesHeader = "retrieve-ledger-leaves/v1 from "

// leavesFile is a parsed .leaves file.
type leavesFile struct {
	from   int64
	hashes []tlog.Hash
}

// readLeavesFiles reads the .leaves files of dir, ordered by position;
// unreadable ones are skipped.
func readLeavesFiles(dir string) []leavesFile {
	names, _ := filepath.Glob(filepath.Join(dir, "*.leaves"))
	var out []leavesFile
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			continue
		}
		f, ok := parseLeavesFile(b)
		if !ok {
			continue
		}
		out = append(out, f)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].from < out[j].from })
	return out
}

// parseLeavesFile parses a .leaves file; false when it is not one.
func parseLeavesFile(b []byte) (leavesFile, bool) {
	head, body, ok := bytes.Cut(b, []byte("\n"))
	var from int64
	if !ok || !strings.HasPrefix(string(head), leavesHeader) || len(body)%tlog.HashSize != 0 {
		return leavesFile{}, false
	}
	if _, err := fmt.Sscan(strings.TrimPrefix(string(head), leavesHeader), &from); err != nil || from < 0 {
		return leavesFile{}, false
	}
	f := leavesFile{from: from, hashes: make([]tlog.Hash, len(body)/tlog.HashSize)}
	for i := range f.hashes {
		copy(f.hashes[i][:], body[i*tlog.HashSize:])
	}
	return f, true
}

// covered is how many positions from 0 the files cover without a gap.
func covered(files []leavesFile) int64 {
	var n int64
	for _, f := range files {
		if f.from <= n {
			n = max(n, f.from+int64(len(f.hashes)))
		}
	}
	return n
}

// publishLeaves saves the hashes the earlier files do not cover beside the
// checkpoint file note.
func publishLeaves(dir, note string, hashes []tlog.Hash) error {
	from := min(covered(readLeavesFiles(dir)), int64(len(hashes)))
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s%d\n", leavesHeader, from)
	for _, h := range hashes[from:] {
		b.Write(h[:])
	}
	file := strings.TrimSuffix(note, ".note") + ".leaves"
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		return retrieve.Errorf(retrieve.CodeWriteFailed, "cannot save the log's leaf hashes in %s", dir).WithErr(err)
	}
	return nil
}

// publishedLeaves assembles the leaf hashes of last's first Size positions
// from the .leaves files; nil when they do not cover them all.
func publishedLeaves(dir string, last *ledger.Checkpoint) []tlog.Hash {
	if last == nil {
		return nil
	}
	files := readLeavesFiles(dir)
	if covered(files) < last.Size {
		return nil
	}
	out := make([]tlog.Hash, last.Size)
	for _, f := range files {
		if f.from < last.Size {
			copy(out[f.from:], f.hashes)
		}
	}
	return out
}
