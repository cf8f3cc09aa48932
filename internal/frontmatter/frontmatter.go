// Package frontmatter is the one reader and writer of the YAML front
// matter that starts memory notes (seed 004), wiki pages and Markdown
// documents: a "---" line, YAML, and a closing "---" or "..." line.
// memory, wiki and extract all split with it, so a file reads the same
// wherever it is read; memory and wiki write through Block, which keeps
// what did not change byte for byte (X-IPE's and mini-context-graph's
// files round-trip). It is a leaf: the standard library and yaml.v3.
package frontmatter

import (
	"bytes"
	"strings"

	"go.yaml.in/yaml/v3"
)

// bom is the UTF-8 byte order mark, accepted before the opening line.
const bom = "\xef\xbb\xbf"

// Split finds the front matter at the start of b: an optional byte order
// mark, a "---" line (LF or CRLF), the YAML, and a closing "---" or "..."
// line (trailing spaces, tabs and CR ignored). It returns the YAML without
// its fences and the offset in b where the body starts, just after the
// closing line. ok is false, and body 0, when b has no such block (no
// opening line, or no closing one).
func Split(b []byte) (fm []byte, body int, ok bool) {
	start := 0
	if bytes.HasPrefix(b, []byte(bom)) {
		start = len(bom)
	}
	rest := b[start:]
	switch {
	case bytes.HasPrefix(rest, []byte("---\n")):
		start += 4
	case bytes.HasPrefix(rest, []byte("---\r\n")):
		start += 5
	default:
		return nil, 0, false
	}
	for off := start; off <= len(b); {
		nl := bytes.IndexByte(b[off:], '\n')
		end, next := len(b), len(b)
		if nl >= 0 {
			end, next = off+nl, off+nl+1
		}
		switch string(bytes.TrimRight(b[off:end], "\r \t")) {
		case "---", "...":
			return b[start:off], next, true
		}
		if nl < 0 {
			break
		}
		off = next
	}
	return nil, 0, false
}

// SplitString is Split for a string: the YAML and the body.
func SplitString(s string) (fm, body string, ok bool) {
	f, i, ok := Split([]byte(s))
	if !ok {
		return "", s, false
	}
	return string(f), s[i:], true
}

// Title returns the front matter's title: the scalar of its "title" key
// read as YAML (as written: a date or a number is not retyped), or, when
// the block is not valid YAML, from its "title:" line, so that a page with
// a broken block still shows its title.
func Title(fm string) string {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(fm), &doc); err == nil {
		if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			return ""
		}
		m := doc.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			if k, v := m.Content[i], m.Content[i+1]; k.Value == "title" && v.Kind == yaml.ScalarNode {
				return v.Value
			}
		}
		return ""
	}
	for _, line := range strings.Split(fm, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "title:"); ok {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}
