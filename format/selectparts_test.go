package format_test

import (
	"errors"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
)

// TestSelectPartsGap asks for a place the numbering skips (slide 2 of a
// deck whose second slide is empty): no part, never an empty text.
func TestSelectPartsGap(t *testing.T) {
	txt := &format.Text{Format: "markdown", Text: "one\nthree\n", Parts: []format.Part{
		{Kind: "slide", Index: 1, Fragment: "slide=1", Start: 0, End: 4},
		{Kind: "slide", Index: 3, Fragment: "slide=3", Start: 4, End: 10},
	}}
	if got, err := format.SelectParts(txt, []format.Range{{From: 2, To: 2}}); !errors.Is(err, format.ErrNoPart) {
		t.Errorf("slide 2: got %+v, %v, want ErrNoPart", got, err)
	}
	got, err := format.SelectParts(txt, []format.Range{{From: 2, To: 3}})
	if err != nil || got.Text != "three\n" {
		t.Errorf("slides 2-3: got %+v, %v, want slide 3's text", got, err)
	}
}
