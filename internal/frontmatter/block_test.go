package frontmatter_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve/internal/frontmatter"
)

// upstreamFiles are the golden files in the upstream formats.
func upstreamFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/*/*.md")
	if err != nil || len(files) < 8 {
		t.Fatalf("golden files: %v, %v", files, err)
	}
	return files
}

// TestRoundTripUpstream: an upstream file read and written back, with
// nothing changed, has the same bytes.
func TestRoundTripUpstream(t *testing.T) {
	for _, f := range upstreamFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if got := roundTrip(t, in); !bytes.Equal(got, in) {
				t.Errorf("round trip changed the bytes:\n got %q\nwant %q", got, in)
			}
		})
	}
}

func roundTrip(t *testing.T, in []byte) []byte {
	t.Helper()
	fm, body, ok := frontmatter.Split(in)
	if !ok {
		t.Fatalf("no front matter in %q", in)
	}
	b, err := frontmatter.Parse(fm)
	if err != nil {
		t.Fatal(err)
	}
	out, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return append(out, in[body:]...)
}

func TestRoundTripCRLF(t *testing.T) {
	in := []byte("---\r\ntitle: \"a: b\"\r\ntags: [x, y]\r\nmeta:\r\n  k: v\r\n---\r\n\r\nbody\r\n")
	if got := roundTrip(t, in); !bytes.Equal(got, in) {
		t.Errorf("got %q, want %q", got, in)
	}
	fm, _, _ := frontmatter.Split(in)
	b, _ := frontmatter.Parse(fm)
	if b.LineEnd() != "\r\n" || frontmatter.New().LineEnd() != "\n" {
		t.Errorf("LineEnd: %q", b.LineEnd())
	}
}

// awkward are values that a hand quoter gets wrong.
var awkward = []string{
	"plain", "a: b", "key:value", `Say "hi"`, "it's", `both ' and "`, `C:\path\n`, "- leading dash", "-x", "--- fence",
	"#hash", "trailing #", "[bracket", "{brace}", "&anchor", "*alias", "!tag", "|pipe", ">gt", "%pct", "@at", "`tick`",
	"true", "no", "null", "~", "42", "0x1F", "1e3", "2026-04-16", "2026-04-16T10:30:00Z", "", " lead", "trail ",
	"Déjà vu — 日本語 🎉", "line one\nline two", "trailing newline\n", "tab\there", "nul\x00byte", "bell\x07", "\u2028sep",
	"a, b", "[a, b]", "...", "---", "🎉", "🎉: x", "\ue000 private \U0001F600", "\U0010FFFF",
}

// TestSetAwkward: every awkward value, as a scalar and in a list, in both
// styles, reads back as itself through YAML.
func TestSetAwkward(t *testing.T) {
	for _, st := range []frontmatter.Style{frontmatter.Plain, frontmatter.Quoted} {
		for _, v := range awkward {
			b := frontmatter.New()
			if err := b.Set("title", v, st, ""); err != nil {
				t.Fatal(err)
			}
			if err := b.Set("tags", []string{v, "x"}, st, "title"); err != nil {
				t.Fatal(err)
			}
			if err := b.Set("meta", map[string]any{"k": v}, st, "tags"); err != nil {
				t.Fatal(err)
			}
			out, err := b.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			fm, body, ok := frontmatter.Split(append(out, "body"...))
			if !ok || string(out[body:]) != "" {
				t.Fatalf("style %d %q: written block does not split: %q", st, v, out)
			}
			r, err := frontmatter.Parse(fm)
			if err != nil {
				t.Fatalf("style %d %q: %v\n%s", st, v, err, out)
			}
			var got struct {
				Title string
				Tags  []string
				Meta  map[string]string
			}
			if err := r.Decode(&got); err != nil {
				t.Fatal(err)
			}
			if got.Title != v || !reflect.DeepEqual(got.Tags, []string{v, "x"}) || got.Meta["k"] != v {
				t.Errorf("style %d %q read back as %+v from\n%s", st, v, got, out)
			}
			if !reflect.DeepEqual(r.Keys(), []string{"title", "tags", "meta"}) {
				t.Errorf("keys %v", r.Keys())
			}
		}
	}
}

func TestSetStyles(t *testing.T) {
	b := frontmatter.New()
	for _, kv := range []struct {
		k     string
		v     any
		st    frontmatter.Style
		after string
	}{
		{"title", "Flask: Jinja2", frontmatter.Quoted, ""},
		{"id", "sem-1", frontmatter.Plain, ""},
		{"tags", []string{}, frontmatter.Quoted, "title"},
		{"meta", map[string]any{}, frontmatter.Quoted, "tags"},
		{"quote", `say "hi"`, frontmatter.Quoted, "meta"},
		{"wiki", "System Crash", frontmatter.Plain, "quote"},
		{"list", []string{"a", "b: c"}, frontmatter.Plain, "wiki"},
		{"nested", map[string]any{"b": 1, "a": []any{"x", true}}, frontmatter.Quoted, "missing"},
	} {
		if err := b.Set(kv.k, kv.v, kv.st, kv.after); err != nil {
			t.Fatal(err)
		}
	}
	out, _ := b.Bytes()
	want := "---\nid: sem-1\ntitle: \"Flask: Jinja2\"\ntags: []\nmeta: {}\nquote: 'say \"hi\"'\nwiki: System Crash\nlist: [a, 'b: c']\nnested:\n  a: [\"x\", true]\n  b: 1\n---\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	b.Delete("quote")
	b.Delete("nope")
	if strings.Join(b.Keys(), ",") != "id,title,tags,meta,wiki,list,nested" || b.Has("quote") || !b.Has("wiki") {
		t.Errorf("keys after delete: %v", b.Keys())
	}
}

// TestSetKeepsWhatDidNotChange: setting the values a block already holds
// writes the same bytes; changing one metadata entry rewrites only it.
func TestSetKeepsWhatDidNotChange(t *testing.T) {
	in := []byte("---\ntitle: 'odd'   # kept\ntags: [\"a\",   b]\nwhen: 2026-04-16\nmeta:\n  z: \"1\"\n  a: yes\n---\n")
	fm, _, _ := frontmatter.Split(in)
	b, err := frontmatter.Parse(fm)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := b.Bytes()
	c := b.Clone()
	_ = c.Set("title", "odd", frontmatter.Quoted, "")
	_ = c.Set("tags", []string{"a", "b"}, frontmatter.Quoted, "")
	_ = c.Set("meta", map[string]any{"z": "1", "a": "yes"}, frontmatter.Quoted, "")
	if after, _ := c.Bytes(); !bytes.Equal(after, before) {
		t.Errorf("unchanged values rewritten:\n%s\nwas\n%s", after, before)
	}
	_ = c.Set("meta", map[string]any{"z": "2", "a": "yes", "new": "n"}, frontmatter.Quoted, "")
	after, _ := c.Bytes()
	if !strings.Contains(string(after), "meta:\n  z: \"2\"\n  a: yes\n  new: \"n\"\n") {
		t.Errorf("merge:\n%s", after)
	}
	if again, _ := b.Bytes(); !bytes.Equal(again, before) {
		t.Errorf("Set on a clone changed the original:\n%s", again)
	}
}

func TestParseErrors(t *testing.T) {
	for name, in := range map[string]string{
		"ErrNotYAML":    "title: [broken\n",
		"ErrList":       "- a\n- b\n",
		"ErrScalar":     "just text\n",
		"ErrDuplicate":  "a: 1\na: 2\n",
		"ErrAliasBomb":  "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n",
		"ErrUnknownRef": "a: *nope\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := frontmatter.Parse([]byte(in)); err == nil {
				t.Errorf("Parse(%q) = nil error", in)
			}
		})
	}
	b, err := frontmatter.Parse([]byte("a: &x {k: v}\nb: *x\n"))
	if err != nil {
		t.Fatal(err)
	}
	_ = b.Set("a", "replaced", frontmatter.Plain, "")
	out, _ := b.Bytes()
	if string(out) != "---\na: replaced\nb: {k: v}\n---\n" {
		t.Errorf("alias not resolved: %q", out)
	}
}

// FuzzRoundTrip: a block that reads is written so that it reads back to
// the same values, and writing that again changes nothing; a value set in
// either style reads back as itself.
func FuzzRoundTrip(f *testing.F) {
	for _, fl := range []string{"testdata/xipe/not-a-list-item.md", "testdata/mcg/deploy-notes.md"} {
		b, err := os.ReadFile(fl)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "title", "a: b", true)
	}
	f.Add([]byte("---\r\na: &x [1]\r\nb: *x\r\n---\r\n"), "b", "\"'\\", false)
	f.Add([]byte("---\n# c\n---\n"), "", "\n", true)
	f.Fuzz(func(t *testing.T, in []byte, key, value string, quoted bool) {
		fm, _, ok := frontmatter.Split(in)
		if !ok {
			return
		}
		b, err := frontmatter.Parse(fm)
		if err != nil {
			return
		}
		var want any
		if err := b.Decode(&want); err != nil {
			return
		}
		out := write(t, b)
		r := read(t, out)
		var got any
		if err := r.Decode(&got); err != nil || !reflect.DeepEqual(normal(got), normal(want)) {
			t.Fatalf("values changed (%v):\n%q\n%q", err, fm, out)
		}
		if again := write(t, r); !bytes.Equal(again, out) {
			t.Fatalf("second write differs:\n%q\n%q", out, again)
		}
		st := frontmatter.Plain
		if quoted {
			st = frontmatter.Quoted
		}
		err = b.Set(key, value, st, "")
		if !utf8.ValidString(key) || !utf8.ValidString(value) {
			if !errors.Is(err, frontmatter.ErrNotText) {
				t.Fatalf("Set(%q, %q) = %v, want ErrNotText", key, value, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := read(t, write(t, b)).Decode(&m); err != nil {
			t.Fatal(err)
		}
		if s, _ := m[key].(string); s != value {
			t.Fatalf("Set(%q, %q) read back as %#v", key, value, m[key])
		}
	})
}

func write(t *testing.T, b *frontmatter.Block) []byte {
	t.Helper()
	out, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func read(t *testing.T, out []byte) *frontmatter.Block {
	t.Helper()
	fm, body, ok := frontmatter.Split(out)
	if !ok || body != len(out) {
		t.Fatalf("written block does not split: %q", out)
	}
	b, err := frontmatter.Parse(fm)
	if err != nil {
		t.Fatalf("written block does not read: %v\n%q", err, out)
	}
	return b
}

// normal makes NaN comparable (NaN != NaN).
func normal(v any) any {
	switch x := v.(type) {
	case float64:
		if x != x {
			return "NaN"
		}
	case map[string]any:
		for k, e := range x {
			x[k] = normal(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normal(e)
		}
	}
	return v
}
