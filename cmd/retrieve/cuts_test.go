package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/testws"
)

// TestCutsInsideALineNameTheirNextPart: a line longer than max_bytes that
// is not the document's first line — in a line range, a section, the next
// part of an earlier cut — is cited in bytes of the text of its lines
// (f.txt:3-#bytes=0-999), and next names the rest (f.txt:3-#bytes=1000-):
// following next joins the parts into exactly what was asked, each part's
// reference re-retrieves its hash, and each part verifies (issue 28).
func TestCutsInsideALineNameTheirNextPart(t *testing.T) {
	ws := testws.New(t)
	long := strings.Repeat("var é=\"1\";", 500) // 5,500 bytes, two-byte characters
	ws.Write("f.txt", "first\nsecond\n"+long+"\nafter\nend\n")
	ws.Write("g.md", "# Intro\n\ntext\n\n## Long\n\n"+long+"\n\ntail\n\n## Next\n\nmore\n")
	ws.Write("ev.jsonl", `{"n":1}`+"\n"+`{"n":2,"text":"`+strings.Repeat("word é ", 800)+`"}`+"\n"+`{"n":3}`+"\n")
	ws.InitGit()
	root := []string{"--root", ws.Root}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"lines from a short line", []string{"f.txt", "--lines", "2-"}, "second\n" + long + "\nafter\nend\n"},
		{"lines closed", []string{"f.txt:3-4"}, long + "\nafter\n"},
		{"section", []string{"g.md", "--section", "Long"}, "## Long\n\n" + long + "\n\ntail\n\n"},
		// A document's part (a JSON Lines record): its text in bytes,
		// ev.jsonl#record=2#bytes=0-999.
		{"document part", []string{"ev.jsonl#record=2"}, ""},
		{"document parts", []string{"ev.jsonl", "--pages", "1-3"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if tc.want == "" {
				whole, _, _ := runCLI(t, append(append(append([]string{}, root...), "get"), append(args, "--json")...)...)
				var r retrieve.Result
				if err := json.Unmarshal([]byte(whole), &r); err != nil {
					t.Fatal(err)
				}
				tc.want, _ = r.Retrieved.Data.(string)
			}
			var joined strings.Builder
			inside := false
			for part := 0; ; part++ {
				if part > 20 {
					t.Fatal("more than 20 parts: next never ends")
				}
				out, errOut, code := runCLI(t, append(append(append([]string{}, root...), "get"), append(args, "--max-bytes", "1000", "--json")...)...)
				if code != ExitOK {
					t.Fatalf("part %d: get %v: exit %d: %s", part, args, code, errOut)
				}
				var r retrieve.Result
				if err := json.Unmarshal([]byte(out), &r); err != nil {
					t.Fatal(err)
				}
				data, _ := r.Retrieved.Data.(string)
				if retrieve.HashBytes([]byte(data)) != *r.Citation.Hash {
					t.Errorf("part %d: hash is not that of the data", part)
				}
				inside = inside || strings.Contains(r.Citation.Reference, "#bytes=")
				again, _, _ := runCLI(t, append(append([]string{}, root...), "get", r.Citation.Reference, "--max-bytes", "1000", "--json")...)
				var ra retrieve.Result
				if err := json.Unmarshal([]byte(again), &ra); err != nil || ra.Citation.Hash == nil || *ra.Citation.Hash != *r.Citation.Hash {
					t.Errorf("part %d: re-retrieving %s does not give hash %s: %s", part, r.Citation.Reference, *r.Citation.Hash, again)
				}
				vout, _, _ := runCLI(t, append(append([]string{}, root...), "verify", r.RetrievalID, "--json")...)
				if !strings.Contains(vout, `"status": "verified"`) {
					t.Errorf("part %d (%s): verify: %s", part, r.Citation.Reference, vout)
				}
				joined.WriteString(data)
				if r.Extraction.Next == nil {
					if r.Extraction.Truncated {
						t.Errorf("part %d (%s): truncated without a next part", part, r.Citation.Reference)
					}
					break
				}
				if !r.Extraction.Truncated {
					t.Errorf("part %d: a next part but not truncated", part)
				}
				args = []string{*r.Extraction.Next}
			}
			if !inside {
				t.Error("no part was cut inside a line: the test did not test it")
			}
			if joined.String() != tc.want {
				t.Errorf("the parts join to %d bytes, want the %d bytes asked for", joined.Len(), len(tc.want))
			}
		})
	}
}
