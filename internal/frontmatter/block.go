package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// ErrNotMapping is returned by Parse when the front matter is YAML but not
// a mapping of keys to values (a list, a bare scalar).
var ErrNotMapping = errors.New("the front matter is not a mapping of keys to values")

// ErrNotText is returned by Set for a key or value that is not valid
// UTF-8: front matter is text, and yaml.v3 would write such bytes as
// base64 that a reader takes for the text.
var ErrNotText = errors.New("not valid UTF-8 text")

// Style is how a string value is written.
type Style int

const (
	// Plain leaves the choice to yaml.v3: unquoted where the text reads
	// back as the same string, quoted (or a literal block for several
	// lines) where it would not. Wiki pages use it (mini-context-graph
	// writes `title: System Crash Analysis`, `tags: [summary, incident]`).
	Plain Style = iota
	// Quoted always quotes, as X-IPE's memory notes do (`title: "…"`,
	// `tags: ["a", "b"]`): double quotes, or single quotes when the text
	// holds a double quote or a backslash and no single quote, because
	// X-IPE's reader strips the outer quotes without unescaping — single
	// quotes then read the same to it and to YAML.
	Quoted
)

// Block is one front-matter block held as an ordered YAML mapping node:
// what was read keeps its key order, quoting, flow or block layout and
// comments, and only the values set through Set are written anew. A block
// laid out as yaml.v3 writes YAML (one space after a colon or a comma,
// two-space indent: X-IPE's and mini-context-graph's files) is written
// back byte for byte; other spacing is normalized. It is the one writer
// of front matter (memory notes, wiki pages), as Split is the one reader.
type Block struct {
	m    *yaml.Node // a MappingNode
	crlf bool       // the block was read with CRLF line ends
}

// New returns an empty block.
func New() *Block { return &Block{m: &yaml.Node{Kind: yaml.MappingNode}} }

// Parse reads the YAML of a front-matter block (the fm Split returns). An
// empty block gives an empty Block. The error says why the YAML does not
// read, or is ErrNotMapping.
func Parse(fm []byte) (*Block, error) {
	b := New()
	b.crlf = bytes.Contains(fm, []byte("\r\n"))
	var doc yaml.Node
	if err := yaml.Unmarshal(fm, &doc); err != nil {
		return nil, fmt.Errorf("read the front matter: %w", err)
	}
	if len(doc.Content) == 0 {
		return b, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, ErrNotMapping
	}
	budget := maxNodes
	m, err := resolved(root, &budget, 0)
	if err != nil {
		return nil, err
	}
	b.m = m
	seen := map[string]bool{}
	for _, k := range b.Keys() {
		if seen[k] {
			return nil, fmt.Errorf("read the front matter: the key %q is there twice", k)
		}
		seen[k] = true
	}
	return b, nil
}

// maxNodes and maxDepth bound what Parse builds from aliases: a few lines
// of anchors can name millions of nodes.
const (
	maxNodes = 100_000
	maxDepth = 100
)

// errTooLarge is returned for front matter that expands past the bounds.
var errTooLarge = errors.New("the front matter's aliases expand past 100000 values or 100 levels")

// resolved copies n with each alias replaced by a copy of what it names
// and no anchors, so that a value Set replaces never leaves an alias to an
// anchor gone.
func resolved(n *yaml.Node, budget *int, depth int) (*yaml.Node, error) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		if depth++; depth > maxDepth {
			return nil, errTooLarge
		}
		n = n.Alias
	}
	if *budget--; *budget < 0 || depth > maxDepth {
		return nil, errTooLarge
	}
	cp := *n
	cp.Anchor = ""
	cp.Content = nil
	for _, c := range n.Content {
		r, err := resolved(c, budget, depth+1)
		if err != nil {
			return nil, err
		}
		cp.Content = append(cp.Content, r)
	}
	return &cp, nil
}

// Clone returns a copy whose Set and Delete leave b as it is (the value
// nodes are shared: Set replaces nodes, it never changes one in place).
func (b *Block) Clone() *Block {
	if b == nil {
		return New()
	}
	m := *b.m
	m.Content = append([]*yaml.Node(nil), b.m.Content...)
	return &Block{m: &m, crlf: b.crlf}
}

// Keys returns the keys in their order.
func (b *Block) Keys() []string {
	keys := make([]string, 0, len(b.m.Content)/2)
	for i := 0; i+1 < len(b.m.Content); i += 2 {
		keys = append(keys, b.m.Content[i].Value)
	}
	return keys
}

// index returns the position of key's key node, or -1.
func (b *Block) index(key string) int {
	for i := 0; i+1 < len(b.m.Content); i += 2 {
		if b.m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// Has reports whether the block has key.
func (b *Block) Has(key string) bool { return b.index(key) >= 0 }

// Decode decodes the whole block into v (a map or a struct), as
// yaml.Unmarshal would.
func (b *Block) Decode(v any) error { return b.m.Decode(v) }

// Delete removes key and its value.
func (b *Block) Delete(key string) {
	if i := b.index(key); i >= 0 {
		b.m.Content = append(b.m.Content[:i:i], b.m.Content[i+2:]...)
	}
}

// Set gives key the value v in style st. A key already there keeps its
// place; a new one goes just after the key named after: first when after
// is "", last when the block has no such key. A value equal to
// the one read is left as written, bytes and all; in a mapping, each
// entry is compared on its own, so changing one metadata entry rewrites
// only that one. Lists of scalars and empty mappings are written in flow
// style (`[a, b]`, `{}`), other mappings as indented blocks.
func (b *Block) Set(key string, v any, st Style, after string) error {
	if !utf8.ValidString(key) {
		return fmt.Errorf("write front matter key %q: %w", key, ErrNotText)
	}
	i := b.index(key)
	var old *yaml.Node
	if i >= 0 {
		old = b.m.Content[i+1]
	}
	n, err := valueNode(old, v, st)
	if err != nil {
		return fmt.Errorf("write front matter key %s: %w", key, err)
	}
	if i >= 0 {
		b.m.Content[i+1] = n
		return nil
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}
	at := len(b.m.Content)
	if after == "" {
		at = 0
	} else if j := b.index(after); j >= 0 {
		at = j + 2
	}
	c := append([]*yaml.Node(nil), b.m.Content[:at]...)
	c = append(c, k, n)
	b.m.Content = append(c, b.m.Content[at:]...)
	return nil
}

// valueNode returns old when it already holds v, else a node for v.
func valueNode(old *yaml.Node, v any, st Style) (*yaml.Node, error) {
	if s, ok := v.(string); ok && old != nil && old.Kind == yaml.ScalarNode && old.Value == s && old.ShortTag() == "!!str" {
		return old, nil
	}
	if m, ok := toMap(v); ok && old != nil && old.Kind == yaml.MappingNode && len(m) > 0 {
		return mergeMapping(old, m, st)
	}
	n := new(yaml.Node)
	if err := n.Encode(v); err != nil {
		return nil, err
	}
	binary := false
	walk(n, func(x *yaml.Node) { binary = binary || x.Tag == "!!binary" || !utf8.ValidString(x.Value) })
	if binary {
		return nil, ErrNotText
	}
	if old != nil && sameValue(old, n) {
		return old, nil
	}
	restyle(n, st)
	return n, nil
}

// mergeMapping writes m over the mapping old: old's keys that m keeps stay
// in their order, unchanged entries as written; new keys follow, sorted.
func mergeMapping(old *yaml.Node, m map[string]any, st Style) (*yaml.Node, error) {
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: old.Tag, Style: old.Style &^ yaml.FlowStyle}
	seen := map[string]bool{}
	for i := 0; i+1 < len(old.Content); i += 2 {
		k := old.Content[i]
		v, ok := m[k.Value]
		if !ok || seen[k.Value] {
			continue
		}
		seen[k.Value] = true
		n, err := valueNode(old.Content[i+1], v, st)
		if err != nil {
			return nil, err
		}
		out.Content = append(out.Content, k, n)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if !seen[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		n, err := valueNode(nil, m[k], st)
		if err != nil {
			return nil, err
		}
		out.Content = append(out.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, n)
	}
	return out, nil
}

// toMap returns v as a map with string keys, when it is one.
func toMap(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		return m, true
	case map[string]string:
		out := make(map[string]any, len(m))
		for k, x := range m {
			out[k] = x
		}
		return out, true
	}
	return nil, false
}

// sameValue reports whether two nodes decode to the same value.
func sameValue(a, b *yaml.Node) bool {
	var x, y any
	if a.Decode(&x) != nil || b.Decode(&y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// restyle applies st to the string scalars of n, puts lists of scalars and
// empty mappings in flow style and the rest in block style.
func restyle(n *yaml.Node, st Style) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!str" {
			n.Style = scalarStyle(n.Value, st)
		}
	case yaml.SequenceNode:
		n.Style = yaml.FlowStyle
		for _, c := range n.Content {
			restyle(c, st)
			if c.Kind != yaml.ScalarNode {
				n.Style = 0
			}
		}
	case yaml.MappingNode:
		n.Style = 0
		if len(n.Content) == 0 {
			n.Style = yaml.FlowStyle
		}
		for i := 1; i < len(n.Content); i += 2 {
			restyle(n.Content[i], st)
		}
	}
}

// scalarStyle is the yaml.v3 style for a string written in style st.
func scalarStyle(s string, st Style) yaml.Style {
	if st == Plain {
		return 0
	}
	if strings.ContainsAny(s, `"\`) && !strings.ContainsRune(s, '\'') && printableLine(s) {
		return yaml.SingleQuotedStyle
	}
	return yaml.DoubleQuotedStyle
}

// printableLine reports whether s is one line of printable text without
// leading or trailing space (what a single-quoted scalar keeps as is).
func printableLine(s string) bool {
	if s != strings.TrimSpace(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xfeff {
			return false
		}
	}
	return true
}

// LineEnd is the line end the block was read with: "\r\n" or "\n".
func (b *Block) LineEnd() string {
	if b != nil && b.crlf {
		return "\r\n"
	}
	return "\n"
}

// Bytes writes the block with its fences: "---", the YAML (two-space
// indent, key order kept), "---", each line ended as the block read was
// (LF for a new block).
func (b *Block) Bytes() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("---\n")
	if len(b.m.Content) > 0 {
		m, back := unescapable(b.m)
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(m); err != nil {
			return nil, fmt.Errorf("write the front matter: %w", err)
		}
		if err := enc.Close(); err != nil {
			return nil, fmt.Errorf("write the front matter: %w", err)
		}
		if back != nil {
			s := back.Replace(buf.String()[4:])
			buf.Truncate(4)
			buf.WriteString(s)
		}
	}
	buf.WriteString("---\n")
	if !b.crlf {
		return buf.Bytes(), nil
	}
	return bytes.ReplaceAll(buf.Bytes(), []byte("\n"), []byte("\r\n")), nil
}

// unescapable works around yaml.v3's emitter, which writes every character
// past U+FFFF (emoji, rare CJK) as a \U escape in double quotes: X-IPE's
// reader, which only strips the quotes, would read the escape, and an
// upstream note with an emoji would not keep its bytes. Such characters
// are swapped for private-use characters the block does not hold (which
// the emitter writes as they are) before encoding; the returned replacer
// swaps them back in the output. It returns n itself and nil when no
// value holds such a character, or when the private-use area runs out
// (the escapes are valid YAML all the same).
func unescapable(n *yaml.Node) (*yaml.Node, *strings.Replacer) {
	used := map[rune]bool{}
	var wide []rune
	walk(n, func(x *yaml.Node) {
		for _, s := range []string{x.Value, x.HeadComment, x.LineComment, x.FootComment} {
			for _, r := range s {
				switch {
				case r > 0xffff && !used[r]:
					wide = append(wide, r)
					used[r] = true
				case r >= puaFirst && r <= puaLast:
					used[r] = true
				}
			}
		}
	})
	if len(wide) == 0 {
		return n, nil
	}
	swap := map[rune]rune{}
	var pairs []string
	next := rune(puaFirst)
	for _, r := range wide {
		for next <= puaLast && used[next] {
			next++
		}
		if next > puaLast {
			return n, nil
		}
		swap[r] = next
		pairs = append(pairs, string(next), string(r))
		next++
	}
	sub := func(r rune) rune {
		if s, ok := swap[r]; ok {
			return s
		}
		return r
	}
	return swapped(n, sub), strings.NewReplacer(pairs...)
}

// The private-use area of the Basic Multilingual Plane.
const (
	puaFirst = 0xe000
	puaLast  = 0xf8ff
)

// walk calls fn on n and every node under it.
func walk(n *yaml.Node, fn func(*yaml.Node)) {
	fn(n)
	for _, c := range n.Content {
		walk(c, fn)
	}
}

// swapped copies n with sub applied to every value.
func swapped(n *yaml.Node, sub func(rune) rune) *yaml.Node {
	cp := *n
	cp.Value = strings.Map(sub, n.Value)
	cp.Content = make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		cp.Content[i] = swapped(c, sub)
	}
	return &cp
}
