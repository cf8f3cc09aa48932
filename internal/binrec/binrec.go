// Package binrec reads and writes the compact binary records the stores
// keep (the SQLite ledger journal's records, the outline cache's
// entries): uvarint and varint numbers, length-prefixed byte strings and
// single bytes. A Decoder never panics on damaged bytes: a read past the
// end marks it bad, and the caller refuses the record.
package binrec

import "encoding/binary"

// AppendBytes appends s with its uvarint length.
func AppendBytes[S ~string | ~[]byte](b []byte, s S) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// Decoder reads the fields of a record from the front.
type Decoder struct {
	b   []byte
	bad bool
}

// NewDecoder reads b.
func NewDecoder(b []byte) *Decoder { return &Decoder{b: b} }

// OK reports whether every read so far found its bytes and none are left:
// the record was read whole.
func (d *Decoder) OK() bool { return !d.bad && len(d.b) == 0 }

// Bad reports whether a read ran past the end or met a malformed number.
func (d *Decoder) Bad() bool { return d.bad }

// Len is the number of bytes not read yet.
func (d *Decoder) Len() int { return len(d.b) }

func (d *Decoder) fail() {
	d.bad = true
	d.b = nil
}

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// Uvarint reads an unsigned varint.
func (d *Decoder) Uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Varint reads a signed varint.
func (d *Decoder) Varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Bytes reads a length-prefixed byte string; the result shares the
// record's memory (capacity cut to its length).
func (d *Decoder) Bytes() []byte {
	n := d.Uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

// String reads a length-prefixed string.
func (d *Decoder) String() string { return string(d.Bytes()) }
