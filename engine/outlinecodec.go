package engine

import (
	"encoding/binary"
	"errors"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/binrec"
)

// outlineCacheFormat versions the encoding of an outline in the outline
// cache (encodeOutline); it is part of the key, so a new encoding never
// reads an old row.
const outlineCacheFormat = "2"

// encodeOutline writes o compactly for the outline cache: a cached outline
// is read on every outline of an unchanged file, and decoding JSON was
// half of that read. The layout: the language, a syntax-error byte, the
// symbol count, then per symbol its start and end lines (uvarints) and its
// kind, parent, name and path (each a uvarint length and the bytes;
// internal/binrec).
func encodeOutline(o *retrieve.CodeOutline) []byte {
	b := make([]byte, 0, 64+len(o.Symbols)*48)
	b = binrec.AppendBytes(b, o.Language)
	if o.SyntaxErrors {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(o.Symbols)))
	for _, s := range o.Symbols {
		b = binary.AppendUvarint(b, uint64(s.StartLine))
		b = binary.AppendUvarint(b, uint64(s.EndLine))
		for _, f := range []string{s.Kind, s.Parent, s.Name, s.Path} {
			b = binrec.AppendBytes(b, f)
		}
	}
	return b
}

var errBadOutline = errors.New("malformed cached outline")

// decodeOutline reads what encodeOutline wrote; any other bytes (a row
// damaged in the store) are errBadOutline, never a panic.
func decodeOutline(b []byte) (*retrieve.CodeOutline, error) {
	d := binrec.NewDecoder(b)
	o := &retrieve.CodeOutline{Language: d.String()}
	switch d.Byte() {
	case 0:
	case 1:
		o.SyntaxErrors = true
	default:
		return nil, errBadOutline
	}
	n := d.Uvarint()
	// Each symbol takes 6 bytes at least: a count beyond that is damage.
	if d.Bad() || n > uint64(d.Len())/6 {
		return nil, errBadOutline
	}
	o.Symbols = make([]retrieve.CodeSymbol, n)
	for i := range o.Symbols {
		s := &o.Symbols[i]
		start, end := d.Uvarint(), d.Uvarint()
		if start > 1<<31 || end > 1<<31 {
			return nil, errBadOutline
		}
		s.StartLine, s.EndLine = int(start), int(end)
		s.Kind, s.Parent, s.Name, s.Path = d.String(), d.String(), d.String(), d.String()
	}
	if !d.OK() {
		return nil, errBadOutline
	}
	return o, nil
}
