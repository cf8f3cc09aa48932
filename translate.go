package retrieve

import (
	"context"
	"errors"

	"github.com/retrieve-dev/retrieve/extract"
	"github.com/retrieve-dev/retrieve/extract/code"
	"github.com/retrieve-dev/retrieve/policy"
)

// translation maps a sentinel error of a leaf package (extract, policy) to a
// code and a hint. Leaf packages cannot import this package, so this table
// is where their errors get their codes.
type translation struct {
	sentinel error
	code     Code
	hint     string
}

// translations is the one fixed table; nothing adds to it at run time.
var translations = [...]translation{
	{context.DeadlineExceeded, CodeTimeout, "the retrieval took too long; retry, or narrow it with --lines or --max-bytes"},
	{context.Canceled, CodeCanceled, "the retrieval was canceled"},
	{extract.ErrBadRange, CodeInputValidation, "line ranges look like 1-50, 10-, -20 or 1-5,20-30; lines start at 1"},
	{extract.ErrRangeNotFound, CodeRangeNotFound, "ask for lines that exist; the message says how many the document has"},
	{extract.ErrSectionNotFound, CodeSectionNotFound, "name a heading by its title or its path (Install > Linux); alternatives lists the headings that exist"},
	{extract.ErrSelect, CodeSelectFailed, "check the jq expression, for example .key or .items[0].name"},
	{extract.ErrParse, CodeParseFailed, "the document is not valid in that format; retrieve it without --format or --select to see it as text"},
	{extract.ErrNotStructured, CodeUnsupportedFormat, "--select takes a jq expression over JSON, YAML, TOML or CSV; use --lines or --section for text"},
	{extract.ErrTooLarge, CodeTooLarge, "narrow the request with --lines, --section or --select"},
	{extract.ErrJQMemory, CodeTooLarge, "select from the document instead of building large values (string repetition, large indexes, tojson of shared values); see docs/SECURITY.md"},
	{extract.ErrTimeout, CodeTimeout, "the jq expression ran past its time limit (5 s); simplify it"},
	{policy.ErrOutsideRoot, CodeOutsideRoot, "use a path inside the workspace root, or start retrieve with --root at a directory that contains it"},
	{policy.ErrSensitive, CodeSensitivePath, "this path matches the deny list (DESIGN.md §5, .retrieveignore); it is never read"},
	{code.ErrSymbolNotFound, CodeSectionNotFound, "name a symbol by name (save), qualified name (User.save), glob (Test*) or kind (class, function, method…); alternatives lists the nearest names, and `retrieve outline FILE` lists them all"},
	{code.ErrAmbiguous, CodeInputValidation, "qualify the name (User.save), or use a glob (*.save) to take every match; alternatives lists the candidates"},
	{code.ErrBadSelector, CodeInputValidation, "a symbol selector is a kind (class, interface, struct, enum, type, function, method, const, var, module, namespace) or a name such as User.save or Test*"},
}

func translate(err error) (*Error, bool) {
	for _, t := range translations {
		if errors.Is(err, t.sentinel) {
			e := &Error{Code: t.code, Message: err.Error(), Hint: t.hint, Err: err}
			var alt interface{ Alternatives() []string }
			if errors.As(err, &alt) {
				e.Alternatives = alt.Alternatives()
			}
			return e, true
		}
	}
	return nil, false
}
