package epub_test

import (
	"testing"

	"github.com/retrieve-dev/retrieve/format/epub"
	"github.com/retrieve-dev/retrieve/format/formattest"
)

// FuzzEPUB runs the EPUB extractor on mutated books: no panic, Text
// invariants, typed errors.
func FuzzEPUB(f *testing.F) {
	formattest.Fuzz(f, epub.New(), book(f))
}
