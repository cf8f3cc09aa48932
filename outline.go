package retrieve

// OutlineSymbol is one symbol of an outline.
type OutlineSymbol struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Parent string `json:"parent"`
	// Path is the qualified name (User.save), a --section selector.
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	// Anchor is the citation of the symbol's lines: path:START-END.
	Anchor string `json:"anchor"`
}

// FileOutline is the outline of one source file.
type FileOutline struct {
	Target     string          `json:"target"`
	Language   string          `json:"language"`
	Version    *string         `json:"version"`
	SourceHash string          `json:"source_hash"`
	Symbols    []OutlineSymbol `json:"symbols"`
	// SyntaxErrors is set when the parser met errors: spans are then a best
	// effort.
	SyntaxErrors bool `json:"syntax_errors"`
}
