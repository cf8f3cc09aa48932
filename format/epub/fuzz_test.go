package epub_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/epub"
	"github.com/retrieve-dev/retrieve/format/internal/doctest"
)

// FuzzEPUB runs the EPUB extractor on mutated books: no panic, Text
// invariants, typed errors.
func FuzzEPUB(f *testing.F) {
	f.Add(book(f))
	f.Fuzz(func(t *testing.T, b []byte) {
		txt, err := epub.New().Extract(context.Background(), bytes.NewReader(b), int64(len(b)), format.Options{Limits: doctest.FuzzLimits})
		if err != nil {
			doctest.Typed(t, err)
			return
		}
		doctest.Check(t, txt)
	})
}
