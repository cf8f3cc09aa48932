package odf_test

import (
	"testing"

	"github.com/retrieve-dev/retrieve/format/formattest"
	"github.com/retrieve-dev/retrieve/format/odf"
)

// FuzzODF runs the OpenDocument reader (one for ODT, ODS and ODP) on
// mutated packages: no panic, Text invariants, typed errors.
func FuzzODF(f *testing.F) {
	formattest.Fuzz(f, odf.ODT(),
		pkg(f, mtODT, odtBody),
		pkg(f, mtODS, odsBody),
		pkg(f, "application/vnd.oasis.opendocument.presentation", `<office:presentation><draw:page><draw:frame presentation:class="title"><draw:text-box><text:p>T</text:p></draw:text-box></draw:frame><presentation:notes><draw:frame><draw:text-box><text:p>n</text:p></draw:text-box></draw:frame></presentation:notes></draw:page></office:presentation>`))
}
