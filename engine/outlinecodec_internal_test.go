package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retrieve-dev/retrieve"
)

var codecSample = &retrieve.CodeOutline{Language: "python", SyntaxErrors: true, Symbols: []retrieve.CodeSymbol{
	{Name: "User", Kind: "class", Path: "User", StartLine: 1, EndLine: 300},
	{Name: "save", Kind: "method", Parent: "User", Path: "User.save", StartLine: 2, EndLine: 3},
	{Name: "ünï\tcode\n", Kind: "function", Path: "ünï\tcode\n", StartLine: 1 << 20, EndLine: 1 << 20},
}}

func TestOutlineCodec(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		for _, o := range []*retrieve.CodeOutline{codecSample, {Language: "go", Symbols: []retrieve.CodeSymbol{}}} {
			got, err := decodeOutline(encodeOutline(o))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(o, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		}
	})
	t.Run("ErrDamaged", func(t *testing.T) {
		b := encodeOutline(codecSample)
		for _, bad := range [][]byte{nil, b[:len(b)-1], append(append([]byte{}, b...), 0), {0, 2, 0}, {0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f}} {
			if _, err := decodeOutline(bad); err == nil {
				t.Errorf("decodeOutline(%q) = nil error", bad)
			}
		}
	})
}

// FuzzOutlineCodec: any bytes in the cache decode to an outline or an
// error, never a panic; what decodes encodes back to the same bytes.
func FuzzOutlineCodec(f *testing.F) {
	f.Add(encodeOutline(codecSample))
	f.Add([]byte{})
	f.Add([]byte{6, 'p', 'y', 't', 'h', 'o', 'n', 0, 1, 1, 1, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := decodeOutline(b)
		if err != nil {
			return
		}
		if again := encodeOutline(o); string(again) != string(b) {
			// Varints have one shortest form; a longer one decodes the same.
			o2, err := decodeOutline(again)
			if err != nil || !cmp.Equal(o, o2) {
				t.Fatalf("re-encoding %q gave %q (%v)", b, again, err)
			}
		}
	})
}
