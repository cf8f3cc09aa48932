package ops

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve"
)

// The JSON of a large result is sized and written without being built:
// the data of a whole-file read is the bulk of its message, and every
// json.Marshal of it is one more full copy (docs/servers.md, "Large
// results").

// JSONStringLen is the length of s as a JSON string, quotes included,
// exactly as encoding/json writes it (escapeHTML as json.Marshal does, or
// as an Encoder with SetEscapeHTML(false)), without building it.
func JSONStringLen(s string, escapeHTML bool) int {
	n := 2
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
				n += 2
			case b < 0x20 || escapeHTML && (b == '<' || b == '>' || b == '&'):
				n += 6 // \u00XX
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6 // \ufffd
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// controlEscapes are the \u00XX escapes of the bytes below 0x20 (those
// without a short escape) and of the HTML characters.
var controlEscapes = [32]string{`\u0000`, `\u0001`, `\u0002`, `\u0003`, `\u0004`, `\u0005`, `\u0006`, `\u0007`, `\u0008`, `\u0009`, `\u000a`, `\u000b`, `\u000c`, `\u000d`, `\u000e`, `\u000f`, `\u0010`, `\u0011`, `\u0012`, `\u0013`, `\u0014`, `\u0015`, `\u0016`, `\u0017`, `\u0018`, `\u0019`, `\u001a`, `\u001b`, `\u001c`, `\u001d`, `\u001e`, `\u001f`}

func uEscape(b byte) string {
	switch b {
	case '<':
		return `\u003c`
	case '>':
		return `\u003e`
	case '&':
		return `\u0026`
	}
	return controlEscapes[b]
}

// WriteJSONStringBody writes s as the inside of a JSON string (no quotes),
// escaped exactly as encoding/json escapes it (escapeHTML as json.Marshal
// does, or as an Encoder with SetEscapeHTML(false)): runs of plain bytes
// are written straight from s, so the string is never copied whole.
func WriteJSONStringBody(w io.StringWriter, s string, escapeHTML bool) error {
	start := 0
	flush := func(i int) error {
		if start < i {
			if _, err := w.WriteString(s[start:i]); err != nil {
				return err
			}
		}
		return nil
	}
	for i := 0; i < len(s); {
		var esc string
		b := s[i]
		size := 1
		if b < utf8.RuneSelf {
			switch b {
			case '"':
				esc = `\"`
			case '\\':
				esc = `\\`
			case '\b':
				esc = `\b`
			case '\f':
				esc = `\f`
			case '\n':
				esc = `\n`
			case '\r':
				esc = `\r`
			case '\t':
				esc = `\t`
			default:
				if b < 0x20 || escapeHTML && (b == '<' || b == '>' || b == '&') {
					esc = uEscape(b)
				}
			}
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				esc = `\ufffd`
			case r == '\u2028':
				esc = `\u2028`
			case r == '\u2029':
				esc = `\u2029`
			}
		}
		if esc == "" {
			i += size
			continue
		}
		if err := flush(i); err != nil {
			return err
		}
		if _, err := w.WriteString(esc); err != nil {
			return err
		}
		i += size
		start = i
	}
	return flush(len(s))
}

// jsonLen is the length of v's JSON (json.Marshal). A result's string data
// is counted, not encoded: the rest of the result is marshaled with the
// data left out.
func jsonLen(v any) int {
	if r, ok := v.(*retrieve.Result); ok && r != nil {
		if data, ok := r.Retrieved.Data.(string); ok {
			rest := *r
			rest.Retrieved.Data = ""
			b, err := json.Marshal(&rest)
			if err != nil {
				return 0
			}
			return len(b) - len(`""`) + JSONStringLen(data, true)
		}
	}
	if s, ok := v.(string); ok {
		return JSONStringLen(s, true)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

// StreamMin is the length from which a result's string data is written
// into its JSON by Encoded without being copied.
const StreamMin = 256 << 10

// Encoded is the JSON of a value, one line as a json.Encoder writes it,
// ready to be written: a retrieval result's string data of StreamMin bytes
// or more is not in the encoding but escaped straight from the result's
// string when written, so that no full copy of the data is made.
type Encoded struct {
	head, tail []byte
	data       string
	escapeHTML bool
}

// dataMark stands for the data in the encoding: random per process, so no
// other field of a result can hold it.
var dataMark = sync.OnceValue(func() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "retrieve-data-" + hex.EncodeToString(b[:])
})

// Encode encodes v as a json.Encoder does (a trailing newline; HTML
// characters escaped or not).
func Encode(v any, escapeHTML bool) (*Encoded, error) {
	e := &Encoded{escapeHTML: escapeHTML}
	if r, ok := v.(*retrieve.Result); ok && r != nil {
		if data, ok := r.Retrieved.Data.(string); ok && len(data) >= StreamMin {
			light := *r
			light.Retrieved.Data = dataMark()
			b, err := encodeLine(&light, escapeHTML)
			if err != nil {
				return nil, err
			}
			quoted := []byte(`"` + dataMark() + `"`)
			i := bytes.Index(b, quoted)
			if i < 0 {
				return nil, fmt.Errorf("ops: the data mark is missing from the encoding")
			}
			e.head, e.tail, e.data = b[:i+1], b[i+len(quoted)-1:], data
			return e, nil
		}
	}
	b, err := encodeLine(v, escapeHTML)
	e.head = b
	return e, err
}

func encodeLine(v any, escapeHTML bool) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Raw is the encoding as one JSON value (no trailing newline), when it is
// held whole (its data is not streamed): what a transport can send as it
// is.
func (e *Encoded) Raw() (json.RawMessage, bool) {
	if e == nil || e.tail != nil {
		return nil, false
	}
	return bytes.TrimSuffix(e.head, []byte("\n")), true
}

// WriteValue writes the encoding as one JSON value, without the trailing
// newline, to w: the data of a large result escaped straight from its
// string.
func (e *Encoded) WriteValue(w *bufio.Writer) error {
	if e.tail == nil {
		_, err := w.Write(bytes.TrimSuffix(e.head, []byte("\n")))
		return err
	}
	if _, err := w.Write(e.head); err != nil {
		return err
	}
	if err := WriteJSONStringBody(w, e.data, e.escapeHTML); err != nil {
		return err
	}
	_, err := w.Write(bytes.TrimSuffix(e.tail, []byte("\n")))
	return err
}

// Len is the length of the encoding.
func (e *Encoded) Len() int {
	if e.tail == nil {
		return len(e.head)
	}
	return len(e.head) + JSONStringLen(e.data, e.escapeHTML) - len(`""`) + len(e.tail)
}

// WriteTo writes the encoding to w.
func (e *Encoded) WriteTo(w io.Writer) (int64, error) {
	if e.tail == nil {
		n, err := w.Write(e.head)
		return int64(n), err
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	cw := &countingWriter{w: bw}
	if _, err := cw.Write(e.head); err != nil {
		return cw.n, err
	}
	if err := WriteJSONStringBody(cw, e.data, e.escapeHTML); err != nil {
		return cw.n, err
	}
	if _, err := cw.Write(e.tail); err != nil {
		return cw.n, err
	}
	return cw.n, bw.Flush()
}

type countingWriter struct {
	w *bufio.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (c *countingWriter) WriteString(s string) (int, error) {
	n, err := c.w.WriteString(s)
	c.n += int64(n)
	return n, err
}
