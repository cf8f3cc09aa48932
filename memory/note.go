// Package memory is agent memory (seed 004 and the X-IPE keeper it reads
// from): plain Markdown notes with YAML frontmatter in episodic/, semantic/
// and procedural/ folders, a keeper that writes them atomically, and a
// read-only extractor (extract_overview, extract_details) backed by a
// full-text index in the store and by the ontology under .ontology/.
package memory

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve/internal/frontmatter"
	"github.com/retrieve-dev/retrieve/intl"
)

// The memory tiers, in their folder names.
const (
	Episodic   = "episodic"
	Semantic   = "semantic"
	Procedural = "procedural"
)

// Tiers lists the tiers in display order.
var Tiers = []string{Episodic, Semantic, Procedural}

// tierPrefix is the id prefix of each tier.
var tierPrefix = map[string]string{Episodic: "epi", Semantic: "sem", Procedural: "proc"}

// ValidTier reports whether t names a tier.
func ValidTier(t string) bool { _, ok := tierPrefix[t]; return ok }

// Note is one memory entry: the frontmatter of seed-origins §3 and the body.
type Note struct {
	ID       string         `json:"memory_entry_id" yaml:"memory_entry_id"`
	Title    string         `json:"title" yaml:"title"`
	Type     string         `json:"memory_type" yaml:"memory_type"`
	Tags     []string       `json:"tags" yaml:"tags"`
	Metadata map[string]any `json:"metadata" yaml:"metadata"`
	Created  string         `json:"created" yaml:"created"`
	Updated  string         `json:"updated" yaml:"updated"`
	// Extra holds frontmatter keys this package does not know; they are
	// written back unchanged.
	Extra map[string]any `json:"extra,omitempty" yaml:"extra,omitempty"`
	// Body is the Markdown after the frontmatter.
	Body string `json:"content" yaml:"content"`
	// front is the frontmatter as read: Render writes what did not change
	// as it was (key order, quoting, comments), so a note read and written
	// back keeps its bytes.
	front *frontmatter.Block
}

// knownKeys are the frontmatter keys of Note, in the order they are written.
var knownKeys = []string{"memory_entry_id", "title", "memory_type", "tags", "metadata", "created", "updated"}

// Parsed is the result of ParseNote: the note and what was wrong with it.
type Parsed struct {
	Note Note
	// HasFrontmatter is false for a plain Markdown file.
	HasFrontmatter bool
	// Warning is a one-line description of a frontmatter problem; the body
	// is still usable.
	Warning string
	// Encoding says where the file is not valid UTF-8 (its text is still
	// read, searched and returned byte-exact).
	Encoding string
}

// ParseNote parses a note file. It never fails: a file with broken
// frontmatter gives a warning and its text as the body, so that it stays
// searchable.
func ParseNote(data []byte) Parsed {
	p := parseNote(data)
	if !utf8.Valid(data) {
		// Read and indexed all the same (invalid bytes are separators to
		// the search), but said: the file is not what a UTF-8 reader sees.
		p.Encoding = "the note is not valid UTF-8 (" + invalidAt(data) + "); the bytes are kept, the search skips them"
	}
	return p
}

// Warnings joins what is wrong with the note: frontmatter, then encoding.
func (p *Parsed) Warnings() string {
	switch {
	case p.Warning == "":
		return p.Encoding
	case p.Encoding == "":
		return p.Warning
	}
	return p.Warning + "; " + p.Encoding
}

// invalidAt names the first invalid UTF-8 byte of data (which has one).
func invalidAt(data []byte) string {
	line := 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return fmt.Sprintf("byte 0x%02x at offset %d, line %d", data[i], i, line)
		}
		if data[i] == '\n' {
			line++
		}
		i += size
	}
	return "no invalid byte"
}

func parseNote(data []byte) Parsed {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var p Parsed
	fm, body, ok := splitFrontmatter(data)
	if !ok {
		p.Note.Body = string(data)
		if bytes.HasPrefix(data, []byte("---")) {
			p.Warning = "frontmatter has no closing '---' line"
		}
		return p
	}
	p.HasFrontmatter = true
	p.Note.Body = string(body)
	front, err := frontmatter.Parse(fm)
	var raw map[string]any
	if err == nil {
		err = front.Decode(&raw)
	}
	if err != nil {
		p.Warning = "frontmatter is not valid YAML: " + firstLine(strings.TrimPrefix(err.Error(), "read the front matter: "))
		return p
	}
	n := &p.Note
	n.front = front
	var problems []string
	str := func(key string) string {
		v, present := raw[key]
		if !present || v == nil {
			return ""
		}
		switch x := v.(type) {
		case string:
			return x
		case time.Time:
			return x.UTC().Format(time.RFC3339)
		case bool, int, int64, uint64, float64:
			return fmt.Sprint(x)
		default:
			problems = append(problems, key+" is not a string")
			return ""
		}
	}
	n.ID = str("memory_entry_id")
	n.Title = str("title")
	n.Type = str("memory_type")
	n.Created = str("created")
	n.Updated = str("updated")
	switch t := raw["tags"].(type) {
	case nil:
	case []any:
		for _, v := range t {
			if v == nil {
				continue
			}
			if s := strings.TrimSpace(fmt.Sprint(v)); s != "" {
				n.Tags = append(n.Tags, s)
			}
		}
	case string:
		for _, s := range strings.Split(t, ",") {
			if s = strings.TrimSpace(s); s != "" {
				n.Tags = append(n.Tags, s)
			}
		}
	default:
		problems = append(problems, "tags is not a list")
	}
	switch m := raw["metadata"].(type) {
	case nil:
	case map[string]any:
		n.Metadata = m
	default:
		problems = append(problems, "metadata is not a mapping")
	}
	for k, v := range raw {
		if !isKnown(k) {
			if n.Extra == nil {
				n.Extra = map[string]any{}
			}
			n.Extra[k] = v
		}
	}
	if len(problems) > 0 {
		p.Warning = "frontmatter: " + strings.Join(problems, "; ")
	}
	return p
}

func isKnown(k string) bool {
	for _, x := range knownKeys {
		if x == k {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// splitFrontmatter splits "---\n<yaml>\n---\n<body>" (internal/frontmatter:
// CRLF line ends, a closing "..." line); the blank line the seed's format
// puts after the block is not part of the body.
func splitFrontmatter(data []byte) (fm, body []byte, ok bool) {
	fm, i, ok := frontmatter.Split(data)
	if !ok {
		return nil, data, false
	}
	if i >= len(data) {
		return fm, nil, true
	}
	return fm, bytes.TrimPrefix(bytes.TrimPrefix(data[i:], []byte("\r")), []byte("\n")), true
}

// Render writes the note in the seed's format (X-IPE's memory_ops.py):
// the known keys in its order (title, tags and timestamps quoted, tags as
// a flow list, metadata only when there is some), then keys this package
// does not know, then a blank line and the body as it is. What was read
// and did not change is written as it was (internal/frontmatter), so an
// upstream note read and rendered keeps its bytes.
func (n *Note) Render() ([]byte, error) {
	b := n.front.Clone()
	for _, k := range b.Keys() {
		if _, extra := n.Extra[k]; !extra && !isKnown(k) {
			b.Delete(k)
		}
	}
	tags := n.Tags
	if tags == nil {
		tags = []string{}
	}
	prev := ""
	for _, f := range []struct {
		key   string
		value any
		style frontmatter.Style
	}{
		{"memory_entry_id", n.ID, frontmatter.Plain},
		{"title", n.Title, frontmatter.Quoted},
		{"memory_type", n.Type, frontmatter.Plain},
		{"tags", tags, frontmatter.Quoted},
		{"metadata", n.Metadata, frontmatter.Quoted},
		{"created", n.Created, frontmatter.Quoted},
		{"updated", n.Updated, frontmatter.Quoted},
	} {
		if f.key == "metadata" && len(n.Metadata) == 0 && !b.Has("metadata") {
			continue // upstream writes no metadata key when there is none
		}
		if err := b.Set(f.key, f.value, f.style, prev); err != nil {
			return nil, err
		}
		prev = f.key
	}
	keys := make([]string, 0, len(n.Extra))
	for k := range n.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		all := b.Keys()
		if err := b.Set(k, n.Extra[k], frontmatter.Quoted, all[len(all)-1]); err != nil {
			return nil, err
		}
	}
	out, err := b.Bytes()
	if err != nil {
		return nil, err
	}
	out = append(out, b.LineEnd()...)
	return append(out, n.Body...), nil
}

// Slug is the file name stem of a title in any script (intl.Slug):
// lowercase, NFKC, runs of anything but letters and digits become '-', at
// most 60 characters, no leading or trailing '-'. An ASCII title gets
// upstream's slug.
func Slug(title string) string { return intl.SlugRunes(intl.Slug(title, 0), 60) }

var idPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(epi|sem|proc)-([0-9]{8})-([0-9]{3,})$`) })

// FormatID returns the id {epi|sem|proc}-YYYYMMDD-NNN.
func FormatID(tier string, day time.Time, n int) string {
	return fmt.Sprintf("%s-%s-%03d", tierPrefix[tier], day.UTC().Format("20060102"), n)
}

// parseID splits an id into its prefix, day and sequence number.
func parseID(id string) (prefix, day string, n int, ok bool) {
	m := idPattern().FindStringSubmatch(id)
	if m == nil {
		return "", "", 0, false
	}
	fmt.Sscanf(m[3], "%d", &n)
	return m[1], m[2], n, true
}

// TierOfID returns the tier an id belongs to.
func TierOfID(id string) string {
	prefix, _, _, ok := parseID(id)
	if !ok {
		return ""
	}
	for t, p := range tierPrefix {
		if p == prefix {
			return t
		}
	}
	return ""
}
