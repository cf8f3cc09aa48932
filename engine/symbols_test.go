package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/source/file"
)

func codeFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "extract", "code", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lines returns lines start..end (1-based, inclusive) of s, newlines kept.
func lines(s string, start, end int) string {
	ls := strings.SplitAfter(s, "\n")
	return strings.Join(ls[start-1:end], "")
}

func TestSymbolSections(t *testing.T) {
	testws.NeedsCgo(t, "TypeScript")
	ws := testws.New(t)
	userTS := codeFixture(t, "user.ts")
	sampleGo := codeFixture(t, "sample.go")
	ws.Write("src/models/user.ts", userTS)
	ws.Write("pkg/sample.go", sampleGo)
	e := newEngine(t, ws.Root)

	t.Run("SeedExample3", func(t *testing.T) {
		req := retrieve.Request{Target: "src/models/user.ts", Source: "file"}
		req.Constraints.Lines = "1-50"
		req.Constraints.Sections = []string{"interface", "class"}
		res := mustGet(t, e, req)
		want := []string{"src/models/user.ts:1-20", "src/models/user.ts:22-35"}
		if diff := cmp.Diff(want, res.EvidenceAnchors); diff != "" {
			t.Fatalf("anchors (-want +got):\n%s", diff)
		}
		if res.Citation.Reference != "src/models/user.ts:1-20,22-35" {
			t.Errorf("reference = %q", res.Citation.Reference)
		}
		if got, want := res.Retrieved.Data, lines(userTS, 1, 20)+lines(userTS, 22, 35); got != want {
			t.Errorf("data = %q, want %q", got, want)
		}
		if res.Retrieved.Complete {
			t.Error("complete = true for a part of the file")
		}
		// The reference re-retrieves the same bytes.
		again := mustGet(t, e, retrieve.Request{Target: res.Citation.Reference})
		if again.Retrieved.Data != res.Retrieved.Data || *again.Citation.Hash != *res.Citation.Hash {
			t.Errorf("re-retrieving %s gave other bytes", res.Citation.Reference)
		}
	})

	t.Run("GoMethod", func(t *testing.T) {
		req := retrieve.Request{Target: "pkg/sample.go"}
		req.Constraints.Sections = []string{"Store.Put"}
		res := mustGet(t, e, req)
		if diff := cmp.Diff([]string{"pkg/sample.go:42-49"}, res.EvidenceAnchors); diff != "" {
			t.Fatalf("anchors (-want +got):\n%s", diff)
		}
		if !strings.HasPrefix(res.Retrieved.Data.(string), "// Put adds an item.\nfunc (s *Store[K, V]) Put(") {
			t.Errorf("data = %q", res.Retrieved.Data)
		}
		again := mustGet(t, e, retrieve.Request{Target: res.Citation.Reference})
		if *again.Citation.Hash != *res.Citation.Hash {
			t.Error("the citation does not re-retrieve the same bytes")
		}
	})

	t.Run("GoKindAndGlob", func(t *testing.T) {
		req := retrieve.Request{Target: "pkg/sample.go"}
		req.Constraints.Sections = []string{"interface", "New*"}
		res := mustGet(t, e, req)
		want := []string{"pkg/sample.go:23-28", "pkg/sample.go:37-40"}
		if diff := cmp.Diff(want, res.EvidenceAnchors); diff != "" {
			t.Fatalf("anchors (-want +got):\n%s", diff)
		}
	})

	t.Run("AdjacentSymbolsKeepTheirAnchors", func(t *testing.T) {
		// ID (31-32) and Kind (33-34) touch: two anchors, not one.
		req := retrieve.Request{Target: "pkg/sample.go"}
		req.Constraints.Sections = []string{"ID", "Kind"}
		res := mustGet(t, e, req)
		want := []string{"pkg/sample.go:31-32", "pkg/sample.go:33-34"}
		if diff := cmp.Diff(want, res.EvidenceAnchors); diff != "" {
			t.Fatalf("anchors (-want +got):\n%s", diff)
		}
		again := mustGet(t, e, retrieve.Request{Target: res.Citation.Reference})
		if *again.Citation.Hash != *res.Citation.Hash {
			t.Error("the citation does not re-retrieve the same bytes")
		}
	})

	t.Run("TruncatedAtMaxBytes", func(t *testing.T) {
		// ID (31-32) and Kind (33-34), cut after three lines.
		req := retrieve.Request{Target: "pkg/sample.go"}
		req.Constraints.Sections = []string{"ID", "Kind"}
		req.Constraints.MaxBytes = int64(len(lines(sampleGo, 31, 33)))
		res := mustGet(t, e, req)
		if !res.Extraction.Truncated || res.Retrieved.Complete {
			t.Errorf("truncated %v complete %v", res.Extraction.Truncated, res.Retrieved.Complete)
		}
		want := []string{"pkg/sample.go:31-32", "pkg/sample.go:33-33"}
		if diff := cmp.Diff(want, res.EvidenceAnchors); diff != "" {
			t.Fatalf("anchors (-want +got):\n%s", diff)
		}
		if res.Retrieved.Data != lines(sampleGo, 31, 33) {
			t.Errorf("data = %q", res.Retrieved.Data)
		}
	})

	t.Run("NotFoundHasNearestNames", func(t *testing.T) {
		req := retrieve.Request{Target: "pkg/sample.go"}
		req.Constraints.Sections = []string{"Store.Putt"}
		res, err := get(t, e, req)
		var ae *retrieve.Error
		if !errors.As(err, &ae) || ae.Code != retrieve.CodeSectionNotFound {
			t.Fatalf("err = %v, want SECTION_NOT_FOUND", err)
		}
		if len(res.Error.Alternatives) == 0 || res.Error.Alternatives[0] != "Store.Put" {
			t.Errorf("alternatives = %q, want Store.Put first", res.Error.Alternatives)
		}
	})

	t.Run("AmbiguousName", func(t *testing.T) {
		req := retrieve.Request{Target: "src/models/user.ts"}
		req.Constraints.Sections = []string{"save"}
		res, err := get(t, e, req)
		var ae *retrieve.Error
		if !errors.As(err, &ae) || ae.Code != retrieve.CodeInputValidation {
			t.Fatalf("err = %v, want INPUT_VALIDATION_FAILED", err)
		}
		alts := strings.Join(res.Error.Alternatives, "|")
		for _, want := range []string{"UserAttributes.save", "User.save", "UserRepository.save"} {
			if !strings.Contains(alts, want) {
				t.Errorf("alternatives %q lack %s", alts, want)
			}
		}
		// A qualified name, or overloads of one name, are not ambiguous;
		// each overload is a symbol with its own anchor.
		req.Constraints.Sections = []string{"UserRepository.find"}
		res = mustGet(t, e, req)
		if diff := cmp.Diff([]string{"src/models/user.ts:42-43", "src/models/user.ts:44-44", "src/models/user.ts:45-50"}, res.EvidenceAnchors); diff != "" {
			t.Errorf("overload anchors (-want +got):\n%s", diff)
		}
	})

	t.Run("LinesExcludeSymbols", func(t *testing.T) {
		req := retrieve.Request{Target: "pkg/sample.go"}
		req.Constraints.Lines = "1-30"
		req.Constraints.Sections = []string{"NewStore"}
		res, err := get(t, e, req)
		var ae *retrieve.Error
		if !errors.As(err, &ae) || ae.Code != retrieve.CodeSectionNotFound {
			t.Fatalf("err = %v, want SECTION_NOT_FOUND", err)
		}
		if diff := cmp.Diff([]string{"pkg/sample.go:37-40"}, res.Error.Alternatives); diff != "" {
			t.Errorf("alternatives (-want +got):\n%s", diff)
		}
	})

	t.Run("SyntaxErrorIsAnAssumption", func(t *testing.T) {
		ws.Write("pkg/broken.go", "package p\n\n// Good is fine.\nfunc Good() {}\n\nfunc Bad( {\n")
		req := retrieve.Request{Target: "pkg/broken.go"}
		req.Constraints.Sections = []string{"Good"}
		res := mustGet(t, e, req)
		if diff := cmp.Diff([]string{"pkg/broken.go:3-4"}, res.EvidenceAnchors); diff != "" {
			t.Errorf("anchors (-want +got):\n%s", diff)
		}
		if !strings.Contains(strings.Join(res.Assumptions, "|"), "syntax errors") {
			t.Errorf("assumptions = %q, want one about syntax errors", res.Assumptions)
		}
		if res.Confidence >= 1 {
			t.Errorf("confidence = %v, want a deduction", res.Confidence)
		}
	})
}

func TestEngineOutline(t *testing.T) {
	ws := testws.New(t)
	ws.Write("pkg/sample.go", codeFixture(t, "sample.go"))
	ws.Write("notes.md", "# Notes\n")
	ws.Write(".env", "SECRET=1\n")
	e := newEngine(t, ws.Root)
	ctx := context.Background()

	o, err := e.Outline(ctx, "pkg/sample.go", []string{"method"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range o.Symbols {
		got = append(got, s.Anchor+" "+s.Path)
	}
	want := []string{"pkg/sample.go:25-26 Saver.Save", "pkg/sample.go:42-49 Store.Put", "pkg/sample.go:51-51 Store.Len"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outline (-want +got):\n%s", diff)
	}
	if o.Language != "go" || !strings.HasPrefix(o.SourceHash, "sha256:") {
		t.Errorf("language %q, hash %q", o.Language, o.SourceHash)
	}
	for target, code := range map[string]retrieve.Code{
		"notes.md":    retrieve.CodeUnsupportedFormat,
		".env":        retrieve.CodeSensitivePath,
		"missing.go":  retrieve.CodePathNotFound,
		"../outer.go": retrieve.CodeOutsideRoot,
	} {
		_, err := e.Outline(ctx, target, nil)
		if ae := retrieve.AsError(err); err == nil || ae.Code != code {
			t.Errorf("Outline(%s) = %v, want %s", target, err, code)
		}
	}
}

// TestSymbolsWithoutCodeParser: an engine built without Options.Code
// answers --section on a source file and Outline with UNSUPPORTED_FORMAT and
// a hint, as a build that cannot parse the language does; markdown
// sections still work.
func TestSymbolsWithoutCodeParser(t *testing.T) {
	ws := testws.New(t)
	ws.Write("pkg/sample.go", codeFixture(t, "sample.go"))
	ws.Write("guide.md", "# Guide\n\n## Usage\n\nrun it\n")
	src, err := file.New(file.Options{Root: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{src}})
	if err != nil {
		t.Fatal(err)
	}
	req := retrieve.Request{Target: "pkg/sample.go"}
	req.Constraints.Sections = []string{"Store.Put"}
	_, err = get(t, e, req)
	if ae := retrieve.AsError(err); err == nil || ae.Code != retrieve.CodeUnsupportedFormat || !strings.Contains(ae.Hint, "--lines") {
		t.Fatalf("section on code = %v, want UNSUPPORTED_FORMAT with a hint", err)
	}
	if _, err := e.Outline(context.Background(), "pkg/sample.go", nil); retrieve.AsError(err).Code != retrieve.CodeUnsupportedFormat {
		t.Fatalf("Outline = %v, want UNSUPPORTED_FORMAT", err)
	}
	req = retrieve.Request{Target: "guide.md"}
	req.Constraints.Sections = []string{"Usage"}
	if res := mustGet(t, e, req); res.Retrieved.Data != "## Usage\n\nrun it\n" {
		t.Fatalf("markdown section = %q", res.Retrieved.Data)
	}
}

// BenchmarkSymbolSection extracts one method of a 10,000-line file through
// the engine: read, hash, parse, select, cite.
func BenchmarkSymbolSection(b *testing.B) {
	testws.NeedsCgo(b, "TypeScript")
	ws := testws.New(b)
	var ts, gosrc strings.Builder
	gosrc.WriteString("package gen\n\n")
	for k := 0; k < 200; k++ {
		fmt.Fprintf(&ts, "/** Class %d. */\nexport class Class%d {\n", k, k)
		fmt.Fprintf(&gosrc, "// T%d is a type.\ntype T%d struct{ v int }\n\n", k, k)
		for j := 0; j < 10; j++ {
			fmt.Fprintf(&ts, "  /** Method %d. */\n  method%d(a: number): number {\n    return a + %d;\n  }\n\n", j, j, j)
			fmt.Fprintf(&gosrc, "// M%d is a method.\nfunc (t *T%d) M%d(a int) int {\n\treturn a + t.v + %d\n}\n\n", j, k, j, j)
		}
		ts.WriteString("}\n\n")
	}
	ws.Write("gen.ts", ts.String())
	ws.Write("gen.go", gosrc.String())
	e := newEngine(b, ws.Root)
	for _, tc := range []struct{ target, symbol string }{
		{"gen.go", "T150.M7"},
		{"gen.ts", "Class150.method7"},
	} {
		b.Run(tc.target, func(b *testing.B) {
			req := retrieve.Request{Target: tc.target, NoRecord: true}
			req.Constraints.Sections = []string{tc.symbol}
			for b.Loop() {
				res, err := e.Retrieve(context.Background(), req)
				if err != nil || len(res.EvidenceAnchors) != 1 {
					b.Fatal(err, res.EvidenceAnchors)
				}
			}
		})
	}
}
