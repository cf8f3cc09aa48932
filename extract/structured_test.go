package extract_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/retrieve-dev/retrieve/extract"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, format, data string
		want               any
	}{
		{"OK/json", "json", `{"a":[1,2.5,"x",true,null],"big":12345678901234567}`,
			map[string]any{"a": []any{1, 2.5, "x", true, nil}, "big": 12345678901234567}},
		{"OK/json float beyond int", "json", `[123456789012345678901234]`, []any{1.2345678901234568e23}},
		{"OK/json bom", "json", "\xef\xbb\xbf[1]", []any{1}},
		{"OK/yaml", "yaml", "when: 2025-01-02\nn: 3\nf: 1.5\non: yes\n1: one\ntrue: t\n~: n\n", map[string]any{
			"when": "2025-01-02T00:00:00Z", "n": 3, "f": 1.5, "on": "yes", "1": "one", "true": "t", "null": "n"}},
		{"OK/yaml anchors", "yaml", "base: &b {x: 1}\nother:\n  <<: *b\n  y: 2\n", map[string]any{
			"base": map[string]any{"x": 1}, "other": map[string]any{"x": 1, "y": 2}}},
		{"OK/yaml empty", "yaml", "", nil},
		{"OK/yaml one document with marker", "yaml", "---\na: 1\n", map[string]any{"a": 1}},
		{"OK/toml", "toml", "n = 1\n[owner]\nname = \"Tom\"\ndob = 1979-05-27T07:32:00Z\nday = 1979-05-27\n[[p]]\nx = 1.5\n", map[string]any{
			"n": 1, "owner": map[string]any{"name": "Tom", "dob": "1979-05-27T07:32:00Z", "day": "1979-05-27"},
			"p": []any{map[string]any{"x": 1.5}}}},
		{"OK/csv", "csv", "name,age\nann,3\nbob\n", []any{
			map[string]any{"name": "ann", "age": "3"}, map[string]any{"name": "bob", "age": nil}}},
		{"OK/csv header only", "csv", "a,b\n", []any{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := extract.Parse([]byte(tt.data), tt.format)
			if err != nil {
				t.Fatalf("Parse(%q, %s) error: %v", tt.data, tt.format, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q, %s) (-want +got):\n%s", tt.data, tt.format, diff)
			}
		})
	}
	bad := []struct {
		name, format, data, msg string
	}{
		{"ErrParse/json truncated", "json", "{\"a\":\n", "line 2"},
		{"ErrParse/json syntax", "json", "{\n\"a\": 1,\n}", "line 3 column 1"},
		{"ErrParse/json two values", "json", `{} {}`, "after the first value"},
		{"ErrParse/json empty", "json", "  ", "empty"},
		{"ErrParse/yaml", "yaml", "a: [1\n", "line"},
		{"ErrParse/yaml two documents", "yaml", "a: 1\n---\nb: 2\n", "several documents"},
		{"ErrParse/yaml bad second document", "yaml", "a: 1\n---\nb: [\n", "YAML"},
		{"ErrParse/toml", "toml", "a = 1\nb = \n", "line 2"},
		{"ErrParse/toml duplicate", "toml", "a = 1\na = 2\n", "TOML"},
		{"ErrParse/csv", "csv", "a,\"b\n", "line"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := extract.Parse([]byte(tt.data), tt.format)
			if !errors.Is(err, extract.ErrParse) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("Parse(%q, %s) error = %v, want ErrParse mentioning %q", tt.data, tt.format, err, tt.msg)
			}
		})
	}
	t.Run("ErrNotStructured", func(t *testing.T) {
		if _, err := extract.Parse([]byte("x"), "markdown"); !errors.Is(err, extract.ErrNotStructured) {
			t.Fatalf("got error %v, want ErrNotStructured", err)
		}
	})
}

func TestIsStructured(t *testing.T) {
	for format, want := range map[string]bool{"json": true, "yaml": true, "toml": true, "csv": true, "markdown": false, "text": false, "go": false, "": false} {
		if got := extract.IsStructured(format); got != want {
			t.Errorf("IsStructured(%q) = %v, want %v", format, got, want)
		}
	}
}

func TestSelect(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		format, data, expr string
		want               any
	}{
		{"json", `{"a":{"b":[1,2,3]},"big":12345678901234567}`, ".big", 12345678901234567},
		{"json", `{"a":{"b":[1,2,3]}}`, ".a.b[1]", 2},
		{"json", `{"a":{"b":[1,2,3]}}`, ".a.b | map(. * 2)", []any{2, 4, 6}},
		{"json", `{"a":1}`, ".missing", nil},
		{"json", `{"a":1}`, "empty", nil},
		{"json", `{"a":1}`, "$ENV | length", 0},
		{"yaml", "when: 2025-01-02\n", ".when", "2025-01-02T00:00:00Z"},
		{"yaml", "a: [x, y]\n", ".a[]", []any{"x", "y"}},
		{"toml", "[owner]\nname = \"Tom\"\n", ".owner.name", "Tom"},
		{"csv", "name,age\nann,3\nbob,4\n", ".[1].name", "bob"},
		{"csv", "name,age\nann,3\nbob,4\n", "[.[] | select(.age == \"3\") | .name]", []any{"ann"}},
	}
	for _, tt := range tests {
		t.Run("OK/"+tt.format+" "+tt.expr, func(t *testing.T) {
			v, err := extract.Parse([]byte(tt.data), tt.format)
			if err != nil {
				t.Fatal(err)
			}
			got, err := extract.Select(ctx, v, tt.expr)
			if err != nil {
				t.Fatalf("Select(%q) error: %v", tt.expr, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Select(%q) (-want +got):\n%s", tt.expr, diff)
			}
		})
	}
	for _, expr := range []string{".[", `error("boom")`, "undefined_fn", ".a.b", "input", `import "x" as x; .`} {
		t.Run("ErrSelect/"+expr, func(t *testing.T) {
			if _, err := extract.Select(ctx, map[string]any{"a": "s"}, expr); !errors.Is(err, extract.ErrSelect) {
				t.Errorf("Select(%q) error = %v, want ErrSelect", expr, err)
			}
		})
	}
	t.Run("ErrTimeout/infinite loop", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		if _, err := extract.Select(ctx, nil, "def f: f; f"); !errors.Is(err, extract.ErrTimeout) {
			t.Errorf("got error %v, want ErrTimeout", err)
		}
	})
	t.Run("ErrTooLarge", func(t *testing.T) {
		if _, err := extract.Select(ctx, nil, "range(2000000)"); !errors.Is(err, extract.ErrTooLarge) {
			t.Errorf("got error %v, want ErrTooLarge", err)
		}
	})
}

func TestParseJSONLines(t *testing.T) {
	v, err := extract.Parse([]byte("{\"a\":1}\n\n[2,3]\n\"x\""), "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	if want := `[{"a":1},[2,3],"x"]`; string(b) != want {
		t.Fatalf("got %s, want %s", b, want)
	}
	_, err = extract.Parse([]byte("{}\n{\"a\":\n"), "jsonl")
	if !errors.Is(err, extract.ErrParse) || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("got %v, want ErrParse naming line 2", err)
	}
	_, err = extract.Parse([]byte("1 2\n"), "jsonl")
	if !errors.Is(err, extract.ErrParse) {
		t.Fatalf("two values on a line: got %v, want ErrParse", err)
	}
}

// FuzzParseJSONLines: JSON Lines never panics, and what parses is an array
// with one element per non-blank line.
func FuzzParseJSONLines(f *testing.F) {
	for _, s := range []string{"{}\n[1]\n", "\n\n", "1 2\n", "{\"a\":\n", "\"x\"\r\n3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := extract.Parse([]byte(s), "jsonl")
		if err != nil {
			if !errors.Is(err, extract.ErrParse) {
				t.Fatalf("error %v is not ErrParse", err)
			}
			return
		}
		n := 0
		for _, l := range strings.Split(s, "\n") {
			if strings.TrimSpace(l) != "" {
				n++
			}
		}
		if arr, ok := v.([]any); !ok || len(arr) != n {
			t.Fatalf("%q gave %v, want %d records", s, v, n)
		}
	})
}
