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
		{"a.txt#bytes=0-3,9-13", "a.txt", retrieve.Constraints{Bytes: "0-3,9-13"}},
		{"config.json#select=.a%5B%5D.name", "config.json", retrieve.Constraints{Select: ".a[].name"}},
		{"data.jsonl#select=.%5B0%5D.n:2-2", "data.jsonl:2-2", retrieve.Constraints{Select: ".[0].n"}},
		{"git:abc:c.json#select=.a%20%7C%20keys", "git:abc:c.json", retrieve.Constraints{Select: ".a | keys"}},
		{"https://h.test/api#select=.items", "https://h.test/api", retrieve.Constraints{Select: ".items"}},
		// A jq expression that looks like a part count is a selection.
		{"c.json#select=1", "c.json", retrieve.Constraints{Select: "1"}},
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
	f.Add("c.json#select=.a%5B%5D")
	f.Add("c.json#select=%zz")
	f.Fuzz(func(t *testing.T, target string) {
		req := retrieve.Request{Target: target}
		if err := splitReferenceFragment(&req); err != nil {
			// Only a select fragment that is not percent-encoding is refused:
			// a request without constraints cannot conflict.
			if retrieve.AsError(err).Code != retrieve.CodeInputValidation || !strings.Contains(target, "#select=") {
				t.Fatalf("%q: %v", target, err)
			}
			return
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

func TestSplitReferenceFragmentBadSelect(t *testing.T) {
	req := retrieve.Request{Target: "c.json#select=%zz"}
	err := splitReferenceFragment(&req)
	if got := retrieve.AsError(err); err == nil || got.Code != retrieve.CodeInputValidation || got.Hint == "" {
		t.Fatalf("got %v, want INPUT_VALIDATION_FAILED with a hint", err)
	}
}

// FuzzEscapeSelect: any jq expression, escaped into a reference's select
// fragment, comes back whole, with the path untouched, on a file, a git
// path and a URL.
func FuzzEscapeSelect(f *testing.F) {
	for _, s := range []string{".a", ".[1:3]", `.a | select(.b == "x#y")`, "1", "%41", ".a:1-2", "."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, jq string) {
		if jq == "" {
			return
		}
		for _, base := range []string{"c.json", "git:abc:d/c.json", "https://h.test/api"} {
			req := retrieve.Request{Target: base + "#select=" + escapeSelect(jq)}
			if err := splitReferenceFragment(&req); err != nil {
				t.Fatalf("%q: %v", req.Target, err)
			}
			if req.Target != base || req.Constraints.Select != jq {
				t.Fatalf("%q: got target %q select %q, want %q %q", jq, req.Target, req.Constraints.Select, base, jq)
			}
		}
	})
}
