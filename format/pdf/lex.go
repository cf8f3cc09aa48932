package pdf

import (
	"errors"
	"fmt"
	"strconv"
)

// The PDF object model (ISO 32000-2 §7.3): the parser turns bytes into
// these Go values.
type (
	name    string // a /Name, without the slash
	keyword string // a bare word: obj, R, an operator in a content stream
	array   []any
	dict    map[name]any
	// objRef is an indirect reference "num gen R".
	objRef struct{ num, gen int }
	// stream is a stream object: its dictionary and where its raw data
	// starts in the file (or its bytes, for streams read from memory).
	stream struct {
		hdr  dict
		off  int64
		data []byte // set when the stream was not read from the file
	}
)

// errShort says the parser reached the end of its buffer inside an object:
// the caller may retry with a larger window of the file.
var errShort = errors.New("pdf: object runs past the buffer")

// errDepth is returned when objects nest deeper than the limit.
var errDepth = errors.New("pdf: objects nest too deep")

// lexer reads tokens from a byte slice. base is the file offset of b[0]
// (for stream data offsets).
type lexer struct {
	b        []byte
	pos      int
	base     int64
	maxDepth int
	// noRefs is set for content streams, where "n g R" never occurs: it
	// spares the look-ahead after every integer.
	noRefs bool
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

// skipSpace skips white space and comments.
func (l *lexer) skipSpace() {
	for l.pos < len(l.b) {
		c := l.b[l.pos]
		if isSpace(c) {
			l.pos++
			continue
		}
		if c == '%' {
			for l.pos < len(l.b) && l.b[l.pos] != '\n' && l.b[l.pos] != '\r' {
				l.pos++
			}
			continue
		}
		return
	}
}

// delim is a structural token: [ ] << >> { }.
type delim string

// token returns the next token: int64, float64, string (a PDF string's
// bytes), name, keyword or delim. It returns errShort at the end of input.
func (l *lexer) token() (any, error) {
	l.skipSpace()
	if l.pos >= len(l.b) {
		return nil, errShort
	}
	c := l.b[l.pos]
	switch {
	case c == '[' || c == ']' || c == '{' || c == '}':
		l.pos++
		return delim(string(c)), nil
	case c == '<':
		if l.pos+1 < len(l.b) && l.b[l.pos+1] == '<' {
			l.pos += 2
			return delim("<<"), nil
		}
		return l.hexString()
	case c == '>':
		if l.pos+1 < len(l.b) && l.b[l.pos+1] == '>' {
			l.pos += 2
			return delim(">>"), nil
		}
		if l.pos+1 >= len(l.b) {
			return nil, errShort
		}
		l.pos++
		return keyword(">"), nil
	case c == '(':
		return l.litString()
	case c == ')':
		l.pos++
		return keyword(")"), nil
	case c == '/':
		return l.name()
	case c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9'):
		return l.number()
	}
	start := l.pos
	for l.pos < len(l.b) && !isSpace(l.b[l.pos]) && !isDelim(l.b[l.pos]) {
		l.pos++
	}
	if l.pos == start {
		l.pos++
	}
	return keyword(l.b[start:l.pos]), nil
}

func (l *lexer) number() (any, error) {
	start := l.pos
	l.pos++
	dot := l.b[start] == '.'
	for l.pos < len(l.b) {
		c := l.b[l.pos]
		if c >= '0' && c <= '9' {
			l.pos++
		} else if c == '.' {
			dot = true
			l.pos++
		} else if c == '-' || c == '+' {
			// "0-5" appears in broken files: stop at the sign.
			break
		} else {
			break
		}
	}
	s := l.b[start:l.pos]
	if !dot {
		n, err := strconv.ParseInt(string(s), 10, 64)
		if err == nil {
			return n, nil
		}
	}
	f, err := strconv.ParseFloat(string(s), 64)
	if err != nil {
		// "-" or "." alone, or "--5": PDF readers take these as 0.
		return int64(0), nil
	}
	return f, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func (l *lexer) name() (any, error) {
	l.pos++
	start := l.pos
	for l.pos < len(l.b) && !isSpace(l.b[l.pos]) && !isDelim(l.b[l.pos]) {
		l.pos++
	}
	s := l.b[start:l.pos]
	for i := 0; i < len(s); i++ {
		if s[i] == '#' {
			out := make([]byte, 0, len(s))
			for j := 0; j < len(s); j++ {
				if s[j] == '#' && j+2 < len(s) {
					h, ok1 := unhex(s[j+1])
					lo, ok2 := unhex(s[j+2])
					if ok1 && ok2 {
						out = append(out, h<<4|lo)
						j += 2
						continue
					}
				}
				out = append(out, s[j])
			}
			return name(out), nil
		}
	}
	return name(s), nil
}

func (l *lexer) hexString() (any, error) {
	l.pos++
	out := make([]byte, 0, 16)
	var hi byte
	half := false
	for l.pos < len(l.b) {
		c := l.b[l.pos]
		l.pos++
		if c == '>' {
			if half {
				out = append(out, hi<<4)
			}
			return string(out), nil
		}
		v, ok := unhex(c)
		if !ok {
			continue
		}
		if half {
			out = append(out, hi<<4|v)
			half = false
		} else {
			hi = v
			half = true
		}
	}
	return nil, errShort
}

func (l *lexer) litString() (any, error) {
	l.pos++
	depth := 1
	start := l.pos
	// Fast path: no escapes and no nested parentheses.
	for l.pos < len(l.b) {
		c := l.b[l.pos]
		if c == '\\' || c == '(' {
			break
		}
		if c == ')' {
			s := string(l.b[start:l.pos])
			l.pos++
			return s, nil
		}
		l.pos++
	}
	out := append([]byte(nil), l.b[start:l.pos]...)
	for l.pos < len(l.b) {
		c := l.b[l.pos]
		l.pos++
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return string(out), nil
			}
		case '\\':
			if l.pos >= len(l.b) {
				return nil, errShort
			}
			e := l.b[l.pos]
			l.pos++
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if l.pos < len(l.b) && l.b[l.pos] == '\n' {
					l.pos++
				}
				continue
			case '\n':
				continue
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for k := 0; k < 2 && l.pos < len(l.b) && l.b[l.pos] >= '0' && l.b[l.pos] <= '7'; k++ {
						v = v*8 + int(l.b[l.pos]-'0')
						l.pos++
					}
					c = byte(v)
				} else {
					c = e
				}
			}
		}
		out = append(out, c)
	}
	return nil, errShort
}

// object parses one object; an "n g R" triple becomes an objRef. It
// returns a keyword token as is (the caller decides what it means).
func (l *lexer) object(depth int) (any, error) {
	tok, err := l.token()
	if err != nil {
		return nil, err
	}
	return l.objectFrom(tok, depth)
}

func (l *lexer) objectFrom(tok any, depth int) (any, error) {
	if depth > l.maxDepth {
		return nil, errDepth
	}
	switch t := tok.(type) {
	case int64:
		if l.noRefs {
			return t, nil
		}
		// Look ahead for "gen R".
		save := l.pos
		t2, err := l.token()
		if err == nil {
			if g, ok := t2.(int64); ok {
				t3, err := l.token()
				if err == nil && t3 == keyword("R") {
					if t < 0 || t > 1<<31 || g < 0 || g > 1<<20 {
						return nil, nil
					}
					return objRef{int(t), int(g)}, nil
				}
				if err == errShort && l.pos >= len(l.b) {
					// The R may be past the buffer.
					return nil, errShort
				}
			}
		}
		l.pos = save
		return t, nil
	case delim:
		switch t {
		case "[":
			var a array
			for {
				tok, err := l.token()
				if err != nil {
					return nil, err
				}
				if tok == delim("]") {
					return a, nil
				}
				v, err := l.objectFrom(tok, depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
		case "<<":
			d := dict{}
			for {
				tok, err := l.token()
				if err != nil {
					return nil, err
				}
				if tok == delim(">>") {
					return d, nil
				}
				k, ok := tok.(name)
				if !ok {
					// A stray token in a dictionary: skip it, as readers do.
					if kw, isKw := tok.(keyword); isKw && (kw == "endobj" || kw == "stream") {
						return nil, fmt.Errorf("unterminated dictionary")
					}
					continue
				}
				tok, err = l.token()
				if err != nil {
					return nil, err
				}
				if tok == delim(">>") {
					d[k] = nil
					return d, nil
				}
				v, err := l.objectFrom(tok, depth+1)
				if err != nil {
					return nil, err
				}
				if v != nil {
					d[k] = v
				}
			}
		}
		return nil, fmt.Errorf("unexpected %q", string(t))
	case keyword:
		switch t {
		case "true":
			return true, nil
		case "false":
			return false, nil
		case "null":
			return nil, nil
		}
		return t, nil
	}
	return tok, nil
}
