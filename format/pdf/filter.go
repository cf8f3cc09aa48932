package pdf

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"errors"
	"fmt"
	"io"

	"github.com/retrieve-dev/retrieve/format"
)

// errImageFilter marks a stream whose filter is an image codec (DCT, JPX,
// CCITT, JBIG2): never text, never decoded.
var errImageFilter = errors.New("image filter")

// raw returns a stream's undecoded bytes. A wrong /Length (common) is
// corrected by looking for endstream.
func (d *document) raw(s stream) ([]byte, error) {
	if s.data != nil {
		return s.data, nil
	}
	n := d.intOf(s.hdr["Length"])
	if n >= 0 && s.off+n <= d.size {
		if n > d.lim.MaxInput {
			fail(fmt.Errorf("%w: a stream of %d bytes", format.ErrTooLarge, n))
		}
		b := d.readAt(s.off, int(n)+32)
		if int64(len(b)) >= n {
			rest := bytes.TrimLeft(b[n:], "\r\n \t\x00")
			if bytes.HasPrefix(rest, []byte("endstream")) || int64(len(b)) == n && s.off+n == d.size {
				return b[:n], nil
			}
		}
	}
	// Search for endstream, a chunk at a time.
	var out []byte
	for off := s.off; off < d.size; {
		b := d.readAt(off, 1<<16)
		if len(b) == 0 {
			break
		}
		d.scan(len(b))
		if i := bytes.Index(b, []byte("endstream")); i >= 0 {
			out = append(out, b[:i]...)
			return bytes.TrimRight(out, "\r\n"), nil
		}
		keep := len(b) - 9
		if keep <= 0 {
			break
		}
		out = append(out, b[:keep]...)
		if int64(len(out)) > d.lim.MaxInput {
			fail(fmt.Errorf("%w: a stream larger than the input limit", format.ErrTooLarge))
		}
		off += int64(keep)
	}
	return nil, errors.New("stream without endstream")
}

// decode returns a stream's data with its filters applied, refusing with
// ErrTooLarge any that inflates past Limits.MaxInflated.
func (d *document) decode(s stream) ([]byte, error) {
	data, err := d.raw(s)
	if err != nil {
		return nil, err
	}
	var filters, parms []any
	switch f := d.resolve(s.hdr["Filter"]).(type) {
	case name:
		filters = []any{f}
		parms = []any{s.hdr["DecodeParms"]}
	case array:
		filters = f
		if p, ok := d.resolve(s.hdr["DecodeParms"]).(array); ok {
			parms = p
		}
	}
	for i, f := range filters {
		var p dict
		if i < len(parms) {
			p = d.dictOf(parms[i])
		}
		data, err = d.applyFilter(data, d.nameOf(f), p)
		if err != nil {
			return nil, err
		}
	}
	return data, nil
}

// limitedRead reads r to the end, failing past max bytes.
func (d *document) limitedRead(r io.Reader, sizeHint int) ([]byte, error) {
	max := d.lim.MaxInflated
	var buf bytes.Buffer
	if sizeHint > 0 && int64(sizeHint) < max {
		buf.Grow(min(sizeHint, 1<<24))
	}
	if d.readBuf == nil {
		d.readBuf = make([]byte, 32<<10)
	}
	chunk := d.readBuf
	for {
		n, err := r.Read(chunk)
		if n > 0 {
			if int64(buf.Len()+n) > max {
				fail(fmt.Errorf("%w: a stream inflates past %d bytes (Limits.MaxInflated)", format.ErrTooLarge, max))
			}
			buf.Write(chunk[:n])
			d.tick(n >> 8)
		}
		if err == io.EOF {
			return buf.Bytes(), nil
		}
		if err != nil {
			// Truncated or damaged compressed data: keep what inflated,
			// as readers do.
			if buf.Len() > 0 {
				return buf.Bytes(), nil
			}
			return nil, err
		}
	}
}

func (d *document) applyFilter(data []byte, f name, p dict) ([]byte, error) {
	switch f {
	case "FlateDecode", "Fl":
		var r io.Reader
		zr, err := zlib.NewReader(bytes.NewReader(data))
		if err != nil {
			// Some writers omit the zlib header: try raw deflate.
			r = flate.NewReader(bytes.NewReader(data))
		} else {
			r = zr
		}
		out, err := d.limitedRead(r, len(data)*4)
		if err != nil {
			out, err = d.limitedRead(flate.NewReader(bytes.NewReader(data)), len(data)*4)
			if err != nil {
				return nil, fmt.Errorf("FlateDecode: %v", err)
			}
		}
		return d.predict(out, p)
	case "ASCIIHexDecode", "AHx":
		out := make([]byte, 0, len(data)/2)
		var hi byte
		half := false
		for _, c := range data {
			if c == '>' {
				break
			}
			v, ok := unhex(c)
			if !ok {
				continue
			}
			if half {
				out = append(out, hi<<4|v)
			} else {
				hi = v
			}
			half = !half
		}
		if half {
			out = append(out, hi<<4)
		}
		return out, nil
	case "ASCII85Decode", "A85":
		return ascii85(data), nil
	case "RunLengthDecode", "RL":
		var out []byte
		for i := 0; i < len(data); {
			n := int(data[i])
			i++
			switch {
			case n < 128:
				end := min(i+n+1, len(data))
				out = append(out, data[i:end]...)
				i = end
			case n > 128:
				if i < len(data) {
					out = append(out, bytes.Repeat(data[i:i+1], 257-n)...)
				}
				i++
			default:
				return out, nil
			}
			if int64(len(out)) > d.lim.MaxInflated {
				fail(fmt.Errorf("%w: a stream inflates past %d bytes (Limits.MaxInflated)", format.ErrTooLarge, d.lim.MaxInflated))
			}
		}
		return out, nil
	case "LZWDecode", "LZW":
		early := true
		if v, ok := d.num(p["EarlyChange"]); ok && v == 0 {
			early = false
		}
		out, err := lzwDecode(data, early, d.lim.MaxInflated)
		if err != nil {
			return nil, err
		}
		return d.predict(out, p)
	case "DCTDecode", "DCT", "JPXDecode", "CCITTFaxDecode", "CCF", "JBIG2Decode":
		return nil, errImageFilter
	case "Crypt":
		return data, nil
	}
	return nil, fmt.Errorf("unsupported filter %s", f)
}

// predict undoes a PNG or TIFF predictor (used by xref streams).
func (d *document) predict(data []byte, p dict) ([]byte, error) {
	if p == nil {
		return data, nil
	}
	pred, _ := d.num(p["Predictor"])
	if pred < 2 {
		return data, nil
	}
	colors, ok := d.num(p["Colors"])
	if !ok || colors < 1 {
		colors = 1
	}
	bpc, ok := d.num(p["BitsPerComponent"])
	if !ok || bpc < 1 {
		bpc = 8
	}
	cols, ok := d.num(p["Columns"])
	if !ok || cols < 1 {
		cols = 1
	}
	if colors > 64 || bpc > 16 || cols > 1<<20 {
		return nil, errors.New("bad predictor parameters")
	}
	bpp := max(1, int(colors*bpc+7)/8)
	rowLen := int(colors*bpc*cols+7) / 8
	if rowLen > len(data) {
		rowLen = max(1, len(data)-1)
	}
	if pred == 2 {
		if bpc != 8 {
			return data, nil
		}
		for r := 0; r+rowLen <= len(data); r += rowLen {
			for i := bpp; i < rowLen; i++ {
				data[r+i] += data[r+i-bpp]
			}
		}
		return data, nil
	}
	out := make([]byte, 0, len(data))
	prev := make([]byte, rowLen)
	for r := 0; r < len(data); r += rowLen + 1 {
		ft := data[r]
		end := min(r+1+rowLen, len(data))
		row := make([]byte, rowLen)
		copy(row, data[r+1:end])
		for i := 0; i < rowLen; i++ {
			var a, c byte
			if i >= bpp {
				a = row[i-bpp]
				c = prev[i-bpp]
			}
			b := prev[i]
			switch ft {
			case 1:
				row[i] += a
			case 2:
				row[i] += b
			case 3:
				row[i] += byte((int(a) + int(b)) / 2)
			case 4:
				pa, pb, pc := abs(int(b)-int(c)), abs(int(a)-int(c)), abs(int(a)+int(b)-2*int(c))
				switch {
				case pa <= pb && pa <= pc:
					row[i] += a
				case pb <= pc:
					row[i] += b
				default:
					row[i] += c
				}
			}
		}
		out = append(out, row[:end-r-1]...)
		prev = row
	}
	return out, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func ascii85(data []byte) []byte {
	out := make([]byte, 0, len(data)*4/5)
	var v uint32
	n := 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c == '~' {
			break
		}
		if isSpace(c) {
			continue
		}
		if c == 'z' && n == 0 {
			out = append(out, 0, 0, 0, 0)
			continue
		}
		if c < '!' || c > 'u' {
			continue
		}
		v = v*85 + uint32(c-'!')
		n++
		if n == 5 {
			out = append(out, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
			v, n = 0, 0
		}
	}
	if n > 1 {
		for k := n; k < 5; k++ {
			v = v*85 + 84
		}
		b := []byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
		out = append(out, b[:n-1]...)
	}
	return out
}

// lzwDecode decodes PDF's LZW (MSB first, 9–12 bit codes, early change by
// default), which compress/lzw does not handle.
func lzwDecode(data []byte, early bool, max int64) ([]byte, error) {
	var out []byte
	table := make([][]byte, 258, 4096)
	reset := func() {
		table = table[:258]
		for i := 0; i < 256; i++ {
			table[i] = []byte{byte(i)}
		}
	}
	reset()
	width := 9
	var bits uint32
	nbits := 0
	var prev []byte
	e := 0
	if early {
		e = 1
	}
	for i := 0; ; {
		for nbits < width {
			if i >= len(data) {
				return out, nil
			}
			bits = bits<<8 | uint32(data[i])
			i++
			nbits += 8
		}
		code := int(bits>>(nbits-width)) & (1<<width - 1)
		nbits -= width
		switch {
		case code == 256:
			reset()
			width = 9
			prev = nil
			continue
		case code == 257:
			return out, nil
		}
		var entry []byte
		if code < len(table) {
			entry = table[code]
		} else if code == len(table) && prev != nil {
			entry = append(append([]byte(nil), prev...), prev[0])
		} else {
			return out, errors.New("LZW: bad code")
		}
		out = append(out, entry...)
		if int64(len(out)) > max {
			fail(fmt.Errorf("%w: a stream inflates past %d bytes (Limits.MaxInflated)", format.ErrTooLarge, max))
		}
		if prev != nil && len(table) < 4096 {
			table = append(table, append(append([]byte(nil), prev...), entry[0]))
		}
		prev = entry
		if len(table)+e >= 1<<width && width < 12 {
			width++
		}
	}
}
