package binrec_test

import (
	"encoding/binary"
	"testing"

	"github.com/retrieve-dev/retrieve/internal/binrec"
)

func TestRoundTrip(t *testing.T) {
	b := binrec.AppendBytes(nil, "héllo")
	b = binrec.AppendBytes(b, []byte{0, 1})
	b = binary.AppendVarint(b, -5)
	b = binary.AppendUvarint(b, 300)
	b = append(b, 7)
	d := binrec.NewDecoder(b)
	if s, raw, v, u, c := d.String(), d.Bytes(), d.Varint(), d.Uvarint(), d.Byte(); s != "héllo" || string(raw) != "\x00\x01" || v != -5 || u != 300 || c != 7 || !d.OK() {
		t.Fatalf("got %q %q %d %d %d ok=%v", s, raw, v, u, c, d.OK())
	}
}

func TestErrShort(t *testing.T) {
	for _, b := range [][]byte{nil, {5, 'a'}, {0xff}} {
		d := binrec.NewDecoder(b)
		_ = d.Bytes()
		if !d.Bad() || d.OK() {
			t.Errorf("decoding %q: bad %v, ok %v; want bad", b, d.Bad(), d.OK())
		}
	}
	d := binrec.NewDecoder([]byte{1, 'a', 'b'})
	if d.String() != "a" || d.OK() || d.Len() != 1 {
		t.Errorf("a record with bytes left over is not OK")
	}
}

// FuzzDecoder: any bytes read as any fields never panic.
func FuzzDecoder(f *testing.F) {
	f.Add([]byte{3, 'a', 'b', 'c', 1, 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		d := binrec.NewDecoder(b)
		for i := 0; i < 8 && !d.Bad(); i++ {
			switch i % 4 {
			case 0:
				d.Bytes()
			case 1:
				d.Varint()
			case 2:
				d.Uvarint()
			default:
				d.Byte()
			}
		}
	})
}
