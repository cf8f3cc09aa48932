package retrieve

import (
	"regexp"
	"strings"
	"sync"
)

// Reference is a parsed citation reference: the string form is what
// citation.reference holds and what `retrieve get` accepts as a target.
//
// Forms (DESIGN.md §1):
//
//	path[:LINES]                      file in the workspace, LINES like 1-15 or 1-5,20-30
//	git:<rev>:<path>[:LINES]          a file at a git revision
//	memory:<tier>/<file>.md[:LINES]   an agent memory note
//	http(s)://…                       a web page or API endpoint
//	sql:…, wiki:…, graph:…, doc:…     database records, wiki pages, graph nodes/edges, document chunks
type Reference struct {
	// Scheme is "file", "git", "memory", "web", "sql", "wiki", "graph",
	// "doc", or the scheme of another URL (s3 for s3://…), whose Path is then
	// the whole URL.
	Scheme string
	// Rev is the git revision (git scheme only).
	Rev string
	// Path is the path, URL or the scheme-specific rest of the reference.
	Path string
	// Lines is the canonical line-range suffix, empty when none.
	Lines string
}

var linesSuffix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(.*):([0-9]+(?:-[0-9]*)?(?:,[0-9]+(?:-[0-9]*)?)*)$`)
})

// ParseReference parses a reference. It never fails: a string with no known
// scheme is a file path, possibly with a line suffix. The line suffix is not
// validated here (a suffix such as 5-2 is left to the range parser, which
// rejects it with a clear error).
func ParseReference(s string) Reference {
	switch {
	case strings.HasPrefix(s, "http://"), strings.HasPrefix(s, "https://"):
		return Reference{Scheme: "web", Path: s}
	case strings.HasPrefix(s, "git:"):
		rest := s[len("git:"):]
		rev, path, ok := strings.Cut(rest, ":")
		if !ok {
			return Reference{Scheme: "git", Path: rest}
		}
		r := splitLines(path)
		r.Scheme, r.Rev = "git", rev
		return r
	case strings.HasPrefix(s, "memory:"):
		r := splitLines(s[len("memory:"):])
		r.Scheme = "memory"
		return r
	}
	for _, scheme := range []string{"sql", "wiki", "graph", "doc"} {
		if strings.HasPrefix(s, scheme+":") {
			return Reference{Scheme: scheme, Path: s[len(scheme)+1:]}
		}
	}
	if scheme := urlScheme(s); scheme != "" && !builtinScheme(scheme) {
		// Another source's URL (s3://bucket/key): whole, like a web URL,
		// with no line suffix (a port would read as one).
		return Reference{Scheme: scheme, Path: s}
	}
	r := splitLines(s)
	r.Scheme = "file"
	return r
}

// builtinScheme reports whether scheme is one of the forms above, which
// ParseReference reads its own way.
func builtinScheme(scheme string) bool {
	switch scheme {
	case "file", "web", "http", "https", "git", "memory", "sql", "wiki", "graph", "doc":
		return true
	}
	return false
}

func splitLines(s string) Reference {
	if m := linesSuffix().FindStringSubmatch(s); m != nil && m[1] != "" {
		return Reference{Path: m[1], Lines: m[2]}
	}
	return Reference{Path: s}
}

// String formats the reference in its canonical form.
func (r Reference) String() string {
	var b strings.Builder
	switch r.Scheme {
	case "", "file":
	case "web":
		return r.Path
	case "git":
		b.WriteString("git:" + r.Rev + ":")
	default:
		// The scheme is kept in lower case, the path as given (A://x).
		if p := r.Scheme + "://"; !builtinScheme(r.Scheme) && len(r.Path) >= len(p) && strings.EqualFold(r.Path[:len(p)], p) {
			return r.Path
		}
		b.WriteString(r.Scheme + ":")
	}
	b.WriteString(r.Path)
	if r.Lines != "" {
		b.WriteString(":" + r.Lines)
	}
	return b.String()
}
