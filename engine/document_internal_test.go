package engine

import (
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/format"
)

func TestSplitReferenceFragment(t *testing.T) {
	for _, c := range []struct {
		target, wantTarget string
		want               retrieve.Constraints
	}{
		{"report.pdf#page=3", "report.pdf", retrieve.Constraints{Pages: "page=3"}},
		{"report.pdf#page=3-4,7", "report.pdf", retrieve.Constraints{Pages: "page=3-4,7"}},
		{"report.pdf#page=3&box=72,540.5,300,552", "report.pdf", retrieve.Constraints{Pages: "page=3"}},
		{"book.xlsx#Sheet1!B2:C40", "book.xlsx", retrieve.Constraints{Select: "Sheet1!B2:C40"}},
		{"git:abc123:deck.pptx#slide=2", "git:abc123:deck.pptx", retrieve.Constraints{Pages: "slide=2"}},
		{"https://h.test/r.pdf#page=2", "https://h.test/r.pdf", retrieve.Constraints{Pages: "page=2"}},
		{"a.txt#bytes=0-99", "a.txt", retrieve.Constraints{Bytes: "0-99"}},
		{"notes#draft.md", "notes#draft.md", retrieve.Constraints{}},
		{"https://h.test/p#:~:text=a,b", "https://h.test/p#:~:text=a,b", retrieve.Constraints{}},
		{"memory:core/x.md#page=1", "memory:core/x.md#page=1", retrieve.Constraints{}},
		{"a.pdf#page=x", "a.pdf#page=x", retrieve.Constraints{}},
	} {
		t.Run(c.target, func(t *testing.T) {
			req := retrieve.Request{Target: c.target}
			if err := splitReferenceFragment(&req); err != nil {
				t.Fatal(err)
			}
			if req.Target != c.wantTarget || req.Constraints.Pages != c.want.Pages || req.Constraints.Select != c.want.Select || req.Constraints.Bytes != c.want.Bytes {
				t.Fatalf("got %q %+v, want %q %+v", req.Target, req.Constraints, c.wantTarget, c.want)
			}
		})
	}
}

// FuzzSplitReferenceFragment: a fragment split off is one the constraints
// read (pages parse), and the target keeps everything before it.
func FuzzSplitReferenceFragment(f *testing.F) {
	for _, s := range []string{"report.pdf#page=3", "a#b#page=1-", "x.xlsx#S!A1", "git:r:p#cell=1,2&box=1,2,3,4", "#page=1", "a.txt#bytes=5-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, target string) {
		req := retrieve.Request{Target: target}
		if err := splitReferenceFragment(&req); err != nil {
			t.Fatalf("a request without constraints cannot conflict: %v", err)
		}
		if req.Constraints.Pages != "" {
			if _, _, err := parsePages(req.Constraints.Pages); err != nil && !strings.Contains(err.Error(), "range") {
				t.Fatalf("pages %q from %q: %v", req.Constraints.Pages, target, err)
			}
		}
		if req.Target != target && !strings.Contains(target, "#") {
			t.Fatalf("%q changed to %q without a fragment", target, req.Target)
		}
	})
}

func TestPartKey(t *testing.T) {
	for _, c := range []struct {
		p    format.Part
		want string
	}{
		{format.Part{Kind: "paragraph", Fragment: "para=12"}, "para"},
		{format.Part{Kind: "page", Fragment: "page=3"}, "page"},
		{format.Part{Kind: "sheet", Fragment: "Sheet1!A1:D20"}, "sheet"},
		{format.Part{Kind: "chapter", Fragment: "chapter=intro"}, "chapter"},
	} {
		if got := partKey(c.p); got != c.want {
			t.Errorf("partKey(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
}
