package retrieve

// CodeParser finds the symbols of source files: it serves --section on code
// (one span and one anchor per symbol) and Engine.Outline. The engine
// receives it through Options.Code, so that the contract package does not
// depend on the parsers; extract/codeparser adapts extract/code to it and
// cmd/retrieve injects that. Without one, --section on a source file and
// Outline are UNSUPPORTED_FORMAT errors.
type CodeParser interface {
	// Languages lists the formats (names of extract.Detect: go, python…)
	// the parser knows, whether or not this build can parse each.
	Languages() []string
	// Parse returns the outline of src in language lang. A language this
	// build cannot parse is an *Error with code UNSUPPORTED_FORMAT. Syntax
	// errors do not fail it: the outline is a best effort and says so.
	Parse(lang string, src []byte) (*CodeOutline, error)
	// Select returns the symbols of o that the selectors name (kinds such
	// as class, names such as User.save, globs such as Test*), in source
	// order, without symbols inside another selected one. A selector that
	// names nothing is SECTION_NOT_FOUND with the nearest names as
	// alternatives; an ambiguous or malformed one is INPUT_VALIDATION_FAILED.
	Select(o *CodeOutline, selectors []string) ([]CodeSymbol, error)
	// MatchKind reports whether a symbol of the given kind passes the kind
	// selector want (module and namespace select each other).
	MatchKind(want, kind string) bool
}

// CodeOutline is the symbols of one source file.
type CodeOutline struct {
	// Language is the language the file was parsed as.
	Language string
	// Symbols are in source order (by start line, outer before inner).
	Symbols []CodeSymbol
	// SyntaxErrors is set when the parser met errors: spans are then a
	// best effort.
	SyntaxErrors bool
}

// CodeSymbol is one declaration of a source file.
type CodeSymbol struct {
	Name string
	Kind string
	// Parent is the qualified name of the enclosing symbol, empty at the
	// top level.
	Parent string
	// Path is the qualified name (User.save), a --section selector.
	Path string
	// StartLine and EndLine are the 1-based inclusive lines of the symbol,
	// its doc comment and decorators included.
	StartLine int
	EndLine   int
}
