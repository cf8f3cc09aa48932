package retrieve

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"
)

// Source fetches targets of one kind (file, git, web…). Implementations are
// registered explicitly with an Engine; they never import each other.
type Source interface {
	// Kind names the source as it appears in requests and provenance
	// ("file", "git", "web", "api", "database", "memory", "wiki", "graph").
	Kind() string
	// Fetch opens the document named by req. It returns an *Error with a
	// precise code when the target cannot be had (PATH_NOT_FOUND,
	// SENSITIVE_PATH, BLOCKED_ADDRESS…) and never returns both a document and
	// an error. The caller closes Document.Body.
	Fetch(ctx context.Context, req *Request) (*Document, error)
}

// Schemer is an optional interface: a source that implements it owns the
// reference forms of its schemes. A target "scheme:…" (git:, sql:) or
// "scheme://…" (http://, s3://) with no explicit source goes to the first
// registered source that owns the scheme and, when it is also a Matcher,
// matches the target. A "scheme://" target that no source owns is an
// UNKNOWN_SOURCE error, never a file path; "scheme:" with a scheme no source
// owns is a file path (a:b.txt).
type Schemer interface {
	// Schemes lists the schemes, lower case, without ":" or "://".
	Schemes() []string
}

// ReferenceParser is an optional interface: a source whose references are
// not <scheme>:<path>[:START-END] (a colon form) or a URL parses its own
// (git: a revision, RevisionReference; sql:, wiki:, graph: the rest whole,
// WholeReference). A source without it needs nothing: a colon form of one
// of its schemes is LineReference, a URL is whole, a path is a path.
type ReferenceParser interface {
	// ParseReference parses ref, which the registry resolves to this
	// source. ok is false when ref is not a well-formed reference of the
	// source (git:HEAD with no path): it then cites nothing.
	ParseReference(ref string) (r Reference, ok bool)
}

// Retriever runs retrievals; *engine.Engine implements it. Packages that retrieve
// through the engine (graph ingest) depend on this, not on the engine.
type Retriever interface {
	Retrieve(ctx context.Context, req Request) (*Result, error)
}

// PathVersioner is an optional interface: a source that reads workspace
// paths at a version (git) takes a plain path given with --version when no
// source is named.
type PathVersioner interface {
	ReadsPathVersions() bool
}

// PathVersions returns the first registered source that reads workspace
// paths at a version.
func (r *Registry) PathVersions() (Source, bool) {
	for _, s := range r.order {
		if pv, ok := s.(PathVersioner); ok && pv.ReadsPathVersions() {
			return s, true
		}
	}
	return nil, false
}

// Matcher is an optional interface: a source that implements it is chosen
// for requests with no explicit source whose target it matches. Among the
// owners of a scheme, it narrows which one takes a target (the api source
// takes only its configured hosts of http and https). Sources that implement
// neither Schemer nor Matcher are only used when named (and "file" by
// default).
type Matcher interface {
	Match(target string) bool
}

// Document is what a source hands to the engine: either a byte stream (Body)
// that the engine hashes while it extracts, or already structured Data (SQL
// rows, graph answers) that the engine hashes as canonical JSON.
type Document struct {
	// NoStore, when set, says why the source forbids keeping the bytes
	// (an HTTP "Cache-Control: no-store", "private" on a shared store):
	// the engine then keeps no snapshot and records no copy of the data,
	// so nothing can serve it again from the ledger.
	NoStore string
	// Body is the whole source document. Nil when Data is set.
	Body io.ReadCloser
	// Size is the length of Body in bytes, or -1 when unknown.
	Size int64
	// Data is structured data, used when Body is nil.
	Data any
	// Format is the data format when the source knows it (json, yaml, toml,
	// csv, markdown, html, text, binary, or a code language); empty to detect.
	Format string
	// Name is a file name used for extension-based format detection.
	Name string
	// Locator is the base of citation references and anchors: the
	// workspace-relative path, git:<sha>:<path>, the URL, sql:<conn>/…
	Locator string
	// Label is retrieved.source: "<kind>:<what>" (file:config/db.yml,
	// web:example.com).
	Label string
	// Spans says whether line spans of the document can be cited as
	// Locator:START-END and re-retrieved that way (a fact: see Volatile).
	Spans bool
	// SourceHash, when set, is the hash of the source document as the source
	// saw it (for example raw HTML before conversion). Otherwise the engine
	// hashes Body.
	SourceHash string
	// BodyHash, when set, is the sha256:<hex> of Body's Size bytes as the
	// source already knows it (the file source's hash cache, for a file
	// whose identity has not changed since it was hashed): the engine then
	// reads only what extraction needs, not the whole of Body.
	BodyHash string
	// Hashed, when set, is called by the engine with the hash of Body once
	// it has read all of it and found Size bytes: the source may remember
	// it for the next retrieval of the same content.
	Hashed func(hash string)
	// Version is the source's version marker (git:<sha>, an ETag), or nil.
	Version *string
	// LastModified is when the source last changed, when known.
	LastModified *time.Time
	// Authority and Reliability describe the source; Authority defaults to
	// medium when empty.
	Authority   Authority
	Reliability string
	// RetrievedFrom is live (default), revalidated or snapshot; Age is the
	// data's age when it did not come live.
	RetrievedFrom string
	Age           time.Duration
	// The facts below are what the source knows about the document and the
	// engine decides by: the engine names no source kind. It records them
	// with the retrieval, so that a snapshot served later (--fallback
	// snapshot, a rebuilt recorded result) is cited and aged as the live
	// document was.
	//
	// Volatile says the data goes stale (web pages, API responses, database
	// rows): served from a snapshot older than the TTL, it is stale and its
	// confidence decays.
	Volatile bool
	// TextFragments says that a span of the document is cited as a text
	// fragment of its Locator URL (#:~:text=…), which takes no line suffix
	// (web pages, API responses); Spans is then false.
	TextFragments bool
	// CurrentOnly says that the source reads only the current state of the
	// document (database rows): a later retrieval cannot read it as of its
	// Version, so a verification compares the state as it is now and says so.
	CurrentOnly bool
	// Assumptions are facts the source wants the reader to know.
	Assumptions []string
	// Deductions lower the confidence; the source writes an assumption that
	// explains each one.
	Deductions []Deduction
	// Metadata goes to provenance.metadata.
	Metadata map[string]any
	// Anchors, when set, are the evidence anchors (structured Data, or a
	// span a source selected itself, such as a web page's text fragment).
	Anchors []string
	// AppliedFilters are constraints the source applied itself (a CSS
	// selector); they join extraction.applied_filters.
	AppliedFilters map[string]any
	// Complete is false when the source itself could not return everything
	// (a row cap, a page limit); the engine also clears it when constraints
	// cut the document.
	Incomplete bool
	// Truncated is set when the source itself cut the document (a body cap
	// hit while streaming); it shows as extraction.truncated.
	Truncated bool
	// Next is the target of what follows when the source itself stopped
	// (the api source's next Link page past its page count): it shows as
	// extraction.next, with the selection's fragment when one was made.
	Next string
	// RowParts, when set, names the first n rows of Data (an array of
	// rows) as a part of their own, and the rows after them as the next
	// part: a server's message budget that cannot hold every row keeps the
	// rows that fit instead of failing (a paged SQL query:
	// sql:pg#<hash>#rows=1-40, next sql:pg#<hash>#rows=41-).
	RowParts func(n int) (reference, next string)
}

// Deduction lowers confidence by Amount (0..1) for the stated Reason.
type Deduction struct {
	Reason string
	Amount float64
}

// Registry holds the sources of an engine, keyed by kind and by the
// schemes they own.
type Registry struct {
	byKind   map[string]Source
	byScheme map[string][]Source
	order    []Source
}

// NewRegistry returns a registry of the given sources. It panics on a
// duplicate kind: that is a wiring bug, not a runtime condition.
func NewRegistry(sources ...Source) *Registry {
	r := &Registry{byKind: map[string]Source{}, byScheme: map[string][]Source{}}
	for _, s := range sources {
		r.Register(s)
	}
	return r
}

// Register adds a source. It panics when the kind is already registered.
func (r *Registry) Register(s Source) {
	if _, dup := r.byKind[s.Kind()]; dup {
		panic(fmt.Sprintf("retrieve: source %q registered twice", s.Kind()))
	}
	r.byKind[s.Kind()] = s
	r.order = append(r.order, s)
	if sc, ok := s.(Schemer); ok {
		for _, scheme := range sc.Schemes() {
			r.byScheme[scheme] = append(r.byScheme[scheme], s)
		}
	}
}

// Schemes lists the schemes the registered sources own, sorted.
func (r *Registry) Schemes() []string {
	schemes := make([]string, 0, len(r.byScheme))
	for k := range r.byScheme {
		schemes = append(schemes, k)
	}
	sort.Strings(schemes)
	return schemes
}

// urlScheme returns the scheme of a "scheme://…" target (RFC 3986
// characters), lower case, or "".
func urlScheme(target string) string {
	i := strings.Index(target, "://")
	if i <= 0 {
		return ""
	}
	for j, c := range target[:i] {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return ""
		}
	}
	return strings.ToLower(target[:i])
}

// blockedSchemes are URL schemes no source may fetch: local files outside
// the workspace (file:), and protocols an http client could be tricked
// into speaking to internal services (gopher:, dict:, ldap:…). Unless a
// source claims one, a target in one of them is BLOCKED_ADDRESS, as a
// redirect to one is.
var blockedSchemes = []string{"file", "gopher", "ftp", "ftps", "sftp", "scp", "ssh", "telnet", "dict", "ldap", "ldaps",
	"tftp", "smb", "nfs", "jar", "netdoc", "ws", "wss", "data", "javascript", "vbscript"}

// blockedScheme returns the blocked scheme target starts with ("scheme:",
// any case), or "".
func blockedScheme(target string) string {
	i := strings.IndexByte(target, ':')
	if i <= 0 {
		return ""
	}
	scheme := strings.ToLower(target[:i])
	if slices.Contains(blockedSchemes, scheme) {
		return scheme
	}
	return ""
}

// SchemeOf returns the scheme that target names and the sources that own
// it: a "scheme://" target's scheme (owners may be none), or the prefix of a
// "scheme:" target when a source owns it; "" for a workspace path.
func (r *Registry) SchemeOf(target string) (string, []Source) {
	if s := urlScheme(target); s != "" {
		return s, r.byScheme[s]
	}
	if i := strings.IndexByte(target, ':'); i > 0 {
		if owners := r.byScheme[target[:i]]; len(owners) > 0 {
			return target[:i], owners
		}
	}
	return "", nil
}

// Lookup returns the source of the given kind.
func (r *Registry) Lookup(kind string) (Source, bool) {
	s, ok := r.byKind[kind]
	return s, ok
}

// Kinds lists the registered kinds, sorted.
func (r *Registry) Kinds() []string {
	kinds := make([]string, 0, len(r.byKind))
	for k := range r.byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	return kinds
}

// Recognize tells which source a reference cites, and its parts: the
// source the registry resolves it to with no source named (Resolve), and
// the reference parsed by that source (ReferenceParser) or in the default
// form of its scheme. ok is false when no registered source takes it (a
// scheme no source owns, a refused scheme, a malformed reference of its
// source). This is how check, the servers and the UI know every
// registered source's references without a list of their own.
func (r *Registry) Recognize(ref string) (Source, Reference, bool) {
	src, err := r.Resolve(&Request{Target: ref})
	if err != nil {
		return nil, Reference{}, false
	}
	if p, ok := src.(ReferenceParser); ok {
		parsed, ok := p.ParseReference(ref)
		if !ok {
			return nil, Reference{}, false
		}
		return src, parsed, true
	}
	if scheme, owners := r.SchemeOf(ref); len(owners) > 0 && urlScheme(ref) == "" {
		return src, LineReference(scheme, ref), true
	}
	if urlScheme(ref) != "" {
		return src, urlReference(ref), true
	}
	// A path, even one that starts like an unregistered colon scheme
	// (a:b.txt, or git:… with no git source).
	parsed := splitLines(ref)
	parsed.Scheme = "file"
	return src, parsed, true
}

// ParseReference parses s in the forms of the registered sources: a
// reference a source takes (Recognize) is parsed as that source parses
// it, so a registered kv: source's kv:b/a:2-3 is kv's b/a, lines 2-3,
// never a file path; anything else is parsed as the package-level
// ParseReference does.
func (r *Registry) ParseReference(s string) Reference {
	if _, ref, ok := r.Recognize(s); ok {
		return ref
	}
	return ParseReference(s)
}

// Resolve picks the source for req: the named one; else, for a target with
// a scheme, the first owner of the scheme that takes it (see Schemer); else
// the first Matcher that matches the target in registration order; else the
// "file" source.
func (r *Registry) Resolve(req *Request) (Source, error) {
	if req.Source != "" {
		s, ok := r.byKind[req.Source]
		if !ok {
			return nil, Errorf(CodeUnknownSource, "unknown source %q", req.Source).
				WithHint("use one of: %v", r.Kinds())
		}
		return s, nil
	}
	scheme, owners := r.SchemeOf(req.Target)
	for _, s := range owners {
		if m, ok := s.(Matcher); !ok || m.Match(req.Target) {
			return s, nil
		}
	}
	for _, s := range r.order {
		if _, owns := s.(Schemer); owns {
			continue
		}
		if m, ok := s.(Matcher); ok && m.Match(req.Target) {
			return s, nil
		}
	}
	if bs := blockedScheme(req.Target); bs != "" {
		return nil, Errorf(CodeBlockedAddress, "%s: targets are refused: only http and https are fetched", bs).
			WithHint("a workspace file is named by its path (README.md, ./%s); a web page by an http(s) URL", strings.TrimPrefix(req.Target, bs+":"))
	}
	if scheme != "" {
		return nil, Errorf(CodeUnknownSource, "no source reads %s references such as %q", scheme, req.Target).
			WithHint("the sources of this engine read the schemes %v and workspace paths; name a source with --source (registered: %v)", r.Schemes(), r.Kinds())
	}
	if s, ok := r.byKind["file"]; ok {
		return s, nil
	}
	return nil, Errorf(CodeUnknownSource, "no source can retrieve %q", req.Target).
		WithHint("name a source with --source; registered: %v", r.Kinds())
}
