package main

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/wiki"
	"go.yaml.in/yaml/v3"
)

// TestYAMLKeysAreJSONKeys: every command's YAML output has the keys of its
// JSON output, also for Go types without yaml tags (graph and wiki outputs
// showed docid, nodesadded, orphanpages, brokenwikilinks).
func TestYAMLKeysAreJSONKeys(t *testing.T) {
	for _, v := range []any{
		&graph.IngestOutput{DocID: "d", NodesAdded: 2, Skipped: []graph.Skipped{{}}},
		&wiki.LintOutput{OrphanPages: []string{"a"}, BrokenWikilinks: map[string][]string{"p": {"q"}}},
		&ops.LogOutput{Entries: []ops.LogRow{{ID: "x", Reference: "a.md:1-2"}}, NextCursor: "c"},
		map[string]any{"yes": "no", "n": "1.0", "text": "two\nlines\n"},
	} {
		var jb, yb bytes.Buffer
		if err := writeJSON(&jb, v); err != nil {
			t.Fatal(err)
		}
		if err := writeYAML(&yb, v); err != nil {
			t.Fatal(err)
		}
		var fromJSON, fromYAML any
		if err := json.Unmarshal(jb.Bytes(), &fromJSON); err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(yb.Bytes(), &fromYAML); err != nil {
			t.Fatal(err)
		}
		// Numbers decode as float64 from JSON and int from YAML: compare
		// through JSON again.
		a, _ := json.Marshal(fromJSON)
		b, _ := json.Marshal(fromYAML)
		var x, y any
		_ = json.Unmarshal(a, &x)
		_ = json.Unmarshal(b, &y)
		if !reflect.DeepEqual(x, y) {
			t.Errorf("%T: YAML differs from JSON:\n%s\n%s", v, jb.String(), yb.String())
		}
	}
}

// TestYAMLOnlyThroughJSON: every command prints YAML through writeYAML,
// which goes through the JSON encoding, so that no output type can show
// YAML keys other than its JSON keys (TestDocExamples also compares the two
// outputs of every example). A YAML encoder anywhere else in the command
// files fails here.
func TestYAMLOnlyThroughJSON(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "output.go" {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, isID := sel.X.(*ast.Ident); isID && id.Name == "yaml" && (sel.Sel.Name == "Marshal" || sel.Sel.Name == "NewEncoder") {
				t.Errorf("%s: yaml.%s: print YAML with writeYAML (or writeResult)", f, sel.Sel.Name)
			}
			return true
		})
	}
	if checked < 20 {
		t.Fatalf("only %d command files checked", checked)
	}
}
