package code

import "bytes"

// blankGoBodies returns a copy of Go source src in which each top-level
// function's body holds only its newlines, between its braces, so that
// every line stays where it was (offsets after a body move; the outline
// reads lines only): go/parser then parses the declarations without the
// statements, which the outline does not read (a body's span is its
// braces). ok is false, and the copy nil, when a body's braces do not
// match (a string, comment or brace left open): the caller parses src as
// it is.
//
// A top-level function is a `func` at the start of a line outside any
// bracket; its body is the first `{` after it outside the signature's
// brackets that does not open a struct or interface type. A declaration
// without a body (an assembly stub) ends at the newline after its
// signature. A file with a //line or /*line directive is not blanked: one
// inside a body moves the lines of what follows.
func blankGoBodies(src []byte) (out []byte, ok bool) {
	if bytes.Contains(src, []byte("//line ")) || bytes.Contains(src, []byte("/*line ")) {
		return nil, false
	}
	out = make([]byte, 0, len(src)/2)
	kept := 0  // src[kept:] is not yet in out
	depth := 0 // (, [ and { outside bodies
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '/' || c == '"' || c == '`' || c == '\'':
			j, skipped := skipGoLiteral(src, i)
			if !skipped {
				i++
				continue
			}
			if j < 0 {
				return nil, false
			}
			i = j
			continue
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == 'f' && depth == 0 && (i == 0 || src[i-1] == '\n') && hasWord(src, i, "func"):
			open, close, good := funcBody(src, i+len("func"))
			if !good {
				return nil, false
			}
			if close < 0 { // no body: open is the end of the declaration
				i = open
				continue
			}
			out = append(out, src[kept:open+1]...)
			for _, c := range src[open+1 : close] {
				if c == '\n' {
					out = append(out, c)
				}
			}
			kept, i = close, close+1
			continue
		}
		i++
	}
	if depth != 0 {
		return nil, false
	}
	return append(out, src[kept:]...), true
}

// hasWord reports whether src holds the keyword w at i, not followed by an
// identifier's letter.
func hasWord(src []byte, i int, w string) bool {
	if len(src)-i < len(w) || string(src[i:i+len(w)]) != w {
		return false
	}
	return i+len(w) == len(src) || !isGoIdentByte(src[i+len(w)])
}

func isGoIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// funcBody finds the body of the function whose signature starts at i: the
// offsets of its braces, or the end of the declaration and -1 when it has
// no body.
func funcBody(src []byte, i int) (open, close int, ok bool) {
	depth := 0
	last := byte(0) // the last byte of the last token, for semicolon insertion
	var word []byte // the last identifier
	for i < len(src) {
		c := src[i]
		switch {
		case c == '/' || c == '"' || c == '`' || c == '\'':
			j, skipped := skipGoLiteral(src, i)
			if !skipped {
				last, word = c, nil
				i++
				continue
			}
			if j < 0 {
				return 0, 0, false
			}
			if src[i] != '/' {
				last, word = '"', nil
			} else if src[i+1] == '/' || hasNewline(src[i:j]) {
				if depth == 0 && endsGoStatement(last) {
					return j, -1, true // no body: a newline ends the declaration
				}
			}
			i = j
			continue
		case c == '\n':
			if depth == 0 && endsGoStatement(last) {
				return i + 1, -1, true
			}
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == '{':
			if depth > 0 || string(word) == "struct" || string(word) == "interface" {
				depth++
				break
			}
			end, good := matchGoBrace(src, i)
			return i, end, good
		case isGoIdentByte(c):
			j := i
			for j < len(src) && isGoIdentByte(src[j]) {
				j++
			}
			word, last = src[i:j], 'a'
			i = j
			continue
		}
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			last, word = c, nil
		}
		i++
	}
	return i, -1, depth == 0
}

// endsGoStatement reports whether a newline after a token ending in last
// ends the statement (the semicolon rule of the Go specification, for the
// tokens a signature ends with: an identifier or type name, ), ] or }).
func endsGoStatement(last byte) bool {
	return last == 'a' || last == ')' || last == ']' || last == '}' || last == '"'
}

func hasNewline(b []byte) bool {
	for _, c := range b {
		if c == '\n' {
			return true
		}
	}
	return false
}

// matchGoBrace returns the offset of the brace that closes the one at i.
func matchGoBrace(src []byte, i int) (int, bool) {
	depth := 0
	for i < len(src) {
		for i < len(src) && !goBodyStop[src[i]] {
			i++
		}
		if i == len(src) {
			break
		}
		c := src[i]
		switch c {
		case '/', '"', '`', '\'':
			j, skipped := skipGoLiteral(src, i)
			if skipped {
				if j < 0 {
					return 0, false
				}
				i = j
				continue
			}
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i, true
			}
		}
		i++
	}
	return 0, false
}

// skipGoLiteral skips the comment, string or rune literal at i: it returns
// the offset after it and true, -1 and true when it is not closed, or false
// when src[i] opens none (a '/' that is a division).
func skipGoLiteral(src []byte, i int) (int, bool) {
	switch src[i] {
	case '/':
		if i+1 >= len(src) {
			return 0, false
		}
		switch src[i+1] {
		case '/':
			for j := i + 2; j < len(src); j++ {
				if src[j] == '\n' {
					return j, true
				}
			}
			return len(src), true
		case '*':
			for j := i + 2; j+1 < len(src); j++ {
				if src[j] == '*' && src[j+1] == '/' {
					return j + 2, true
				}
			}
			return -1, true
		}
		return 0, false
	case '`':
		for j := i + 1; j < len(src); j++ {
			if src[j] == '`' {
				return j + 1, true
			}
		}
		return -1, true
	}
	quote := src[i]
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case quote:
			return j + 1, true
		case '\n':
			return -1, true
		}
	}
	return -1, true
}

// goBodyStop marks the bytes matchGoBrace stops at (static data).
var goBodyStop = [256]bool{'/': true, '"': true, '`': true, '\'': true, '{': true, '}': true}
