// Package codeparser adapts extract/code to retrieve.CodeParser: it turns
// code's outlines into the contract's and its errors into *retrieve.Error
// with codes and hints. cmd/retrieve injects it into the engine
// (engine.Options.Code); a library user who wants code symbols does the
// same. It is the only package that joins extract/code to the contract, so
// that importing the contract does not pull in the parsers.
package codeparser

import (
	"errors"

	"github.com/retrieve-dev/retrieve"

	"github.com/retrieve-dev/retrieve/extract/code"
)

// Parser is extract/code as a retrieve.CodeParser.
type Parser struct{}

var _ retrieve.CodeParser = Parser{}

// New returns the parser.
func New() retrieve.CodeParser { return Parser{} }

// Version is code.Version: the engine caches outlines under it in a
// store that keeps them (store.OutlineCache).
func (Parser) Version() string { return code.Version }

// Languages implements retrieve.CodeParser.
func (Parser) Languages() []string { return code.Languages() }

// Parse implements retrieve.CodeParser.
func (Parser) Parse(lang string, src []byte) (*retrieve.CodeOutline, error) {
	o, err := code.Parse(lang, src)
	if err != nil {
		return nil, translate(err)
	}
	out := &retrieve.CodeOutline{Language: o.Language, SyntaxErrors: o.SyntaxErrors, Symbols: make([]retrieve.CodeSymbol, len(o.Symbols))}
	for i, s := range o.Symbols {
		out.Symbols[i] = retrieve.CodeSymbol{Name: s.Name, Kind: s.Kind, Parent: s.Parent, Path: s.Path(), StartLine: s.StartLine, EndLine: s.EndLine}
	}
	return out, nil
}

// Select implements retrieve.CodeParser.
func (Parser) Select(o *retrieve.CodeOutline, selectors []string) ([]retrieve.CodeSymbol, error) {
	co := &code.Outline{Language: o.Language, SyntaxErrors: o.SyntaxErrors, Symbols: make([]code.Symbol, len(o.Symbols))}
	for i, s := range o.Symbols {
		co.Symbols[i] = code.Symbol{Name: s.Name, Kind: s.Kind, Parent: s.Parent, StartLine: s.StartLine, EndLine: s.EndLine}
	}
	syms, err := co.Select(selectors)
	if err != nil {
		return nil, translate(err)
	}
	out := make([]retrieve.CodeSymbol, len(syms))
	for i, s := range syms {
		out[i] = retrieve.CodeSymbol{Name: s.Name, Kind: s.Kind, Parent: s.Parent, Path: s.Path(), StartLine: s.StartLine, EndLine: s.EndLine}
	}
	return out, nil
}

// MatchKind implements retrieve.CodeParser.
func (Parser) MatchKind(want, kind string) bool {
	return code.Selector{Kind: want}.Match(code.Symbol{Kind: kind})
}

// translations give extract/code's sentinel errors their codes and hints.
var translations = []retrieve.Translation{
	{Sentinel: code.ErrSymbolNotFound, Code: retrieve.CodeSectionNotFound, Hint: "name a symbol by name (save), qualified name (User.save), glob (Test*) or kind (class, function, method…); alternatives lists the nearest names, and `retrieve outline FILE` lists them all"},
	{Sentinel: code.ErrAmbiguous, Code: retrieve.CodeInputValidation, Hint: "qualify the name (User.save), or use a glob (*.save) to take every match; alternatives lists the candidates"},
	{Sentinel: code.ErrBadSelector, Code: retrieve.CodeInputValidation, Hint: "a symbol selector is a kind (class, interface, struct, enum, type, function, method, const, var, module, namespace) or a name such as User.save or Test*"},
}

func translate(err error) error {
	var ue *code.UnsupportedError
	if errors.As(err, &ue) {
		return retrieve.Errorf(retrieve.CodeUnsupportedFormat, "%s", ue.Error()).WithHint("%s", ue.Hint()).WithErr(err)
	}
	if e, ok := retrieve.Translate(err, translations); ok {
		return e
	}
	return err
}
