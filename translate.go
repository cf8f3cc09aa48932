package retrieve

import (
	"context"
	"errors"
)

// translation maps a sentinel error of a leaf package (extract, policy) to a
// code and a hint. Leaf packages cannot import this package, so this table
// is where their errors get their codes.
type translation struct {
	sentinel error
	code     Code
	hint     string
}

var translations = []translation{
	{context.DeadlineExceeded, CodeTimeout, "the retrieval took too long; retry, or narrow it with --lines or --max-bytes"},
	{context.Canceled, CodeCanceled, "the retrieval was canceled"},
}

// registerTranslations adds leaf-package translations; called from init
// functions in this package only.
func registerTranslations(ts ...translation) { translations = append(translations, ts...) }

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
