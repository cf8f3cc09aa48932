package code

import "bytes"

// pyLine is one logical line of Python source: its physical lines
// src[start:end] (end after the last newline), its indentation and what
// the outline needs to know of it.
type pyLine struct {
	start, end int
	// lastLine is the offset of its last physical line.
	lastLine int
	indent   int
	// code: not blank, not only a comment.
	code bool
	// block: a def (or async def) whose body is an indented block.
	block bool
}

// blankPythonBodies returns a copy of Python source src in which the body
// of every function that is an indented block is one `pass`, on the last
// line of the body's last statement at the body's indentation; the body's
// other lines keep their newline only. Every line stays
// where it was, and the tree-sitter parse gives the same spans: the outline
// never reads inside a function (its classes, functions and assignments are
// not symbols), and a comment after the body is where it was. ok is false,
// and the copy nil, when src has what this scan does not follow — a tab, a
// form feed or a carriage return, a string left open, indentation that
// does not nest: the caller parses src as it is.
func blankPythonBodies(src []byte) (out []byte, ok bool) {
	if bytes.ContainsAny(src, "\t\f\r") {
		return nil, false
	}
	lines, ok := pyLines(src)
	if !ok {
		return nil, false
	}
	out = make([]byte, 0, len(src)/2)
	kept := 0
	for i := 0; i < len(lines); i++ {
		if !lines[i].block {
			continue
		}
		last, body, good := pyBody(lines, i)
		if !good {
			return nil, false
		}
		if last < 0 {
			continue // no indented body here (the parse says why)
		}
		out = append(out, src[kept:lines[i].end]...)
		for j := i + 1; j <= last; j++ {
			l := lines[j]
			switch {
			case !l.code:
				// A comment before the body's last statement is inside
				// the function whatever its indentation.
				if l.end > l.start && src[l.end-1] == '\n' {
					out = append(out, '\n')
				}
			default:
				for _, c := range src[l.start:l.lastLine] {
					if c == '\n' {
						out = append(out, c)
					}
				}
				if j == last {
					for range body {
						out = append(out, ' ')
					}
					out = append(out, "pass"...)
				}
				if l.end > l.start && src[l.end-1] == '\n' {
					out = append(out, '\n')
				}
			}
		}
		kept = lines[last].end
		i = last
	}
	return append(out, src[kept:]...), true
}

// pyBody returns the index of the last code line of the body of the def at
// lines[i] and the body's indentation; last is -1 when no line is indented
// under the def, ok false when the indentation does not nest.
func pyBody(lines []pyLine, i int) (last, body int, ok bool) {
	def := lines[i].indent
	last, body = -1, -1
	for j := i + 1; j < len(lines); j++ {
		l := lines[j]
		if !l.code {
			continue
		}
		if l.indent <= def {
			break
		}
		if body < 0 {
			body = l.indent
		} else if l.indent < body {
			return 0, 0, false // a dedent to no enclosing level
		}
		last = j
	}
	return last, body, true
}

// pyLines splits src into logical lines, following strings, comments,
// brackets and backslash continuations.
func pyLines(src []byte) ([]pyLine, bool) {
	lines := make([]pyLine, 0, bytes.Count(src, []byte{'\n'})+1)
	for i := 0; i < len(src); {
		l := pyLine{start: i, lastLine: i}
		for i < len(src) && src[i] == ' ' {
			i++
		}
		l.indent = i - l.start
		if i == len(src) || src[i] == '\n' || src[i] == '#' {
			i = lineEnd(src, i)
			l.end = i
			lines = append(lines, l)
			continue
		}
		l.code = true
		head := i
		depth, colon := 0, false
		for i < len(src) {
			if !pyStop[src[i]] {
				for i++; i < len(src) && !pyStop[src[i]]; i++ {
				}
				colon = false
				continue
			}
			c := src[i]
			switch {
			case c == ' ':
				i++
				continue
			case c == ':':
				colon = depth == 0
				i++
				continue
			case c == '#':
				i = lineEnd(src, i) - 1
				if src[i] == '\n' {
					continue
				}
			case c == '"' || c == '\'':
				j := pyString(src, i)
				if j < 0 {
					return nil, false
				}
				if k := bytes.LastIndexByte(src[i:j], '\n'); k >= 0 {
					l.lastLine = i + k + 1
				}
				i, colon = j, false
				continue
			case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
				i += 2
				l.lastLine = i
				continue
			case c == '(' || c == '[' || c == '{':
				depth++
			case c == ')' || c == ']' || c == '}':
				depth--
			case c == '\n':
				if depth <= 0 {
					i++
					goto done
				}
				l.lastLine = i + 1
				i++
				continue
			}
			if c != '\n' && c != '#' {
				colon = false
			}
			i++
		}
		if depth > 0 {
			return nil, false // a bracket left open
		}
	done:
		l.end = i
		l.block = colon && isDef(src, head)
		lines = append(lines, l)
	}
	return lines, true
}

// lineEnd returns the offset after the newline that ends the line at i.
func lineEnd(src []byte, i int) int {
	if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(src)
}

// pyString returns the offset after the string literal whose quote is at
// i, or -1 when it is not closed.
func pyString(src []byte, i int) int {
	q := src[i]
	if i+2 < len(src) && src[i+1] == q && src[i+2] == q {
		for j := i + 3; ; {
			k := bytes.IndexByte(src[j:], q)
			if k < 0 {
				return -1
			}
			k += j
			// The quote is escaped when an odd run of backslashes is
			// right before it.
			b := k
			for b > i+3 && src[b-1] == '\\' {
				b--
			}
			if (k-b)%2 == 0 && k+2 < len(src) && src[k+1] == q && src[k+2] == q {
				return k + 3
			}
			j = k + 1
		}
	}
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case q:
			return j + 1
		case '\n':
			return -1
		}
	}
	return -1
}

// isDef reports whether the line at i starts a def or an async def.
func isDef(src []byte, i int) bool {
	if hasWord(src, i, "async") {
		i += len("async")
		for i < len(src) && src[i] == ' ' {
			i++
		}
	}
	return hasWord(src, i, "def")
}

// pyStop marks the bytes pyLines stops at: a space, a colon, a newline, a
// quote, a comment, a backslash, a bracket (static data, no work at init).
var pyStop = [256]bool{' ': true, ':': true, '\n': true, '"': true, '\'': true, '#': true, '\\': true,
	'(': true, ')': true, '[': true, ']': true, '{': true, '}': true}
