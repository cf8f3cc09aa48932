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
//	<scheme>:<path>[:LINES], <scheme>://…  a registered source's own scheme (Registry.ParseReference)
type Reference struct {
	// Scheme is "file" for a workspace path, "web" for an http(s) URL, the
	// scheme of a colon form (git, memory, sql, wiki, graph, doc, or a
	// registered source's kv), or the scheme of another URL (s3 for
	// s3://…), whose Path is then the whole URL.
	Scheme string
	// Rev is the revision of a revision form (git:<rev>:<path>,
	// RevisionReference).
	Rev string
	// Path is the path, URL or the scheme-specific rest of the reference.
	Path string
	// Lines is the canonical line-range suffix, empty when none.
	Lines string
}

var linesSuffix = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(.*):([0-9]+(?:-[0-9]*)?(?:,[0-9]+(?:-[0-9]*)?)*)$`)
})

// ParseReference parses a reference in the forms of the built-in sources,
// for code that has no registry at hand. It never fails: a string with no
// known scheme is a file path, possibly with a line suffix, so a colon
// scheme of another source (kv:b/a:2-3) reads as a path here.
// Registry.ParseReference knows every registered source's scheme and form
// and is the one to use where a registry is at hand. The line suffix is not
// validated here (a suffix such as 5-2 is left to the range parser, which
// rejects it with a clear error).
func ParseReference(s string) Reference {
	switch {
	case strings.HasPrefix(s, "http://"), strings.HasPrefix(s, "https://"):
		return Reference{Scheme: "web", Path: s}
	case strings.HasPrefix(s, "git:"):
		return RevisionReference("git", s)
	case strings.HasPrefix(s, "memory:"):
		return LineReference("memory", s)
	}
	for _, scheme := range []string{"sql", "wiki", "graph", "doc"} {
		if strings.HasPrefix(s, scheme+":") {
			return WholeReference(scheme, s)
		}
	}
	return pathOrURL(s)
}

// pathOrURL parses a reference in none of the built-in colon forms: a URL
// of another scheme whole, else a workspace path with its line suffix.
func pathOrURL(s string) Reference {
	if scheme := urlScheme(s); scheme != "" && !builtinScheme(scheme) {
		// Another source's URL (s3://bucket/key): whole, like a web URL,
		// with no line suffix (a port would read as one).
		return Reference{Scheme: scheme, Path: s}
	}
	r := splitLines(s)
	r.Scheme = "file"
	return r
}

// urlReference parses a URL whole, with no line suffix (a port would read
// as one): an http(s) URL is "web", another one is its scheme's.
func urlReference(s string) Reference {
	if scheme := urlScheme(s); scheme != "http" && scheme != "https" {
		return Reference{Scheme: scheme, Path: s}
	}
	return Reference{Scheme: "web", Path: s}
}

// LineReference parses s as scheme:<path>[:START-END], the form of a source
// whose documents cite line spans (memory:semantic/x.md:3-5). It is the
// form of a registered colon scheme whose source parses no references of
// its own (ReferenceParser).
func LineReference(scheme, s string) Reference {
	r := splitLines(strings.TrimPrefix(s, scheme+":"))
	r.Scheme = scheme
	return r
}

// WholeReference parses s as scheme:<rest> with no line suffix, the form of
// a source whose references may end in :N themselves (sql:, wiki:,
// graph:node/<name>, doc:).
func WholeReference(scheme, s string) Reference {
	return Reference{Scheme: scheme, Path: strings.TrimPrefix(s, scheme+":")}
}

// RevisionReference parses s as scheme:<rev>:<path>[:START-END], a file at
// a revision (git:); with no second colon, the rest is the path and Rev is
// empty.
func RevisionReference(scheme, s string) Reference {
	rest := strings.TrimPrefix(s, scheme+":")
	rev, path, ok := strings.Cut(rest, ":")
	if !ok {
		return Reference{Scheme: scheme, Path: rest}
	}
	r := splitLines(path)
	r.Scheme, r.Rev = scheme, rev
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
		if r.Rev != "" {
			b.WriteString(r.Rev + ":")
		}
	}
	b.WriteString(r.Path)
	if r.Lines != "" {
		b.WriteString(":" + r.Lines)
	}
	return b.String()
}
