package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/ops"
)

const outlineGo = `package shapes

// Shape has an area.
type Shape interface {
	Area() float64
}

// Square is a Shape.
type Square struct{ Side float64 }

// Area of the square.
func (s Square) Area() float64 { return s.Side * s.Side }
`

func TestOutline(t *testing.T) {
	testws.NeedsCgo(t, "Python")
	ws := testws.New(t)
	ws.Write("shapes/shape.go", outlineGo)
	ws.Write("shapes/gen/gen.go", "package gen\n\ntype Generated struct{}\n")
	ws.Write("shapes/.gitignore", "gen/\n")
	ws.Write("shapes/secrets/.env.go", "package secrets\n\ntype Hidden struct{}\n")
	ws.Write("shapes/tool.py", "class Tool:\n    def run(self):\n        pass\n")
	ws.Write("shapes/README.md", "# Shapes\n")
	ws.InitGit()

	t.Run("FileTable", func(t *testing.T) {
		out, errOut, exit := runCLI(t, "--root", ws.Root, "outline", "shapes/shape.go")
		if exit != ExitOK {
			t.Fatalf("exit %d: %s", exit, errOut)
		}
		want := "ANCHOR                 KIND       SYMBOL\n" +
			"shapes/shape.go:3-6    interface  Shape\n" +
			"shapes/shape.go:5-5    method     Shape.Area\n" +
			"shapes/shape.go:8-9    struct     Square\n" +
			"shapes/shape.go:11-12  method     Square.Area\n"
		if diff := cmp.Diff(want, out); diff != "" {
			t.Errorf("table (-want +got):\n%s", diff)
		}
	})

	t.Run("FileJSON", func(t *testing.T) {
		out, errOut, exit := runCLI(t, "--root", ws.Root, "outline", "shapes/shape.go", "--kind", "method", "--json")
		if exit != ExitOK {
			t.Fatalf("exit %d: %s", exit, errOut)
		}
		var o retrieve.FileOutline
		if err := json.Unmarshal([]byte(out), &o); err != nil {
			t.Fatal(err)
		}
		if len(o.Symbols) != 2 || o.Symbols[1].Anchor != "shapes/shape.go:11-12" || o.Symbols[1].Parent != "Square" {
			t.Errorf("outline = %+v", o)
		}
		// The anchor re-retrieves the symbol.
		out, errOut, exit = runCLI(t, "--root", ws.Root, "get", o.Symbols[1].Anchor, "--json", "--no-record")
		if exit != ExitOK {
			t.Fatalf("exit %d: %s", exit, errOut)
		}
		contracttest.Check(t, []byte(out))
		if !strings.Contains(out, `"data": "// Area of the square.\nfunc (s Square) Area()`) {
			t.Errorf("get %s:\n%s", o.Symbols[1].Anchor, out)
		}
	})

	t.Run("DirSkipsIgnoredAndDenied", func(t *testing.T) {
		out, errOut, exit := runCLI(t, "--root", ws.Root, "outline", "shapes", "--kind", "struct", "--kind", "class", "--json")
		if exit != ExitOK {
			t.Fatalf("exit %d: %s", exit, errOut)
		}
		var page ops.OutlineOutput
		if err := json.Unmarshal([]byte(out), &page); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, o := range page.Outlines {
			for _, s := range o.Symbols {
				got = append(got, s.Anchor+" "+s.Path)
			}
		}
		want := []string{"shapes/shape.go:8-9 Square", "shapes/tool.py:1-3 Tool"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("symbols (-want +got):\n%s", diff)
		}
		if strings.Contains(out, "Generated") || strings.Contains(out, "Hidden") {
			t.Error("an ignored or denied file was outlined")
		}
	})

	t.Run("Errors", func(t *testing.T) {
		for _, tc := range []struct {
			target string
			exit   int
		}{
			{"shapes/README.md", exitCode(retrieve.CodeUnsupportedFormat)},
			{"shapes/missing.go", exitCode(retrieve.CodePathNotFound)},
		} {
			_, errOut, exit := runCLI(t, "--root", ws.Root, "outline", tc.target)
			if exit != tc.exit || !strings.Contains(errOut, "retrieve: ") {
				t.Errorf("outline %s: exit %d (want %d), stderr %q", tc.target, exit, tc.exit, errOut)
			}
		}
		// Outline reads workspace paths and revisions of them: the sources
		// of other schemes are refused, whatever their kind.
		for _, target := range []string{"memory:semantic/x.md", "sql:main/t?id=1", "http://127.0.0.1:1/x.go"} {
			_, errOut, exit := runCLI(t, "--root", ws.Root, "outline", target)
			if exit != exitCode(retrieve.CodeInputValidation) || !strings.Contains(errOut, "outline reads workspace files") {
				t.Errorf("outline %s: exit %d, stderr %q; want INPUT_VALIDATION_FAILED, workspace files only", target, exit, errOut)
			}
		}
		if out, errOut, exit := runCLI(t, "--root", ws.Root, "outline", "git:HEAD:shapes/shape.go"); exit != ExitOK || !strings.Contains(out, "Square.Area") {
			t.Errorf("outline git:HEAD:shapes/shape.go: exit %d, stderr %q, out %q", exit, errOut, out)
		}
		_, errOut, exit := runCLI(t, "--root", ws.Root, "outline", "shapes/shape.go", "--kind", "klass")
		if exit != exitCode(retrieve.CodeInputValidation) || !strings.Contains(errOut, "klass") {
			t.Errorf("bad --kind: exit %d, stderr %q", exit, errOut)
		}
	})

	t.Run("Paging", func(t *testing.T) {
		for i := range 5 {
			ws.Write(fmt.Sprintf("many/m%d.go", i), fmt.Sprintf("package many\n\ntype T%d struct{}\n", i))
		}
		seen := map[string]bool{}
		cursor, pages := "", 0
		for {
			args := []string{"--root", ws.Root, "outline", "many", "--limit", "2", "--json"}
			if cursor != "" {
				args = append(args, "--cursor", cursor)
			}
			out, errOut, exit := runCLI(t, args...)
			if exit != ExitOK {
				t.Fatalf("exit %d: %s", exit, errOut)
			}
			var page ops.OutlineOutput
			if err := json.Unmarshal([]byte(out), &page); err != nil {
				t.Fatal(err)
			}
			for _, o := range page.Outlines {
				seen[o.Target] = true
			}
			pages++
			if cursor = nextCursor(t, errOut); cursor != page.NextCursor || page.Files != 5 {
				t.Errorf("page: next_cursor %q on stderr, %q in the page, files %d", cursor, page.NextCursor, page.Files)
			}
			if cursor == "" {
				break
			}
		}
		if len(seen) != 5 || pages != 3 {
			t.Errorf("%d files in %d pages, want 5 in 3", len(seen), pages)
		}
		// Without --limit or --cursor: every file, no cursor.
		out, errOut, _ := runCLI(t, "--root", ws.Root, "outline", "many", "--json")
		var all ops.OutlineOutput
		if err := json.Unmarshal([]byte(out), &all); err != nil || len(all.Outlines) != 5 || nextCursor(t, errOut) != "" || all.NextCursor != "" {
			t.Errorf("all: %d outlines, stderr %q", len(all.Outlines), errOut)
		}
		_, first, _ := runCLI(t, "--root", ws.Root, "outline", "many", "--limit", "2")
		for name, args := range map[string][]string{
			"ErrLimitNegative": {"many", "--limit", "-1"},
			"ErrLimitOverMax":  {"many", "--limit", "501"},
			"ErrOtherPath":     {"shapes", "--cursor", nextCursor(t, first)},
			"ErrOtherKind":     {"many", "--kind", "struct", "--cursor", nextCursor(t, first)},
			"ErrForged":        {"many", "--cursor", "forged"},
		} {
			_, errOut, exit := runCLI(t, append([]string{"--root", ws.Root, "outline"}, args...)...)
			if exit != exitCode(retrieve.CodeInputValidation) || !strings.Contains(errOut, "INPUT_VALIDATION_FAILED") {
				t.Errorf("%s: exit %d, stderr %q", name, exit, errOut)
			}
		}
	})
}
