package extract_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/extract"
)

func TestSelectPath(t *testing.T) {
	for expr, want := range map[string]string{
		".[1000]":          "[1000]",
		".a.b":             "[a b]",
		`.["k"][2].name`:   "[k 2 name]",
		`."quoted key"[0]`: "[quoted key 0]",
	} {
		path, ok := extract.SelectPath(expr)
		if !ok || fmt.Sprint(path) != want {
			t.Errorf("SelectPath(%q) = %v, %v; want %s", expr, path, ok, want)
		}
	}
	for _, expr := range []string{".", ".[-1]", ".[1:3]", ".[]", ".a?", ".a | .b", "map(.a)", ".[.x]", `.["a\(1)"]`, ".a, .b", "def f: .; f", ".[1e3]", "length"} {
		if path, ok := extract.SelectPath(expr); ok {
			t.Errorf("SelectPath(%q) = %v: not a plain path", expr, path)
		}
	}
}

// same checks that SelectStream gives what parsing the whole document and
// running Select gives: the same value (as canonical JSON), or an error of
// the same kind.
func same(t *testing.T, doc, format, expr string) {
	t.Helper()
	path, ok := extract.SelectPath(expr)
	if !ok {
		return
	}
	v, err := extract.Parse([]byte(doc), format)
	if err != nil {
		return // the stream may stop before the damage; nothing to compare
	}
	want, werr := extract.Select(context.Background(), v, expr)
	got, gerr := extract.SelectStream(strings.NewReader(doc), format, path, expr)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("%s %q on %.80q: Select err %v, SelectStream err %v", format, expr, doc, werr, gerr)
	}
	if werr != nil {
		if errors.Is(werr, extract.ErrSelect) != errors.Is(gerr, extract.ErrSelect) {
			t.Fatalf("%s %q: Select err %v, SelectStream err %v: not the same kind", format, expr, werr, gerr)
		}
		return
	}
	wb, _ := retrieve.CanonicalJSON(want)
	gb, _ := retrieve.CanonicalJSON(got)
	if string(wb) != string(gb) {
		t.Fatalf("%s %q on %.80q: SelectStream %s, Select %s", format, expr, doc, gb, wb)
	}
}

func TestSelectStreamMatchesSelect(t *testing.T) {
	docs := map[string][]string{
		"json": {
			`[{"a":1,"b":[1,2,{"c":"x"}]},{"a":2},null,"s",3.5,true]`,
			`{"a":{"b":[10,20]},"a":{"b":[30]},"k":null,"n":12345678901234567890}`,
			`{"quoted key":[{"name":"é"}]}`,
			`[]`, `{}`, `null`, `"str"`, `42`,
		},
		"jsonl": {"{\"n\":1}\n\n{\"n\":2,\"m\":[1]}\n[3]\n", ""},
		"csv":   {"\ufeffid,name\n1,a\n2\n3,c,extra\n", "id\n", ""},
	}
	exprs := []string{".[0]", ".[1]", ".[2]", ".[5]", ".[100]", ".a", ".a.b", ".a.b[0]", ".[0].a", ".[0].b[2].c", ".[1].m[0]", ".[0].b.c",
		".k", ".k.x", ".n", `."quoted key"[0].name`, ".[0].id", ".[1].name", ".[2].name", ".[0].missing", ".[1].n"}
	for format, ds := range docs {
		for _, d := range ds {
			for _, e := range exprs {
				same(t, d, format, e)
			}
		}
	}
}

// TestSelectStreamStopsAtTheValue: a selection near the start of a long
// array reads only as far as it needs, not the rest (here: invalid).
func TestSelectStreamStopsAtTheValue(t *testing.T) {
	doc := `[{"id":0},{"id":1},` + strings.Repeat(`{"id":9},`, 1000) + `not json at all`
	path, _ := extract.SelectPath(".[1].id")
	v, err := extract.SelectStream(strings.NewReader(doc), "json", path, ".[1].id")
	if err != nil || fmt.Sprint(v) != "1" {
		t.Fatalf("got %v, %v; want 1", v, err)
	}
	if _, err := extract.SelectStream(strings.NewReader(`[1,2`), "json", path, ".[1].id"); !errors.Is(err, extract.ErrSelect) {
		t.Errorf("indexing a number: %v, want ErrSelect", err)
	}
	if _, err := extract.SelectStream(strings.NewReader(`[{"id":0},{"id"`), "json", path, ".[1].id"); !errors.Is(err, extract.ErrParse) {
		t.Errorf("cut JSON: %v, want ErrParse", err)
	}
}

func FuzzSelectStream(f *testing.F) {
	f.Add(`[{"a":1,"b":[1,2,{"c":"x"}]},{"a":2},null]`, "json", ".[0].b[2].c")
	f.Add(`{"a":{"b":[10,20]},"a":{"b":[30]}}`, "json", ".a.b[0]")
	f.Add("{\"n\":1}\n{\"n\":2}\n", "jsonl", ".[1].n")
	f.Add("id,name\n1,a\n2,b\n", "csv", ".[1].name")
	f.Fuzz(func(t *testing.T, doc, format, expr string) {
		switch format {
		case "json", "jsonl", "csv":
		default:
			return
		}
		same(t, doc, format, expr)
	})
}
