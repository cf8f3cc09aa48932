package engine

import (
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/extract"
)

// isCode reports whether format is a language of the engine's code parser,
// or, without one, a programming language extract.Detect names.
func (e *Engine) isCode(format string) bool {
	if e.code == nil {
		return extract.IsCode(format)
	}
	for _, l := range e.code.Languages() {
		if l == format {
			return true
		}
	}
	return false
}

// codeLanguages lists the languages for hints.
func (e *Engine) codeLanguages() string {
	if e.code == nil {
		return "none in this engine (it has no code parser)"
	}
	return strings.Join(e.code.Languages(), ", ")
}

// parseCode parses src with the engine's code parser.
func (e *Engine) parseCode(lang string, src []byte) (*retrieve.CodeOutline, error) {
	if e.code == nil {
		return nil, retrieve.Errorf(retrieve.CodeUnsupportedFormat, "%s symbols need a code parser, and this engine has none", lang).
			WithHint("use --lines for this file; the retrieve command has one, a library engine gets one through Options.Code (extract/codeparser)")
	}
	return e.code.Parse(lang, src)
}
