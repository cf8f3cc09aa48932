package odf_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
	"github.com/retrieve-dev/retrieve/format/internal/doctest"
	"github.com/retrieve-dev/retrieve/format/odf"
)

// FuzzODF runs the OpenDocument reader (one for ODT, ODS and ODP) on
// mutated packages: no panic, Text invariants, typed errors.
func FuzzODF(f *testing.F) {
	f.Add(pkg(f, "application/vnd.oasis.opendocument.text", odtBody))
	f.Add(pkg(f, "application/vnd.oasis.opendocument.spreadsheet", odsBody))
	f.Add(pkg(f, "application/vnd.oasis.opendocument.presentation", `<office:presentation><draw:page><draw:frame presentation:class="title"><draw:text-box><text:p>T</text:p></draw:text-box></draw:frame><presentation:notes><draw:frame><draw:text-box><text:p>n</text:p></draw:text-box></draw:frame></presentation:notes></draw:page></office:presentation>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		txt, err := odf.ODT().Extract(context.Background(), bytes.NewReader(b), int64(len(b)), format.Options{Limits: doctest.FuzzLimits})
		if err != nil {
			doctest.Typed(t, err)
			return
		}
		doctest.Check(t, txt)
	})
}
