package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/ops"
)

// nextCursor is the cursor a paged command printed on stderr, "" when none.
func nextCursor(t *testing.T, errOut string) string {
	t.Helper()
	for _, l := range strings.Split(errOut, "\n") {
		if c, ok := strings.CutPrefix(l, "more: --cursor "); ok {
			return c
		}
	}
	return ""
}

// TestGraphPagingCLI: retrieve graph query / evidence and wiki search page
// with --limit and --cursor as retrieve log does (the next cursor on
// stderr); every edge id is a graph:edge/ citation retrieve get resolves;
// bad limits and foreign cursors exit with INPUT_VALIDATION_FAILED.
func TestGraphPagingCLI(t *testing.T) {
	ws := testws.New(t)
	var text strings.Builder
	x := map[string]any{"entities": []any{map[string]any{"name": "hub", "type": "system"}}, "relations": []any{}}
	for i := range 12 {
		spoke := fmt.Sprintf("spoke%02d", i)
		fmt.Fprintf(&text, "The hub feeds %s.\n", spoke)
		x["entities"] = append(x["entities"].([]any), map[string]any{"name": spoke, "type": "component"})
		x["relations"] = append(x["relations"].([]any), map[string]any{"source": "hub", "target": spoke, "type": "uses", "confidence": 0.9, "supporting_text": "hub feeds " + spoke})
	}
	ws.Write("hub.md", text.String())
	xb, _ := json.Marshal(x)
	xf := ws.Write("x.json", string(xb))
	for i := range 7 {
		ws.Write(fmt.Sprintf("wiki/entities/hub-part-%d.md", i), fmt.Sprintf("---\ntitle: Hub part %d\n---\n\n# Hub part %d\n\nThe hub and its part %d.\n", i, i, i))
	}
	ws.InitGit()
	cli := func(args ...string) (string, string) {
		t.Helper()
		out, errOut, code := runCLI(t, append([]string{"--root", ws.Root}, args...)...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return out, errOut
	}
	cli("graph", "ingest", "--doc-id", "hub", "--file", "hub.md", "--extraction", xf)

	var firstQuery string
	for _, cmd := range []string{"query", "evidence"} {
		t.Run(cmd, func(t *testing.T) {
			seen := map[string]bool{}
			cursor, pages := "", 0
			for {
				args := []string{"graph", cmd, "What does the hub feed?", "--limit", "5", "--json"}
				if cursor != "" {
					args = append(args, "--cursor", cursor)
				}
				out, errOut := cli(args...)
				var page ops.GraphQueryOutput
				if cmd == "evidence" {
					var ev ops.GraphEvidenceOutput
					if err := json.Unmarshal([]byte(out), &ev); err != nil {
						t.Fatal(err)
					}
					page.PageSubgraph, page.NextCursor, page.TotalEdges = ev.Subgraph, ev.NextCursor, ev.TotalEdges
					if len(ev.Paths) != len(ev.Subgraph.Edges) {
						t.Errorf("page %d: %d paths for %d edges", pages, len(ev.Paths), len(ev.Subgraph.Edges))
					}
				} else if err := json.Unmarshal([]byte(out), &page); err != nil {
					t.Fatal(err)
				}
				for _, e := range page.Edges {
					if seen[e.ID] {
						t.Fatalf("edge %s twice", e.ID)
					}
					seen[e.ID] = true
				}
				if got := nextCursor(t, errOut); got != page.NextCursor {
					t.Fatalf("stderr cursor %q, output next_cursor %q", got, page.NextCursor)
				}
				pages++
				if cmd == "query" && pages == 1 {
					firstQuery = page.NextCursor
				}
				if cursor = page.NextCursor; cursor == "" {
					break
				}
			}
			if len(seen) != 12 || pages != 3 {
				t.Fatalf("%d edges in %d pages, want 12 in 3", len(seen), pages)
			}
			for id := range seen {
				out, _ := cli("get", "graph:edge/"+id, "--json")
				contracttest.Check(t, []byte(out))
				var res retrieve.Result
				if err := json.Unmarshal([]byte(out), &res); err != nil {
					t.Fatal(err)
				}
				data, _ := res.Retrieved.Data.(map[string]any)
				ev, _ := data["evidence"].(map[string]any)
				if res.Citation.Reference != "graph:edge/"+id || data["id"] != id || !strings.HasPrefix(fmt.Sprint(ev["supporting_text"]), "hub feeds spoke") {
					t.Errorf("get graph:edge/%s = %s", id, out)
				}
			}
		})
	}

	t.Run("WikiSearch", func(t *testing.T) {
		seen := map[string]bool{}
		cursor, pages := "", 0
		for {
			args := []string{"wiki", "search", "hub", "part", "--limit", "3", "--json"}
			if cursor != "" {
				args = append(args, "--cursor", cursor)
			}
			out, errOut := cli(args...)
			var hits ops.WikiHits
			if err := json.Unmarshal([]byte(out), &hits); err != nil {
				t.Fatal(err)
			}
			for _, h := range hits.Hits {
				seen[h.Slug] = true
			}
			pages++
			if cursor = nextCursor(t, errOut); cursor == "" {
				break
			}
		}
		if len(seen) != 7 || pages != 3 {
			t.Errorf("%d pages of %d hits, want 7 hits in 3 pages", pages, len(seen))
		}
		// The YAML default prints the cursor the same way.
		_, errOut := cli("wiki", "search", "hub", "part", "--limit", "3")
		if nextCursor(t, errOut) == "" {
			t.Errorf("no cursor on stderr in YAML mode: %q", errOut)
		}
	})

	for name, args := range map[string][]string{
		"ErrLimitNegative":     {"graph", "query", "hub", "--limit", "-1"},
		"ErrLimitOverMax":      {"graph", "evidence", "hub", "--limit", "1001"},
		"ErrOtherQuery":        {"graph", "query", "spoke", "--cursor", firstQuery},
		"ErrOtherFlags":        {"graph", "query", "What does the hub feed?", "--limit", "5", "--depth", "1", "--cursor", firstQuery},
		"ErrQueryCursorAsEv":   {"graph", "evidence", "What does the hub feed?", "--limit", "5", "--cursor", firstQuery},
		"ErrForged":            {"graph", "query", "hub", "--cursor", "forged.0000"},
		"ErrWikiLimit":         {"wiki", "search", "hub", "--limit", "101"},
		"ErrWikiGraphCursor":   {"wiki", "search", "hub", "--cursor", firstQuery},
		"ErrWikiLimitNegative": {"wiki", "search", "hub", "--limit", "-2"},
	} {
		t.Run(name, func(t *testing.T) {
			_, errOut, code := runCLI(t, append([]string{"--root", ws.Root}, args...)...)
			if code != exitCode(retrieve.CodeInputValidation) || !strings.Contains(errOut, "INPUT_VALIDATION_FAILED") {
				t.Errorf("%v: exit %d %s", args, code, errOut)
			}
		})
	}
	t.Run("ErrUnknownEdge", func(t *testing.T) {
		out, _, code := runCLI(t, "--root", ws.Root, "get", "graph:edge/ffffffffffff.000000000000", "--json")
		contracttest.Check(t, []byte(out))
		if code != exitCode(retrieve.CodeNotFound) || !strings.Contains(out, "NOT_FOUND") {
			t.Errorf("exit %d %s", code, out)
		}
	})
}
