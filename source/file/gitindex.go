package file

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// The git index (.git/index), versions 2, 3 and 4, read just far enough to
// find one path's entry: Documentation/gitformat-index.txt in git's tree.

// errIndexUnsupported marks an index this reader does not answer for (a
// split or sparse index, an unknown required extension, another version):
// the git process answers instead.
var errIndexUnsupported = errors.New("git index: unsupported")

// errIndexCorrupt marks an index that does not parse.
var errIndexCorrupt = errors.New("git index: corrupt")

// indexEntry is the part of an index entry the status needs.
type indexEntry struct {
	ctimeSec, ctimeNsec uint32
	mtimeSec, mtimeNsec uint32
	dev, ino            uint32
	mode                uint32
	uid, gid            uint32
	size                uint32
	sha                 [20]byte
	assumeValid         bool
	skipWorktree        bool
	intentToAdd         bool
}

// indexLookup is what the index says about one path.
type indexLookup struct {
	entry    indexEntry
	found    bool // a stage-0 entry for the path
	conflict bool // stage 1–3 entries for the path (an unresolved merge)
	gitlink  bool // a parent of the path is a submodule (mode 160000)
}

const (
	modeGitlink = 0o160000
	modeSymlink = 0o120000
	modeTypeMsk = 0o170000
)

// lookupIndex scans an index for path (slash-separated, relative to the
// work tree). It reads every entry (the extensions follow them, and a
// split or sparse index must be refused), comparing names in place. On an
// error it says nothing about the path.
func lookupIndex(data []byte, path string) (indexLookup, error) {
	res, err := scanIndex(data, path)
	if err != nil {
		return indexLookup{}, err
	}
	return res, nil
}

func scanIndex(data []byte, path string) (indexLookup, error) {
	var res indexLookup
	if len(data) < 12+20 || string(data[:4]) != "DIRC" {
		return res, fmt.Errorf("%w: no DIRC header", errIndexCorrupt)
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return res, fmt.Errorf("%w: version %d", errIndexUnsupported, version)
	}
	n := binary.BigEndian.Uint32(data[8:12])
	end := len(data) - 20 // the trailing checksum
	want := []byte(path)
	var prev []byte // v4: the previous entry's name
	off := 12
	for i := uint32(0); i < n; i++ {
		start := off
		if off+62 > end {
			return res, fmt.Errorf("%w: entry %d truncated", errIndexCorrupt, i)
		}
		b := data[off:]
		var e indexEntry
		e.ctimeSec = binary.BigEndian.Uint32(b[0:])
		e.ctimeNsec = binary.BigEndian.Uint32(b[4:])
		e.mtimeSec = binary.BigEndian.Uint32(b[8:])
		e.mtimeNsec = binary.BigEndian.Uint32(b[12:])
		e.dev = binary.BigEndian.Uint32(b[16:])
		e.ino = binary.BigEndian.Uint32(b[20:])
		e.mode = binary.BigEndian.Uint32(b[24:])
		e.uid = binary.BigEndian.Uint32(b[28:])
		e.gid = binary.BigEndian.Uint32(b[32:])
		e.size = binary.BigEndian.Uint32(b[36:])
		copy(e.sha[:], b[40:60])
		flags := binary.BigEndian.Uint16(b[60:])
		off += 62
		e.assumeValid = flags&0x8000 != 0
		if flags&0x4000 != 0 {
			if version < 3 || off+2 > end {
				return res, fmt.Errorf("%w: extended flags in entry %d", errIndexCorrupt, i)
			}
			ext := binary.BigEndian.Uint16(data[off:])
			off += 2
			e.skipWorktree = ext&0x4000 != 0
			e.intentToAdd = ext&0x2000 != 0
		}
		stage := (flags >> 12) & 3
		var name []byte
		if version == 4 {
			strip, w := indexVarint(data[off:end])
			if w == 0 || strip > uint64(len(prev)) {
				return res, fmt.Errorf("%w: name of entry %d", errIndexCorrupt, i)
			}
			off += w
			nul := bytes.IndexByte(data[off:end], 0)
			if nul < 0 {
				return res, fmt.Errorf("%w: name of entry %d", errIndexCorrupt, i)
			}
			prev = append(prev[:len(prev)-int(strip)], data[off:off+nul]...)
			name = prev
			off += nul + 1
		} else {
			nul := bytes.IndexByte(data[off:end], 0)
			if nul < 0 {
				return res, fmt.Errorf("%w: name of entry %d", errIndexCorrupt, i)
			}
			name = data[off : off+nul]
			// 1 to 8 NULs pad the entry to a multiple of 8 bytes.
			off = start + (off-start+nul+8)&^7
			if off > end {
				return res, fmt.Errorf("%w: entry %d truncated", errIndexCorrupt, i)
			}
		}
		if e.mode&modeTypeMsk == 0o040000 {
			// A sparse directory entry: a sparse index.
			return res, fmt.Errorf("%w: sparse index", errIndexUnsupported)
		}
		switch {
		case bytes.Equal(name, want):
			if stage == 0 {
				res.entry, res.found = e, true
			} else {
				res.conflict = true
			}
		case e.mode&modeTypeMsk == modeGitlink && len(want) > len(name) && want[len(name)] == '/' && bytes.HasPrefix(want, name):
			res.gitlink = true
		}
	}
	// Extensions: optional ones (an upper-case first letter) are skipped;
	// a required one this reader does not know means it cannot answer.
	for off+8 <= end {
		sig := data[off : off+4]
		size := binary.BigEndian.Uint32(data[off+4:])
		if uint64(size) > uint64(end-off-8) {
			return res, fmt.Errorf("%w: extension %q truncated", errIndexCorrupt, sig)
		}
		if sig[0] < 'A' || sig[0] > 'Z' {
			return res, fmt.Errorf("%w: extension %q", errIndexUnsupported, sig)
		}
		off += 8 + int(size)
	}
	if off != end {
		return res, fmt.Errorf("%w: %d bytes after the extensions", errIndexCorrupt, end-off)
	}
	return res, nil
}

// indexVarint decodes git's offset varint (varint.c), returning the value
// and its width in bytes (0 when malformed).
func indexVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	val := uint64(c & 127)
	i := 1
	for c&128 != 0 {
		if i >= len(b) || i > 9 {
			return 0, 0
		}
		c = b[i]
		i++
		val = ((val + 1) << 7) | uint64(c&127)
	}
	return val, i
}
