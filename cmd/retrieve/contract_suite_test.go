package main

import (
	dbsql "database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	_ "modernc.org/sqlite"
)

// contractCase is one row of the contract suite: a retrieval whose
// citation must round-trip.
type contractCase struct {
	name string
	// args follow "get"; ref, when set, is the reference the citation must
	// have (a prefix when it ends with '*').
	args []string
	ref  string
	// again are the arguments added when the reference is re-retrieved (none:
	// the reference alone must be the target).
	again []string
	// change alters the source so that the cited data differs; seen is a
	// text the diff of verify must show.
	change func(t *testing.T, ws *testws.Workspace, db *dbsql.DB)
	seen   string
	// immutable says the citation names a revision that the change cannot
	// touch (git:<sha>:…): verify stays verified.
	immutable bool
}

// TestContractSuite is the end-to-end contract over the CLI (issue 28): for
// each source kind and constraint, retrieve → re-retrieve
// citation.reference alone (the same hash) → verify (verified) → change the
// source → verify (changed, with a diff of what was cited). A new source or
// constraint adds a row.
func TestContractSuite(t *testing.T) {
	minified := strings.Repeat(`var é="1";`, 300)
	page := `<html><head><title>T</title></head><body><article><h1>Guide</h1><p>The guide's first paragraph, long enough to be the main content.</p><h2>Install</h2><p class="note">Run the installer.</p></article></body></html>`
	bin := "\x00\x01" + strings.Repeat("xyz", 200)
	binChanged := "\x00\x02" + strings.Repeat("xyz", 200)
	write := func(path, content string) func(*testing.T, *testws.Workspace, *dbsql.DB) {
		return func(_ *testing.T, ws *testws.Workspace, _ *dbsql.DB) { ws.Write(path, content) }
	}
	exec := func(stmt string) func(*testing.T, *testws.Workspace, *dbsql.DB) {
		return func(t *testing.T, _ *testws.Workspace, db *dbsql.DB) {
			if _, err := db.Exec(stmt); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The web rows read a loopback server whose bodies a row's change
	// rewrites.
	var mu sync.Mutex
	bodies := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		body, ok := bodies[r.URL.Path]
		mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		switch {
		case strings.HasSuffix(r.URL.Path, ".html"):
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		case strings.HasSuffix(r.URL.Path, ".json"):
			w.Header().Set("Content-Type", "application/json")
		default:
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		}
		fmt.Fprint(w, body)
	}))
	defer srv.Close()
	serve := func(path, body string) func(*testing.T, *testws.Workspace, *dbsql.DB) {
		return func(*testing.T, *testws.Workspace, *dbsql.DB) {
			mu.Lock()
			bodies[path] = body
			mu.Unlock()
		}
	}
	commit := func(path, content string) func(*testing.T, *testws.Workspace, *dbsql.DB) {
		return func(_ *testing.T, ws *testws.Workspace, _ *dbsql.DB) {
			ws.Write(path, content)
			ws.Commit("change " + path)
		}
	}
	cases := []contractCase{
		{name: "file/whole", args: []string{"docs/guide.md"}, ref: "docs/guide.md:1-5",
			change: write("docs/guide.md", "# Guide\n\nhello there\n\n## Next\n"), seen: "hello there"},
		{name: "file/lines", args: []string{"docs/guide.md", "--lines", "3"}, ref: "docs/guide.md:3-3",
			change: write("docs/guide.md", "# Guide\n\nhello there\n\n## Next\n"), seen: "hello there"},
		{name: "file/section", args: []string{"docs/guide.md", "--section", "Next"}, ref: "docs/guide.md:5-5",
			change: write("docs/guide.md", "# Guide\n\nhello world\n\n## Later\n"), seen: "Later"},
		{name: "file/bytes", args: []string{"docs/guide.md", "--bytes", "0-6"}, ref: "docs/guide.md#bytes=0-6",
			change: write("docs/guide.md", "# Guido\n"), seen: "Guido"},
		{name: "file/bytes-several", args: []string{"docs/guide.md", "--bytes", "0-1,9-13"}, ref: "docs/guide.md#bytes=0-1,9-13",
			change: write("docs/guide.md", "# Guide\n\nHELLO world\n"), seen: "HELLO"},
		{name: "file/long-line-cut", args: []string{"min.js", "--max-bytes", "1000"}, ref: "min.js#bytes=0-999",
			change: write("min.js", "let "+minified), seen: "let"},
		{name: "file/binary-cut", args: []string{"b.bin", "--format", "binary", "--max-bytes", "100"}, ref: "b.bin#bytes=0-99",
			change: write("b.bin", binChanged), seen: base64.StdEncoding.EncodeToString([]byte(binChanged[:99]))},
		{name: "file/binary-bytes", args: []string{"b.bin", "--bytes", "200-299", "--format", "binary"}, ref: "b.bin#bytes=200-299", again: []string{"--format", "binary"},
			change: write("b.bin", binChanged[:200]+binChanged[:100]), seen: "AAJ4"},
		// Without --format binary the data is null: the hash covers the
		// bytes, and the reference alone gives it again.
		{name: "file/binary-bytes-hash", args: []string{"b.bin", "--bytes", "200-299"}, ref: "b.bin#bytes=200-299",
			change: write("b.bin", binChanged[:200]+binChanged[:100])},
		{name: "file/select", args: []string{"config.json", "--select", ".a.b | map(. * 2)"}, ref: "config.json#select=*",
			change: write("config.json", `{"a":{"b":[5]}}`), seen: "10"},
		{name: "file/select-lines", args: []string{"data.jsonl", "--lines", "2", "--select", ".[0].n"}, ref: "data.jsonl#select=.%5B0%5D.n:2-2",
			change: write("data.jsonl", "{\"n\":1}\n{\"n\":7}\n"), seen: "7"},
		{name: "git/lines", args: []string{"git:HEAD:docs/guide.md", "--lines", "3"}, ref: "git:*",
			change: commit("docs/guide.md", "# Guide\n\nhello there\n"), immutable: true},
		{name: "git/bytes", args: []string{"git:HEAD:docs/guide.md", "--bytes", "0-6"}, ref: "git:*",
			change: commit("docs/guide.md", "# Guido\n"), immutable: true},
		{name: "git/select", args: []string{"git:HEAD:config.json", "--select", ".a.b[1:]"}, ref: "git:*",
			change: commit("config.json", `{"a":{"b":[9,9]}}`), immutable: true},
		{name: "web/whole", args: []string{srv.URL + "/notes.txt"}, ref: srv.URL + "/notes.txt",
			change: serve("/notes.txt", "alpha\nBETA\n"), seen: "BETA"},
		{name: "web/bytes", args: []string{srv.URL + "/notes.txt", "--bytes", "6-9"}, ref: srv.URL + "/notes.txt#bytes=6-9",
			change: serve("/notes.txt", "alpha\nBETA\n"), seen: "BETA"},
		{name: "web/select", args: []string{srv.URL + "/data.json", "--select", ".a.b"}, ref: srv.URL + "/data.json#select=.a.b",
			change: serve("/data.json", `{"a":{"b":[42]}}`), seen: "42"},
		{name: "file/css-select", args: []string{"page.html", "--select", "p.note"}, ref: "page.html#select=p.note",
			change: write("page.html", strings.Replace(page, "Run the installer.", "Run the new installer.", 1)), seen: "new installer"},
		// The api source owns 127.0.0.1 in this workspace (api.hosts): a web
		// page is asked of the web source.
		{name: "web/css-select", args: []string{srv.URL + "/page.html", "--source", "web", "--select", "p.note"}, ref: srv.URL + "/page.html#select=p.note", again: []string{"--source", "web"},
			change: serve("/page.html", strings.Replace(page, "Run the installer.", "Run the new installer.", 1)), seen: "new installer"},
		{name: "sql/record", args: []string{"sql:app/suite_users?id=2"}, ref: "sql:app/suite_users?id=2",
			change: exec("UPDATE suite_users SET name = 'Robert' WHERE id = 2"), seen: "Robert"},
		{name: "sql/query", args: []string{"sql:app", "--query", "SELECT id, name FROM suite_users WHERE id >= ? ORDER BY id", "--param", "1", "--max-rows", "1"}, ref: "sql:app#*",
			change: exec("UPDATE suite_users SET name = 'Adele' WHERE id = 1"), seen: "Adele"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := testws.New(t)
			ws.Write("docs/guide.md", "# Guide\n\nhello world\n\n## Next\n")
			ws.Write("config.json", `{"a":{"b":[1,2,3]},"c":"x"}`)
			ws.Write("data.jsonl", "{\"n\":1}\n{\"n\":2}\n")
			ws.Write("min.js", minified)
			ws.Write("b.bin", bin)
			ws.Write("page.html", page)
			db, err := dbsql.Open("sqlite", filepath.Join(ws.Root, "app.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			exec("CREATE TABLE suite_users (id INTEGER PRIMARY KEY, name TEXT)")(t, ws, db)
			exec("INSERT INTO suite_users VALUES (1, 'Ada'), (2, 'Bob')")(t, ws, db)
			ws.Write(".retrieve/config.yaml", "connections:\n  app:\n    driver: sqlite\n    dsn: app.db\nweb:\n  allow_hosts: [127.0.0.1]\napi:\n  hosts: [127.0.0.1]\n")
			ws.InitGit()
			serve("/notes.txt", "alpha\nbeta\n")(t, ws, db)
			serve("/data.json", `{"a":{"b":[1,2]}}`)(t, ws, db)
			serve("/page.html", page)(t, ws, db)
			root := []string{"--root", ws.Root}
			first := contractGet(t, root, append(tc.args, "--json"))
			if want, prefix := strings.CutSuffix(tc.ref, "*"); (prefix && !strings.HasPrefix(first.Citation.Reference, want)) || (!prefix && first.Citation.Reference != tc.ref) {
				t.Fatalf("reference %s, want %s", first.Citation.Reference, tc.ref)
			}
			t.Logf("reference %s", first.Citation.Reference)
			again := contractGet(t, root, append(append([]string{first.Citation.Reference}, tc.again...), "--json"))
			if *again.Citation.Hash != *first.Citation.Hash {
				t.Errorf("re-retrieving %s gives hash %s, want %s (data %v, want %v)", first.Citation.Reference, *again.Citation.Hash, *first.Citation.Hash, again.Retrieved.Data, first.Retrieved.Data)
			}
			if v := contractVerify(t, root, first.RetrievalID); v.Status != retrieve.Verified {
				t.Errorf("verify before the change: %s %+v", v.Status, v.Error)
			}
			tc.change(t, ws, db)
			v := contractVerify(t, root, first.RetrievalID)
			if tc.immutable {
				if v.Status != retrieve.Verified {
					t.Errorf("verify of a pinned revision after a new commit: %s %+v, want verified", v.Status, v.Error)
				}
				return
			}
			if v.Status != retrieve.Changed || !strings.Contains(v.Diff, tc.seen) {
				t.Errorf("verify after the change: %s, diff %q; want changed with %q", v.Status, v.Diff, tc.seen)
			}
		})
	}
}

func contractGet(t *testing.T, root, args []string) *retrieve.Result {
	t.Helper()
	out, errOut, code := runCLI(t, append(append(append([]string{}, root...), "get"), args...)...)
	if code != ExitOK {
		t.Fatalf("get %q: exit %d: %s", args, code, errOut)
	}
	contracttest.Check(t, []byte(out))
	var res retrieve.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Citation.Hash == nil || res.RetrievalID == "" {
		t.Fatalf("get %q: no hash or no ledger entry: %s", args, out)
	}
	return &res
}

func contractVerify(t *testing.T, root []string, id string) *retrieve.Verification {
	t.Helper()
	out, _, _ := runCLI(t, append(append([]string{}, root...), "verify", id, "--json")...)
	var v retrieve.Verification
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("verify %s: %v\n%s", id, err, out)
	}
	return &v
}

// TestStoredQueryNotRecorded: a stored-query reference (sql:app#<hash>)
// that no recorded retrieval cited cannot be re-run — the reference holds
// the query's hash, not its text — and says so with a typed error whose
// hint names how to re-run or verify it.
func TestStoredQueryNotRecorded(t *testing.T) {
	ws := testws.New(t)
	ws.Write(".retrieve/config.yaml", "connections:\n  app:\n    driver: sqlite\n    dsn: app.db\n")
	out, errOut, code := runCLI(t, "--root", ws.Root, "get", "sql:app#"+strings.Repeat("ab", 32), "--json")
	if code != exitCode(retrieve.CodeInputValidation) {
		t.Fatalf("exit %d, want %d: %s", code, exitCode(retrieve.CodeInputValidation), errOut)
	}
	var res retrieve.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Error == nil {
		t.Fatalf("no error envelope: %v\n%s", err, out)
	}
	if !strings.Contains(res.Error.Message, "no recorded retrieval cited it") || !strings.Contains(res.Error.Hint, "--query") || !strings.Contains(res.Error.Hint, "verify") {
		t.Errorf("error %q hint %q: want the reason and how to re-run or verify it", res.Error.Message, res.Error.Hint)
	}
}

// TestPagingALongLine: a one-line file read with --max-bytes is paged by
// following next (path#bytes=N-): the parts join to the file, each cites
// the bytes it returned and verifies.
func TestPagingALongLine(t *testing.T) {
	ws := testws.New(t)
	whole := strings.Repeat(`{"k":"é\"v"},`, 400)
	ws.Write("one.json", whole)
	root := []string{"--root", ws.Root}
	var joined strings.Builder
	target := "one.json"
	for part := 0; ; part++ {
		if part > 10 {
			t.Fatal("more than 10 parts: next never ends")
		}
		r := contractGet(t, root, []string{target, "--max-bytes", "1500", "--json"})
		data, _ := r.Retrieved.Data.(string)
		if want := fmt.Sprintf("one.json#bytes=%d-%d", joined.Len(), joined.Len()+len(data)-1); r.Citation.Reference != want {
			t.Errorf("part %d: reference %s, want %s", part, r.Citation.Reference, want)
		}
		if v := contractVerify(t, root, r.RetrievalID); v.Status != retrieve.Verified {
			t.Errorf("part %d: verify %s %+v", part, v.Status, v.Error)
		}
		joined.WriteString(data)
		if r.Extraction.Next == nil {
			break
		}
		if !r.Extraction.Truncated || *r.Extraction.Next != fmt.Sprintf("one.json#bytes=%d-", joined.Len()) {
			t.Errorf("part %d: next %s truncated %v", part, *r.Extraction.Next, r.Extraction.Truncated)
		}
		target = *r.Extraction.Next
	}
	if joined.String() != whole {
		t.Errorf("the parts join to %d bytes, want the %d bytes of the file", joined.Len(), len(whole))
	}
}
