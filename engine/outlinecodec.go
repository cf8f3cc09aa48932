package engine

import (
	"encoding/binary"
	"errors"

	"github.com/retrieve-dev/retrieve"
)

// outlineCacheFormat versions the encoding of an outline in the outline
// cache (encodeOutline); it is part of the key, so a new encoding never
// reads an old row.
const outlineCacheFormat = "2"

// encodeOutline writes o compactly for the outline cache: a cached outline
// is read on every outline of an unchanged file, and decoding JSON was
// half of that read. The layout: the language, a syntax-error byte, the
// symbol count, then per symbol its start and end lines (uvarints) and its
// kind, parent, name and path (each a uvarint length and the bytes).
func encodeOutline(o *retrieve.CodeOutline) []byte {
	b := make([]byte, 0, 64+len(o.Symbols)*48)
	b = appendString(b, o.Language)
	if o.SyntaxErrors {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(o.Symbols)))
	for _, s := range o.Symbols {
		b = binary.AppendUvarint(b, uint64(s.StartLine))
		b = binary.AppendUvarint(b, uint64(s.EndLine))
		b = appendString(b, s.Kind)
		b = appendString(b, s.Parent)
		b = appendString(b, s.Name)
		b = appendString(b, s.Path)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

var errBadOutline = errors.New("malformed cached outline")

// decodeOutline reads what encodeOutline wrote; any other bytes (a row
// damaged in the store) are errBadOutline, never a panic.
func decodeOutline(b []byte) (*retrieve.CodeOutline, error) {
	d := outlineDecoder{b: b}
	o := &retrieve.CodeOutline{Language: d.string()}
	switch d.byte() {
	case 0:
	case 1:
		o.SyntaxErrors = true
	default:
		return nil, errBadOutline
	}
	n := d.uvarint()
	// Each symbol takes 6 bytes at least: a count beyond that is damage.
	if d.bad || n > uint64(len(d.b))/6 {
		return nil, errBadOutline
	}
	o.Symbols = make([]retrieve.CodeSymbol, n)
	for i := range o.Symbols {
		s := &o.Symbols[i]
		s.StartLine, s.EndLine = d.int(), d.int()
		s.Kind, s.Parent, s.Name, s.Path = d.string(), d.string(), d.string(), d.string()
	}
	if d.bad || len(d.b) != 0 {
		return nil, errBadOutline
	}
	return o, nil
}

// outlineDecoder reads b from the front; a read past the end sets bad.
type outlineDecoder struct {
	b   []byte
	bad bool
}

func (d *outlineDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad = true
		d.b = nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *outlineDecoder) int() int {
	v := d.uvarint()
	if v > 1<<31 {
		d.bad = true
		return 0
	}
	return int(v)
}

func (d *outlineDecoder) byte() byte {
	if len(d.b) == 0 {
		d.bad = true
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *outlineDecoder) string() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.bad = true
		d.b = nil
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}
