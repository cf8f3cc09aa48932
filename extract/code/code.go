// Package code finds the symbols of a source file — classes, interfaces,
// structs, enums, types, functions, methods, constants, variables and
// modules or namespaces — with their exact line spans, so that a citation
// can name one symbol.
//
// Go is parsed with go/ast. TypeScript/TSX, JavaScript, Python, Java, Rust,
// C, C++, C# and Ruby are parsed with tree-sitter's official C runtime and
// grammars (github.com/tree-sitter/go-tree-sitter), which need cgo: a
// build without cgo outlines Go only, and the nine others are an
// *UnsupportedError that wraps ErrNoRuntime.
//
// The outline never reads inside a function, so Go and Python functions'
// bodies are blanked before the parse, every line kept (gobodies.go,
// pybodies.go): a syntax error inside a body is not seen.
//
// A symbol's span starts at its leading doc comment and decorators or
// attributes and ends at its last line. Spans are 1-based inclusive lines.
//
// It is a leaf package: it imports no other package of this module, only
// the standard library and the tree-sitter runtime and grammars.
package code

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
)

var (
	// ErrUnsupported is wrapped by errors about a format that is not code.
	ErrUnsupported = errors.New("unsupported language")
	// ErrNoRuntime is wrapped, with ErrUnsupported, by the error of a
	// tree-sitter language in a build without cgo.
	ErrNoRuntime = errors.New("no C parser runtime in this build")
	// ErrSymbolNotFound is wrapped by *NotFoundError.
	ErrSymbolNotFound = errors.New("symbol not found")
	// ErrAmbiguous is wrapped by *AmbiguousError.
	ErrAmbiguous = errors.New("ambiguous symbol")
	// ErrBadSelector is wrapped by errors about a malformed selector.
	ErrBadSelector = errors.New("invalid symbol selector")
)

// Symbol kinds.
const (
	KindClass     = "class"
	KindInterface = "interface"
	KindStruct    = "struct"
	KindEnum      = "enum"
	KindType      = "type"
	KindFunction  = "function"
	KindMethod    = "method"
	KindConst     = "const"
	KindVar       = "var"
	KindModule    = "module"
	KindNamespace = "namespace"
)

// Kinds lists the symbol kinds, which are also the kind selectors.
var Kinds = []string{KindClass, KindInterface, KindStruct, KindEnum, KindType, KindFunction, KindMethod, KindConst, KindVar, KindModule, KindNamespace}

// Symbol is one declaration of a source file.
type Symbol struct {
	// Name is the symbol's own name: "save".
	Name string `json:"name"`
	// Kind is one of Kinds.
	Kind string `json:"kind"`
	// Parent is the qualified name of the enclosing symbol ("User",
	// "models.User"), empty at the top level. A Go method's parent is its
	// receiver type; a Rust method's the type of its impl block.
	Parent string `json:"parent"`
	// StartLine and EndLine are the 1-based inclusive lines of the symbol,
	// its leading doc comment and decorators or attributes included.
	StartLine int `json:"start_line"`
	EndLine   int `json:"end_line"`
}

// Path is the qualified name: Parent.Name, or Name at the top level.
func (s Symbol) Path() string {
	if s.Parent == "" {
		return s.Name
	}
	return s.Parent + "." + s.Name
}

// Outline is the symbols of one file.
type Outline struct {
	// Language is the language the file was parsed as.
	Language string
	// Symbols are in source order (by start line, outer before inner).
	Symbols []Symbol
	// SyntaxErrors is set when the parser met errors: the spans are then a
	// best effort.
	SyntaxErrors bool
}

// Version names the outlines this package makes: it changes whenever the
// outline of some bytes may change — a golden outline of testdata changes
// (bump the number), the tree-sitter runtime is upgraded (its version is
// part of it, and a grammar upgrade bumps the number;
// TestVersionNamesTheRuntime holds both to go.mod) — so that outlines
// cached under it (the engine, in the store's outline cache) are never
// served for another version. 1 was the pure-Go runtime gotreesitter; 3:
// a syntax error inside a Go function's body is no longer parsed.
const Version = "3+go-tree-sitter@v0.25.0"

// languages lists the languages this package parses.
var languages = []string{"go", "typescript", "tsx", "javascript", "python", "java", "rust", "c", "cpp", "csharp", "ruby"}

// Languages returns the names of the languages the package knows.
func Languages() []string { return append([]string(nil), languages...) }

// IsCode reports whether format names a language of this package.
func IsCode(format string) bool {
	for _, l := range languages {
		if l == format {
			return true
		}
	}
	return false
}

// UnsupportedError is the error of Parse for a language it cannot parse.
type UnsupportedError struct {
	Language string
	// NoRuntime is set for a language this build cannot parse: one of
	// tree-sitter's, in a build without cgo.
	NoRuntime bool
}

func (e *UnsupportedError) Error() string {
	if e.NoRuntime {
		return fmt.Sprintf("%s symbols need the tree-sitter C parser runtime, and this build has none (built without cgo)", e.Language)
	}
	return fmt.Sprintf("%q is not a source language retrieve knows", e.Language)
}

// Unwrap returns ErrUnsupported, and ErrNoRuntime when NoRuntime is set.
func (e *UnsupportedError) Unwrap() []error {
	if e.NoRuntime {
		return []error{ErrUnsupported, ErrNoRuntime}
	}
	return []error{ErrUnsupported}
}

// Hint says how to recover.
func (e *UnsupportedError) Hint() string {
	if e.NoRuntime {
		return "this build has no C parser runtime; build with CGO_ENABLED=1 and a C compiler, or use a release binary (on Windows arm64, the x64 one); --lines works without symbols"
	}
	return "symbols work for " + strings.Join(languages, ", ") + "; use --lines for other files"
}

// Parse returns the outline of src in language lang (a format name of
// extract.Detect: go, typescript, tsx, javascript, python, java, rust, c,
// cpp, csharp, ruby). Syntax errors never fail it: the outline is then a
// best effort and SyntaxErrors is set.
func Parse(lang string, src []byte) (*Outline, error) {
	if lang == "go" {
		return parseGo(src), nil
	}
	if !IsCode(lang) {
		return nil, &UnsupportedError{Language: lang}
	}
	return parseTreeSitter(lang, src)
}

// NotFoundError is the error of Select when a selector matches no symbol.
type NotFoundError struct {
	Selector string
	// Available are the qualified names of the file's symbols.
	Available []string
}

func (e *NotFoundError) Error() string {
	if len(e.Available) == 0 {
		return fmt.Sprintf("symbol %q not found: the file declares no symbols", e.Selector)
	}
	return fmt.Sprintf("symbol %q not found among the %d symbols of the file", e.Selector, len(e.Available))
}

// Unwrap returns ErrSymbolNotFound.
func (e *NotFoundError) Unwrap() error { return ErrSymbolNotFound }

// Alternatives returns up to 10 symbol names nearest to the selector.
func (e *NotFoundError) Alternatives() []string { return nearest(e.Selector, e.Available, 10) }

// AmbiguousError is the error of Select when a plain name matches symbols
// of different qualified names (User.save and Admin.save).
type AmbiguousError struct {
	Selector string
	// Matches are the qualified names matched, with their lines.
	Matches []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("symbol %q is ambiguous: it names %d symbols", e.Selector, len(e.Matches))
}

// Unwrap returns ErrAmbiguous.
func (e *AmbiguousError) Unwrap() error { return ErrAmbiguous }

// Alternatives returns the qualified names that would each select one.
func (e *AmbiguousError) Alternatives() []string { return e.Matches }

// maxSelector bounds a selector's length.
const maxSelector = 1024

// Selector is a parsed symbol selector: a kind, or a qualified name whose
// parts may be globs.
type Selector struct {
	// Kind is set for a kind selector ("class"); "module" and "namespace"
	// select both kinds.
	Kind string
	// Parts are the name parts ("User", "save") of a name selector.
	Parts []string
	// Glob is set when a part holds *, ? or [.
	Glob bool
}

// ParseSelector parses a selector: a kind of Kinds, or a name qualified
// with ".", "::", "#" or " > " (User.save, User::save, User#save), whose
// parts may be path.Match globs (Test*).
func ParseSelector(s string) (Selector, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Selector{}, fmt.Errorf("%w: empty selector", ErrBadSelector)
	}
	if len(s) > maxSelector {
		return Selector{}, fmt.Errorf("%w: selector longer than %d bytes", ErrBadSelector, maxSelector)
	}
	for _, k := range Kinds {
		if s == k {
			return Selector{Kind: k}, nil
		}
	}
	norm := strings.NewReplacer("::", ".", "#", ".", ">", ".").Replace(s)
	parts := strings.Split(norm, ".")
	sel := Selector{}
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return Selector{}, fmt.Errorf("%w: %q has an empty name part", ErrBadSelector, s)
		}
		if strings.ContainsAny(p, "*?[") {
			if _, err := path.Match(p, ""); err != nil {
				return Selector{}, fmt.Errorf("%w: bad glob %q", ErrBadSelector, p)
			}
			sel.Glob = true
		}
		sel.Parts = append(sel.Parts, p)
	}
	return sel, nil
}

// Match reports whether the selector selects s.
func (sel Selector) Match(s Symbol) bool {
	if sel.Kind != "" {
		if sel.Kind == KindModule || sel.Kind == KindNamespace {
			return s.Kind == KindModule || s.Kind == KindNamespace
		}
		return s.Kind == sel.Kind
	}
	return matchParts(splitPath(s.Path()), sel.Parts)
}

func splitPath(p string) []string { return strings.Split(p, ".") }

// matchParts reports whether want matches a suffix of have, part by part.
func matchParts(have, want []string) bool {
	if len(want) > len(have) {
		return false
	}
	off := len(have) - len(want)
	for i, w := range want {
		h := have[off+i]
		if w == h {
			continue
		}
		if ok, _ := path.Match(w, h); !ok {
			return false
		}
	}
	return true
}

// Select returns the symbols the selectors name, in source order, without
// duplicates, and without symbols inside another selected one (a method of
// a selected class is already in its span). A selector that matches nothing
// gives a *NotFoundError; a plain name (no glob) that matches symbols of
// different qualified names gives an *AmbiguousError (overloads share a
// name and are all selected).
func (o *Outline) Select(selectors []string) ([]Symbol, error) {
	picked := map[int]bool{}
	for _, raw := range selectors {
		sel, err := ParseSelector(raw)
		if err != nil {
			return nil, err
		}
		var idx []int
		paths := map[string]bool{}
		for i, s := range o.Symbols {
			if sel.Match(s) {
				idx = append(idx, i)
				paths[s.Path()] = true
			}
		}
		if len(idx) == 0 {
			return nil, &NotFoundError{Selector: strings.TrimSpace(raw), Available: o.paths()}
		}
		if sel.Kind == "" && !sel.Glob && len(paths) > 1 {
			var m []string
			for _, i := range idx {
				s := o.Symbols[i]
				m = append(m, fmt.Sprintf("%s (%s, lines %d-%d)", s.Path(), s.Kind, s.StartLine, s.EndLine))
			}
			return nil, &AmbiguousError{Selector: strings.TrimSpace(raw), Matches: m}
		}
		for _, i := range idx {
			picked[i] = true
		}
	}
	var out []Symbol
	for i, s := range o.Symbols {
		if picked[i] {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].StartLine != out[j].StartLine {
			return out[i].StartLine < out[j].StartLine
		}
		return out[i].EndLine > out[j].EndLine
	})
	// Drop symbols inside an earlier, wider one.
	kept := out[:0]
	for _, s := range out {
		if n := len(kept); n > 0 && s.StartLine >= kept[n-1].StartLine && s.EndLine <= kept[n-1].EndLine {
			continue
		}
		kept = append(kept, s)
	}
	return kept, nil
}

func (o *Outline) paths() []string {
	seen := map[string]bool{}
	out := []string{}
	for _, s := range o.Symbols {
		if p := s.Path(); !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// sortSymbols orders symbols by start line, outer (longer) first.
func sortSymbols(syms []Symbol) {
	sort.SliceStable(syms, func(i, j int) bool {
		if syms[i].StartLine != syms[j].StartLine {
			return syms[i].StartLine < syms[j].StartLine
		}
		return syms[i].EndLine > syms[j].EndLine
	})
}

// nearest returns up to n of names ordered by closeness to sel: names
// whose last part equals or contains the selector's first, then by edit
// distance.
func nearest(sel string, names []string, n int) []string {
	want := strings.ToLower(strings.NewReplacer("::", ".", "#", ".").Replace(strings.TrimSpace(sel)))
	wantLast := want[strings.LastIndex(want, ".")+1:]
	type cand struct {
		name  string
		score int
	}
	cs := make([]cand, 0, len(names))
	for _, name := range names {
		l := strings.ToLower(name)
		last := l[strings.LastIndex(l, ".")+1:]
		score := min(distance(want, l), distance(wantLast, last))
		if wantLast != "" && strings.Contains(last, wantLast) {
			score -= 100
		}
		cs = append(cs, cand{name, score})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].score < cs[j].score })
	out := []string{}
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// distance is the Levenshtein distance of a and b (bytes), capped work for
// long inputs.
func distance(a, b string) int {
	if len(a) > 256 {
		a = a[:256]
	}
	if len(b) > 256 {
		b = b[:256]
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
