package extract

import (
	"bytes"
	"io"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
)

// Unicode encodings a byte order mark names, as UnicodeBOM returns them.
const (
	UTF8    = "UTF-8"
	UTF16LE = "UTF-16LE"
	UTF16BE = "UTF-16BE"
	UTF32LE = "UTF-32LE"
	UTF32BE = "UTF-32BE"
)

// boms are the byte order marks, UTF-32 first: its little-endian mark
// begins with UTF-16's.
var boms = []struct {
	mark string
	name string
	enc  encoding.Encoding
}{
	{"\xff\xfe\x00\x00", UTF32LE, utf32.UTF32(utf32.LittleEndian, utf32.IgnoreBOM)},
	{"\x00\x00\xfe\xff", UTF32BE, utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM)},
	{"\xff\xfe", UTF16LE, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)},
	{"\xfe\xff", UTF16BE, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)},
	{BOM, UTF8, nil},
}

// UnicodeBOM returns the Unicode encoding the byte order mark at the start
// of head names (UTF8, UTF16LE, UTF16BE, UTF32LE, UTF32BE) and the mark's
// length; name is "" when head starts with none.
func UnicodeBOM(head []byte) (name string, n int) {
	for _, b := range boms {
		if bytes.HasPrefix(head, []byte(b.mark)) {
			return b.name, len(b.mark)
		}
	}
	return "", 0
}

// DecodeUnicode returns r, which starts right after a byte order mark that
// named encoding name (as UnicodeBOM gives it), decoded to UTF-8 as it is
// read. Ill-formed input (an odd trailing byte, a lone surrogate) becomes
// U+FFFD. UTF-8 is returned as is.
func DecodeUnicode(r io.Reader, name string) io.Reader {
	for _, b := range boms {
		if b.name == name && b.enc != nil {
			return b.enc.NewDecoder().Reader(r)
		}
	}
	return r
}
