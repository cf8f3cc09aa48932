package retrieve

import (
	"context"
	"errors"

	"github.com/retrieve-dev/retrieve/internal/sentinel"
)

// Translation maps a sentinel error of a package that cannot import this
// one (extract, policy, extract/code) to a code and a hint.
type Translation struct {
	Sentinel error
	Code     Code
	Hint     string
}

// translations is the one fixed table of the sentinel errors of extract and
// policy (declared in internal/sentinel, which imports nothing, so that the
// contract does not depend on the leaves); nothing adds to it at run time.
// extract/codeparser holds the table of extract/code.
var translations = [...]Translation{
	{context.DeadlineExceeded, CodeTimeout, "the retrieval took too long; retry, or narrow it with --lines or --max-bytes"},
	{context.Canceled, CodeCanceled, "the retrieval was canceled"},
	{sentinel.BadRange, CodeInputValidation, "line ranges look like 1-50, 10-, -20 or 1-5,20-30; lines start at 1"},
	{sentinel.RangeNotFound, CodeRangeNotFound, "ask for lines that exist; the message says how many the document has"},
	{sentinel.SectionNotFound, CodeSectionNotFound, "name a heading by its title or its path (Install > Linux); alternatives lists the headings that exist"},
	{sentinel.Select, CodeSelectFailed, "check the jq expression, for example .key or .items[0].name"},
	{sentinel.Parse, CodeParseFailed, "the document is not valid in that format; retrieve it without --format or --select to see it as text"},
	{sentinel.NotStructured, CodeUnsupportedFormat, "--select takes a jq expression over JSON, YAML, TOML or CSV; use --lines or --section for text"},
	{sentinel.TooLarge, CodeTooLarge, "narrow the request with --lines, --section or --select"},
	{sentinel.JQMemory, CodeTooLarge, "select from the document instead of building large values (string repetition, large indexes, tojson of shared values); see docs/SECURITY.md"},
	{sentinel.JQBusy, CodeRateLimited, "every jq sandbox slot was busy with other selections; retry in a moment (the expression did not run)"},
	{sentinel.Timeout, CodeTimeout, "the jq expression ran past its time limit (5 s); simplify it"},
	{sentinel.OutsideRoot, CodeOutsideRoot, "use a path inside the workspace root, or start retrieve with --root at a directory that contains it"},
	{sentinel.Sensitive, CodeSensitivePath, "this path matches the deny list (DESIGN.md §5, .retrieveignore); it is never read"},
	{sentinel.HardLink, CodeSensitivePath, "a file with several hard links is never read: its other names may be denied or outside the workspace; copy it (cp) to read the copy"},
	{sentinel.NotRegular, CodeNotAFile, "only regular files are read: a FIFO, a socket or a device in the workspace is refused without being opened for reading"},
	{sentinel.FileTooLarge, CodeTooLarge, "the file is larger than this reader takes; see docs/SECURITY.md for the limits"},
	{sentinel.BadName, CodeInvalidPath, "a path cannot hold a NUL byte, a name longer than 255 bytes or more than 4096 bytes in all; check the path"},
}

// Translate returns err as an *Error by the first translation of table
// whose sentinel err wraps (its message, the translation's code and hint,
// the alternatives err offers), or false when none matches.
func Translate(err error, table []Translation) (*Error, bool) {
	for _, t := range table {
		if errors.Is(err, t.Sentinel) {
			e := &Error{Code: t.Code, Message: err.Error(), Hint: t.Hint, Err: err}
			var alt interface{ Alternatives() []string }
			if errors.As(err, &alt) {
				e.Alternatives = alt.Alternatives()
			}
			return e, true
		}
	}
	return nil, false
}

func translate(err error) (*Error, bool) { return Translate(err, translations[:]) }
