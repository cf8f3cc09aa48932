package frontmatter_test

import (
	"testing"

	"github.com/retrieve-dev/retrieve/internal/frontmatter"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		name, in, fm, body string
		ok                 bool
	}{
		{"OK", "---\ntitle: x\n---\nbody\n", "title: x\n", "body\n", true},
		{"CRLF", "---\r\ntitle: x\r\n---\r\nbody\r\n", "title: x\r\n", "body\r\n", true},
		{"Dots", "---\ntitle: x\n...\nbody", "title: x\n", "body", true},
		{"BOM", "\xef\xbb\xbf---\ntitle: x\n---\n", "title: x\n", "", true},
		{"ClosingAtEnd", "---\ntitle: x\n---", "title: x\n", "", true},
		{"TrailingSpace", "---\na: 1\n---  \t\nb", "a: 1\n", "b", true},
		{"Empty", "---\n---\nb", "", "b", true},
		{"ErrNoClose", "---\ntitle: x\nbody\n", "", "---\ntitle: x\nbody\n", false},
		{"ErrNoOpen", "title: x\n---\n", "", "title: x\n---\n", false},
		{"ErrDashesInText", "----\nx\n---\n", "", "----\nx\n---\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fm, body, ok := frontmatter.SplitString(tc.in)
			if ok != tc.ok || fm != tc.fm || body != tc.body {
				t.Errorf("SplitString(%q) = %q, %q, %v; want %q, %q, %v", tc.in, fm, body, ok, tc.fm, tc.body, tc.ok)
			}
		})
	}
}

func TestTitle(t *testing.T) {
	for in, want := range map[string]string{
		"title: Plain\n":                      "Plain",
		"title: \"Quoted: with colon\"\n":     "Quoted: with colon",
		"tags: [a]\ntitle: 'single'\n":        "single",
		"title: 2024-01-02\n":                 "2024-01-02",
		"title: 42\n":                         "42",
		"title: [broken\ntitle2: x\n":         "[broken",
		"summary: no title\n":                 "",
		"title: \"Déjà vu\"\nother: {a: 1}\n": "Déjà vu",
	} {
		if got := frontmatter.Title(in); got != want {
			t.Errorf("Title(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"---\na: 1\n---\nb", "---\r\n...\r\n", "\xef\xbb\xbf---\n---", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fm, body, ok := frontmatter.Split([]byte(s))
		if !ok {
			if body != 0 || fm != nil {
				t.Fatalf("not ok but fm %q body %d", fm, body)
			}
			return
		}
		if body < len(fm) || body > len(s) {
			t.Fatalf("body offset %d outside [%d, %d]", body, len(fm), len(s))
		}
	})
}
