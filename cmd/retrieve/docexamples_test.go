package main

import (
	"bytes"
	"context"
	dbsql "database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/internal/tsatest"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
	_ "modernc.org/sqlite"
)

// A docExample is one `retrieve …` command of a fenced code block of
// README.md, SKILL.md, npm/retrieve/README.md or docs/*.md, as a shell would run it.
type docExample struct {
	file  string // the document, relative to the repository
	line  int    // its line in the document
	text  string // the command's words joined by spaces: the key of docNotRun
	args  []string
	stdin string // `< FILE` or `echo '…' |`: the file name, or the echoed text
	echo  bool   // stdin is text, not a file name
	out   string // `> FILE`: stdout goes to this file
}

// docNotRun lists the doc examples the test does not run, each with the
// reason. Every other example runs; an example that is neither run nor
// listed here fails the test, and so does an entry no document has any more.
// Listed examples are still parsed: the command and its flags must exist.
var docNotRun = map[string]string{
	"retrieve serve --http 0.0.0.0:8765": "a server on every interface: blocks, and would listen beyond loopback",
	"retrieve ui":                        "opens a browser where there is a display (its --no-open form runs, see docServers)",
	"retrieve store copy --from .retrieve/retrieve.db --to $RETRIEVE_STORE":                              "the README's RETRIEVE_STORE is a PostgreSQL server on host db: not on loopback (store_test.go copies between real stores)",
	"retrieve store copy --to postgres://retrieve@db.internal/retrieve?sslmode=verify-full":              "a PostgreSQL server on db.internal: not on loopback",
	"retrieve store copy --from postgres://retrieve@db.internal/retrieve --to sqlite://backup.db":        "a PostgreSQL server on db.internal: not on loopback",
	"retrieve --store postgres://retrieve@db-replica.internal/retrieve?sslmode=verify-full verify --all": "a PostgreSQL replica on db-replica.internal: not on loopback",
	"retrieve get sql:app/public.orders?customer=7&number=1001":                                          "a schema-qualified table: the fixture's app connection is SQLite, which has no schema public (sql source tests read schemas on PostgreSQL)",
	"retrieve get sql:app#58e3…#rows=101-":                                                               "a row window of a query hash the page elides: source/sql TestPagingByRowWindow and the contract suite's sql/*-paged rows run it on SQLite, PostgreSQL and MariaDB",
	"retrieve get sql:app#58e3…#rows=101-200":                                                            "a row window of a query hash the page elides: source/sql TestPagingByRowWindow and the contract suite's sql/*-paged rows run it on SQLite, PostgreSQL and MariaDB",
}

// docNeedsEnv lists the examples that run only against a server the
// environment names (on loopback: the network rule); without it they count
// as listed, with this reason. CI sets the variables.
var docNeedsEnv = map[string]string{
	"retrieve get sql:shop --query SELECT * FROM orders WHERE id > ? --param 100 --max-rows 50": "RETRIEVE_TEST_MYSQL",
}

// docRewrites replace what a document shows as a placeholder or a remote
// place with what the fixture has; the values are filled in by the test.
// Each key is replaced in every word of every example.
func docRewrites(srvURL string, ids map[string]string) []string {
	return []string{
		"0192f0c4-…", ids["retrieval"], // an id of the ledger
		"<retrieval_id>", ids["retrieval"],
		"9ecf22fa-…", ids["session"], // a recorded session
		"sha256:…", ids["snapshot"], // a snapshot's hash
		"~/ledger.key", ids["ledgerkey"], // a checkpoint signing key
		"https://tsa.example/tsr", srvURL + "/tsr", // an RFC 3161 timestamp authority: a loopback one
		"git:4f2a9c1:", "git:" + ids["short"] + ":", // a short commit id of the fixture's history
		"/path/to/project", ids["project"],
		"graph:edge/<id>", "graph:edge/" + ids["edge"], // the edge the examples' extraction makes
		// The web: a loopback server serving the same paths, never the named host.
		"https://api.github.com", srvURL,
		"https://api.example.com", srvURL,
		"https://example.com", srvURL,
		"https://go.dev", srvURL,
		"URL1", srvURL + "/page/1",
		"URL2", srvURL + "/page/2",
		"URL3", srvURL + "/page/3",
	}
}

// docWords splits a command line as sh would for the quoting the docs use
// ('…', "…", a backslash), keeps the operators &&, ||, ;, |, <, > as words
// of their own, and drops a # comment.
func docWords(line string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, byte(0)
	flush := func() {
		if in {
			words = append(words, cur.String())
			cur.Reset()
			in = false
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '$' && strings.HasPrefix(line[i:], "$(") && strings.Contains(line[i:], ")"): // $(…): one word
			j := strings.Index(line[i:], ")")
			cur.WriteString(line[i : i+j+1])
			in = true
			i += j
		case c == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
			in = true
		case c == '#' && !in:
			flush()
			return words
		case c == ' ' || c == '\t' || c == '\n':
			flush()
		case c == '<' && docPlaceholder(line[i:]) > 0: // <retrieval_id>: a word
			j := docPlaceholder(line[i:])
			cur.WriteString(line[i : i+j])
			in = true
			i += j - 1
		case c == ';' || c == '<' || c == '>' || c == '|' || c == '&':
			flush()
			op := string(c)
			if i+1 < len(line) && line[i+1] == c && c != ';' && c != '<' {
				op += string(c)
				i++
			}
			words = append(words, op)
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	flush()
	return words
}

// docPlaceholder returns the length of a <name> at the start of s, or 0.
func docPlaceholder(s string) int {
	for j := 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '>':
			if j > 1 {
				return j + 1
			}
			return 0
		case !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'):
			return 0
		}
	}
	return 0
}

// docCommandWord reports whether w can follow "retrieve" in a command (a
// subcommand or a flag), so that prose in a code block such as
// "retrieve (root)  the contract…" is not taken for a command.
func docCommandWord(w string) bool {
	return w != "" && (w[0] == '-' || w[0] >= 'a' && w[0] <= 'z')
}

// docExamples returns the examples of the documents in their order.
func docExamples(t *testing.T, repo string, docs []string) []docExample {
	t.Helper()
	var all []docExample
	for _, doc := range docs {
		b, err := os.ReadFile(filepath.Join(repo, doc))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		fenced := false
		for i := 0; i < len(lines); i++ {
			n := i + 1
			line := strings.TrimSpace(lines[i])
			if strings.HasPrefix(line, "```") {
				fenced = !fenced
				continue
			}
			if !fenced {
				continue
			}
			for strings.HasSuffix(line, "\\") && i+1 < len(lines) { // a continued line
				i++
				line = strings.TrimSuffix(line, "\\") + " " + strings.TrimSpace(lines[i])
			}
			line = strings.TrimPrefix(line, "$ ")
			all = append(all, docSegments(doc, n, docWords(line))...)
		}
	}
	return all
}

// docSegments splits one command line at &&, ||, ; and | and returns its
// retrieve commands, with their redirections and an echo piped in.
func docSegments(doc string, n int, words []string) []docExample {
	var out []docExample
	echoed, piped := "", false
	for len(words) > 0 {
		end := len(words)
		for j, w := range words {
			if w == "&&" || w == "||" || w == ";" || w == "|" {
				end = j
				break
			}
		}
		seg, op := words[:end], ""
		if end < len(words) {
			op = words[end]
			words = words[end+1:]
		} else {
			words = nil
		}
		for len(seg) > 0 && strings.Contains(seg[0], "=") && !strings.HasPrefix(seg[0], "-") {
			seg = seg[1:] // VAR=value before the command
		}
		if len(seg) >= 3 && (seg[0] == "go" && seg[1] == "run" && seg[2] == "./cmd/retrieve" || seg[0] == "npx" && seg[1] == "-y" && seg[2] == "@retrieve-dev/retrieve") {
			seg = append([]string{"retrieve"}, seg[3:]...) // the same binary, built or from npm
		}
		if len(seg) > 1 && seg[0] == "retrieve" && docCommandWord(seg[1]) {
			ex := docExample{file: doc, line: n, text: strings.Join(seg, " ")}
			for j := 1; j < len(seg); j++ {
				switch {
				case seg[j] == ">" && j+1 < len(seg):
					ex.out = seg[j+1]
					j++
				case seg[j] == "<" && j+1 < len(seg):
					ex.stdin = seg[j+1]
					j++
				default:
					ex.args = append(ex.args, seg[j])
				}
			}
			if piped {
				ex.stdin, ex.echo = echoed, true
			}
			out = append(out, ex)
		}
		piped = op == "|" && len(seg) > 1 && seg[0] == "echo"
		if piped {
			echoed = strings.Join(seg[1:], " ") + "\n"
		}
	}
	return out
}

// TestDocExamples runs every `retrieve` command of the fenced code blocks of
// README.md, SKILL.md, npm/retrieve/README.md and docs/*.md (npx -y
// @retrieve-dev/retrieve and go run ./cmd/retrieve taken as retrieve), in the documents' order, as a user
// would in a prepared workspace (a copy of the repository's documents, the
// files the examples name, a git history, a memory, a SQLite database, a
// loopback web server for the URLs): each must exit 0. The ones that cannot
// run here are in docNotRun with their reason, and are still parsed.
func TestDocExamples(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{"README.md", "SKILL.md", "npm/retrieve/README.md"}
	more, _ := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	sort.Strings(more)
	for _, f := range more {
		docs = append(docs, filepath.ToSlash(strings.TrimPrefix(f, repo+string(filepath.Separator))))
	}
	examples := docExamples(t, repo, docs)

	srv, served := docWebServer(t)
	ws, ids := docWorkspace(t, repo, srv.URL)
	mysqlShop := docMySQLShop(t, ws)
	rewrites := strings.NewReplacer(docRewrites(srv.URL, ids)...)

	listed := map[string]bool{}
	ran, twins := 0, 0
	for _, ex := range examples {
		where := fmt.Sprintf("%s:%d: %s", ex.file, ex.line, ex.text)
		args := make([]string, len(ex.args))
		for i, a := range ex.args {
			args[i] = rewrites.Replace(a)
		}
		if env, ok := docNeedsEnv[ex.text]; ok && !mysqlShop {
			if os.Getenv("CI") != "" {
				t.Errorf("%s: %s is unset under CI: this example must run", where, env)
			}
			listed[ex.text] = true
			t.Logf("%s: not run: %s is unset or not on loopback", where, env)
			if err := docParses(args, true); err != nil {
				t.Errorf("%s: does not parse: %v", where, err)
			}
			continue
		}
		if reason, ok := docNotRun[ex.text]; ok {
			listed[ex.text] = true
			if err := docParses(args, true); err != nil {
				t.Errorf("%s (not run: %s): does not parse: %v", where, reason, err)
			}
			continue
		}
		var in []byte
		switch {
		case ex.echo:
			in = []byte(ex.stdin)
		case ex.stdin != "":
			if in, err = os.ReadFile(filepath.Join(ws.Root, ex.stdin)); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
		}
		if addr, ok := docServers[ex.text]; ok {
			docRunServer(t, where, docFreePort(args, addr))
			ran++
			continue
		}
		if why := docUnsafe(args, srv.URL); why != "" {
			t.Errorf("%s: not run: %s; rewrite it to the fixture (docRewrites) or list it in docNotRun with the reason", where, why)
			continue
		}
		if len(args) > 1 && args[0] == "mcp" && args[1] == "install" {
			docFreshClients(t, ws)
		}
		var out, errOut bytes.Buffer
		code := run(context.Background(), &Streams{In: bytes.NewReader(in), Out: &out, ErrOut: &errOut}, args)
		if code != ExitOK && !testws.Cgo && os.Getenv("CI") != "true" && strings.Contains(errOut.String(), "C parser runtime") {
			t.Logf("%s: needs cgo: a tree-sitter language, which this build cannot parse", where)
			continue
		}
		if code != ExitOK {
			t.Errorf("%s: exit %d\n  stderr: %s\n  stdout: %.2000s", where, code, errOut.String(), out.String())
		}
		if cmd, _, _ := newRootCmd(&Streams{}).Find(args); code == ExitOK && cmd.Name() == "get" && slices.Contains(args, "--json") {
			dec := json.NewDecoder(bytes.NewReader(out.Bytes()))
			for dec.More() { // one result, or one per line for several targets
				var v json.RawMessage
				if err := dec.Decode(&v); err != nil {
					t.Fatalf("%s: output is not JSON: %v", where, err)
				}
				contracttest.Check(t, v)
			}
		}
		if ex.out != "" {
			ws.Write(ex.out, out.String())
		}
		ran++
		if code == ExitOK && !slices.Contains(args, "--json") {
			twins += docTwin(t, where, args, in, out.Bytes())
		}
	}
	for text := range docNeedsEnv {
		if !listed[text] && !mysqlShop {
			t.Errorf("docNeedsEnv lists %q, which no document shows any more: remove it", text)
		}
	}
	for text := range docNotRun {
		if !listed[text] {
			t.Errorf("docNotRun lists %q, which no document shows any more: remove it", text)
		}
	}
	if served.Load() < 10 {
		t.Errorf("the web examples made %d requests to the fixture server", served.Load())
	}
	if ran < 100 {
		t.Errorf("only %d doc examples ran", ran)
	}
	if twins < 40 {
		t.Errorf("only %d examples compared in YAML and JSON", twins)
	}
	t.Logf("%d doc examples ran, %d listed as not run, %d compared in YAML and JSON", ran, len(listed), twins)

	// Every citation form docs/CONTRACT.md lists resolves through `retrieve
	// get` in the workspace the examples built, and its citation.reference
	// resolves again to the same hash (README: retrieve get "$(reference)").
	t.Run("CitationForms", func(t *testing.T) {
		contract, err := os.ReadFile(filepath.Join(repo, "docs", "CONTRACT.md"))
		if err != nil {
			t.Fatal(err)
		}
		forms := map[string]string{ // a form as CONTRACT.md writes it → a target of that form here
			"`path:START-END`":                    "README.md:1-5",
			"`git:<rev>:<path>[:START-END]`":      "git:v1.2.0:docs/guide.md:1-3",
			"URLs":                                srv.URL + "/doc/effective_go",
			"`sql:…`":                             "sql:app/users?id=42",
			"`memory:…`":                          "memory:semantic/flask-jinja2-templating.md",
			"`wiki:…`":                            "wiki:entity/memory-leak",
			"`graph:node/<name or id>`":           "graph:node/memory leak",
			"`graph:edge/<id>`":                   "graph:edge/" + ids["edge"],
			"`doc:<doc_id>[#<chunk_id>]`":         "doc:doc_001#doc_001_chunk_000",
			"`graph:node/<name or id>` (an id)":   "graph:node/" + graph.NodeID("memory leak"),
			"`doc:<doc_id>[#<chunk_id>]` (whole)": "doc:doc_001",
		}
		for form, target := range forms {
			if f, _, _ := strings.Cut(form, " ("); !strings.Contains(string(contract), f) {
				t.Errorf("docs/CONTRACT.md no longer lists %s: update this table", f)
			}
			first := docResolve(t, target)
			if first == nil {
				continue
			}
			again := docResolve(t, first.Citation.Reference)
			if again != nil && *again.Citation.Hash != *first.Citation.Hash {
				t.Errorf("%s: its reference %s resolves to other data", target, first.Citation.Reference)
			}
		}
	})
}

// docResolve gets target in the working directory and returns the result,
// or nil after reporting the failure.
func docResolve(t *testing.T, target string) *retrieve.Result {
	t.Helper()
	out, errOut, code := runCLI(t, "get", target, "--json", "--no-record")
	if code != ExitOK {
		t.Errorf("retrieve get %s: exit %d %s", target, code, errOut)
		return nil
	}
	var res retrieve.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Citation.Hash == nil {
		t.Errorf("retrieve get %s: %v\n%s", target, err, out)
		return nil
	}
	return &res
}

// docNoTwin lists the commands whose examples are not run a second time
// with --json to compare the keys of their YAML and JSON outputs: a second
// run would not print the same kind of output (it writes, and a second write
// is refused or does something else). Their output goes through writeYAML
// like every other (TestYAMLOnlyThroughJSON).
var docNoTwin = map[string]string{
	"retrieve init":              "writes the configuration",
	"retrieve memory init":       "creates the memory folder",
	"retrieve memory create":     "a second note would be created",
	"retrieve wiki write":        "writes a page",
	"retrieve graph ingest":      "a second ingest of a doc id adds nothing",
	"retrieve graph import":      "imports again",
	"retrieve graph ask":         "--file-back files the answer into the wiki",
	"retrieve mcp install":       "writes client configuration files; a second install writes nothing",
	"retrieve gc":                "deletes",
	"retrieve ledger keygen":     "a second keygen refuses to overwrite the key",
	"retrieve ledger checkpoint": "prints the signed note, not a document",
	"retrieve store migrate":     "migrates",
	"retrieve hook":              "appends to a session journal; prints nothing",
	"retrieve serve":             "serves MCP on stdio, not a document",
	"retrieve snapshot":          "prints the snapshot's bytes, not a document",
	"retrieve cite":              "prints a citation in Markdown, not a document",
	"retrieve version":           "--json is tested in version_test.go",
}

// docTwin runs an example that printed YAML again with --json and reports
// a difference between the keys of the two outputs (a Go type without
// json-named YAML keys printed docid for doc_id). It returns 1 when it
// compared them.
func docTwin(t *testing.T, where string, args []string, in, yamlOut []byte) int {
	t.Helper()
	cmd, _, err := newRootCmd(&Streams{}).Find(args)
	if err != nil {
		return 0
	}
	for c := cmd; c != nil; c = c.Parent() {
		if _, ok := docNoTwin[c.CommandPath()]; ok {
			return 0
		}
	}
	var fromYAML any
	if err := yaml.Unmarshal(yamlOut, &fromYAML); err != nil {
		return 0 // a table or text, not a document
	}
	if _, ok := fromYAML.(string); ok || fromYAML == nil {
		return 0
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), &Streams{In: bytes.NewReader(in), Out: &out, ErrOut: &errOut}, append(slices.Clone(args), "--json")); code != ExitOK {
		t.Errorf("%s --json: exit %d %s", where, code, errOut.String())
		return 0
	}
	var fromJSON any
	dec := json.NewDecoder(&out)
	if err := dec.Decode(&fromJSON); err != nil {
		t.Errorf("%s --json: not JSON: %v", where, err)
		return 0
	}
	y, j := map[string]bool{}, map[string]bool{}
	docKeys(fromYAML, y)
	docKeys(fromJSON, j)
	var onlyY, onlyJ []string
	for k := range y {
		if !j[k] {
			onlyY = append(onlyY, k)
		}
	}
	for k := range j {
		if !y[k] {
			onlyJ = append(onlyJ, k)
		}
	}
	if len(onlyY)+len(onlyJ) > 0 {
		sort.Strings(onlyY)
		sort.Strings(onlyJ)
		t.Errorf("%s: YAML and JSON keys differ: only in YAML %v, only in JSON %v", where, onlyY, onlyJ)
	}
	return 1
}

// docKeys collects the keys of every mapping in v.
func docKeys(v any, into map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			into[k] = true
			docKeys(x, into)
		}
	case []any:
		for _, x := range v {
			docKeys(x, into)
		}
	}
}

// docServers are the server examples the test runs, on a free loopback
// port instead of the documented one (another process may hold it): each is
// started, asked for a page once it says where it listens, and stopped.
var docServers = map[string]string{
	"retrieve serve --http 127.0.0.1:8765":        "127.0.0.1:8765",
	"retrieve ui --addr 127.0.0.1:8766 --no-open": "127.0.0.1:8766",
}

// docFreePort replaces the documented address with 127.0.0.1:0.
func docFreePort(args []string, addr string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		if a == addr {
			out[i] = "127.0.0.1:0"
		}
	}
	return out
}

// lockedBuffer is a bytes.Buffer a server goroutine writes while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// docRunServer runs a server example until it prints its loopback URL, gets
// that URL (the review pages, or /healthz of the API), then cancels it: it
// must answer 200 and stop with exit 0.
func docRunServer(t *testing.T, where string, args []string) {
	t.Helper()
	if !slices.Contains(args, "127.0.0.1:0") {
		t.Errorf("%s: not on a free loopback port: %v", where, args)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut lockedBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, &Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, args) }()
	ui := regexp.MustCompile(`retrieve ui: (http://127\.0\.0\.1:[0-9]+/ui/)`)
	api := regexp.MustCompile(`(http://127\.0\.0\.1:[0-9]+)/v1/`)
	var page string
	for wait := time.Now().Add(30 * time.Second); page == "" && time.Now().Before(wait); time.Sleep(20 * time.Millisecond) {
		select {
		case code := <-done:
			t.Errorf("%s: the server exited (%d) before listening: %s", where, code, errOut.String())
			return
		default:
		}
		if m := ui.FindStringSubmatch(out.String()); m != nil {
			page = m[1]
		} else if m := api.FindStringSubmatch(errOut.String()); m != nil {
			page = m[1] + "/healthz"
		}
	}
	if page == "" {
		t.Errorf("%s: the server did not say where it listens: %s %s", where, out.String(), errOut.String())
		return
	}
	resp, err := http.Get(page)
	if err != nil {
		t.Errorf("%s: GET %s: %v", where, page, err)
	} else {
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: GET %s: %s", where, page, resp.Status)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("%s: stopped with exit %d: %s", where, code, errOut.String())
		}
	case <-time.After(30 * time.Second):
		t.Errorf("%s: the server did not stop when canceled", where)
	}
}

// docUnsafe says why an example must not run here: it names a place off
// loopback (the network rule: tests reach loopback only) or starts a
// server that blocks. Empty when it may run.
func docUnsafe(args []string, srvURL string) string {
	for _, a := range args {
		if i := strings.Index(a, "://"); i > 0 && !strings.HasPrefix(a, srvURL) && !strings.HasPrefix(a, "sqlite://") {
			return "it names " + a + ", not the loopback fixture server"
		}
	}
	cmd, _, err := newRootCmd(&Streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}).Find(args)
	if err == nil && (cmd.Name() == "ui" || cmd.Name() == "serve" && slices.ContainsFunc(args, func(a string) bool {
		return a == "--http" || strings.HasPrefix(a, "--http=")
	})) {
		return "a server that blocks until stopped"
	}
	return ""
}

// docParses reports whether args name a command of the CLI and flags it
// has, without running it; whole commands (not only names) also have the
// arguments their command takes.
func docParses(args []string, whole bool) error {
	root := newRootCmd(&Streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	root.InitDefaultVersionFlag()
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	cmd.InitDefaultHelpFlag()
	if err := cmd.ParseFlags(rest); err != nil && !errors.Is(err, pflag.ErrHelp) &&
		(whole || !strings.HasPrefix(err.Error(), "flag needs an argument")) {
		return err
	}
	if whole && cmd.Args != nil {
		return cmd.Args(cmd, cmd.Flags().Args())
	}
	return nil
}

// docWebServer serves the pages the web examples name, on loopback.
func docWebServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	article := `<html><head><title>Effective Go</title></head><body><article>
<h1>Effective Go</h1>
<h2>Introduction</h2><p>Go is a new language. Although it borrows ideas from existing languages, it has unusual properties that make effective Go programs different in character from programs written in its relatives.</p>
<h2>Names</h2><p>Names are as important in Go as in any other language. They even have semantic effect: the visibility of a name outside a package is determined by whether its first character is upper case.</p>
<h2>Semicolons</h2><p>Like C, Go's formal grammar uses semicolons to terminate statements, but unlike in C, those semicolons do not appear in the source.</p>
</article></body></html>`
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", http.NotFound)
	page := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		fmt.Fprint(w, article)
	}
	mux.HandleFunc("/doc/effective_go", page)
	mux.HandleFunc("/post", page)
	mux.HandleFunc("/page", page)
	mux.HandleFunc("/page/", page)
	mux.Handle("/tsr", tsatest.New(t).Handler()) // ledger witness's timestamp authority
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"items": [{"id": 1, "name": "first"}, {"id": 2, "name": "second"}]}`)
	})
	// A paged JSON API: three pages linked by Link: rel="next", behind a
	// bearer token taken from the environment.
	api := func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer doc-example-token") {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		p := r.URL.Query().Get("page")
		if p == "" {
			p = "1"
		}
		if p != "3" {
			next := map[string]string{"1": "2", "2": "3"}[p]
			w.Header().Set("Link", fmt.Sprintf(`<http://%s%s?page=%s>; rel="next"`, r.Host, r.URL.Path, next))
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `[{"id": %s1, "title": "item %s.1"}, {"id": %s2, "title": "item %s.2"}]`, p, p, p, p)
	}
	mux.HandleFunc("/items", api)
	mux.HandleFunc("/repos/golang/go/issues", api)
	var served atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &served
}

// docWorkspace prepares the workspace the examples run in and makes it the
// working directory, as a user runs them in their project. It returns the
// values docRewrites puts in place of the documents' placeholders.
func docWorkspace(t *testing.T, repo, srvURL string) (*testws.Workspace, map[string]string) {
	t.Helper()
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "CODEX_HOME": "", "APPDATA": "",
		"CLAUDE_PROJECT_DIR": "", "RETRIEVE_STORE": "", "RETRIEVE_TOKEN": "",
		"TOKEN": "doc-example-token", "GITHUB_TOKEN": "doc-example-token",
	} {
		t.Setenv(k, v)
	}
	ws := testws.New(t)
	// The repository's own documents, which examples read (README.md's
	// sections, docs/CONTRACT.md's "Errors").
	for _, f := range []string{"README.md", "SKILL.md", "docs/CONTRACT.md"} {
		b, err := os.ReadFile(filepath.Join(repo, f))
		if err != nil {
			t.Fatal(err)
		}
		ws.Write(f, string(b))
	}
	var guide strings.Builder
	guide.WriteString("# Guide\n\n## Install\n\nDownload the archive for your system.\n\n### Linux\n\nUnpack it into /usr/local/bin.\n\n### macOS\n\nUse Homebrew.\n\n## Use\n\n")
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&guide, "Step %d of using it.\n", i)
	}
	ws.Write("docs/guide.md", guide.String())
	ws.Write("config/app.yaml", "database:\n  host: 127.0.0.1\n  name: app\n")
	ws.Write("config.json", `{"name": "demo", "dependencies": {"left-pad": "1.3.0"}}`+"\n")
	ws.Write("package.json", `{"name": "demo", "dependencies": {"left-pad": "1.3.0"}}`+"\n")
	ws.Write("config/database.yml", "production:\n  adapter: postgresql\n  pool: 5\n")
	ws.Write("big.log", strings.Repeat("2025-01-20T10:00:00Z INFO a line of the log, long enough to count\n", 3000))
	ws.Write("image.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	ws.Write("store.go", "package store\n\n// Version is the schema version.\nconst Version = 3\n\n// TestOpen opens a store.\nfunc TestOpen() {}\n\n// TestClose closes it.\nfunc TestClose() {}\n\nfunc open() {}\n")
	ws.Write("a.md", "# A\n\nalpha\n")
	ws.Write("b.md", "# B\n\nbeta\n")
	// Documents (README, docs/documents.md).
	nb := `{"nbformat": 4, "metadata": {}, "cells": [{"cell_type": "markdown", "source": "# Analysis\nWe load the data."},
 {"cell_type": "code", "source": "load()\nfit()", "outputs": []},
 {"cell_type": "markdown", "source": "## Plot\nThe plot shows it:\nthe trend is clear\nand steady."}]}`
	ws.Write("nb.ipynb", nb)
	ws.Write("analysis.ipynb", nb)
	ws.Write("page.html", `<html><body><article><h1>Guide</h1><p>The guide's first paragraph, long enough to be the main content.</p><h2>Install</h2><p class="note">Run the installer.</p></article></body></html>`)
	ws.Write("events.jsonl", "{\"event\": \"start\"}\n{\"event\": \"load\"}\n{\"event\": \"stop\"}\n")
	var pages []string
	for p := 1; p <= 4; p++ {
		var lines []string
		for l := 1; l <= 12; l++ {
			lines = append(lines, fmt.Sprintf("Line %d of page %d of the report.", l, p))
		}
		if p == 2 {
			lines[4] = "The study shows that every citation is checkable again."
		}
		pages = append(pages, strings.Join(lines, "\n"))
	}
	ws.Write("report.pdf", string(testws.MinimalPDF(pages...)))
	paras := []string{"Introduction"}
	for i := 2; i <= 14; i++ {
		paras = append(paras, fmt.Sprintf("Paragraph %d of the document.", i))
	}
	ws.Write("doc.docx", string(testws.MinimalDOCX(paras...)))
	ws.Write("deck.pptx", string(testws.MinimalPPTX("Welcome\nThe first slide.", "Numbers\nRevenue is up this quarter.")))
	rows := [][]string{{"Name", "Amount", "Note"}}
	for i := 2; i <= 40; i++ {
		rows = append(rows, []string{fmt.Sprintf("item %d", i), strconv.Itoa(i * 10), "ok"})
	}
	ws.Write("book.xlsx", string(testws.MinimalXLSX("Sheet1", rows...)))
	ws.Write("book.epub", string(testws.MinimalEPUB("Chapter One\nIt begins.", "Chapter Two\nIt goes on.", "Chapter Three\nIt ends.")))
	ws.Write("notes.md", "# Flask Jinja2 templating\n\nFlask renders templates with Jinja2.\n\n## Filters\n\nJinja2 filters change a value: {{ name|upper }}.\nA filter is a function of the value.\nCustom filters are registered on the app.\n\n## Macros\n\nMacros are reusable template parts.\n")
	ws.Write("src/models/user.ts", `// A user of the application.
export interface UserData {
  id: number;
  name: string;
}

/** User is a stored user. */
export class User {
  constructor(private data: UserData) {}

  /** save writes the user to the store. */
  save(): void {
    console.log("saving", this.data.id);
  }
}
`)
	ws.Write("internal/shapes/shapes.ts", "export class Circle {\n  area(): number { return 1; }\n}\n")
	ws.Write("notes/incident.md", "Incident report: a memory leak in the cache service causes a system crash after a few hours under load.\n")
	ws.Write("text.txt", "Incident report: a memory leak in the cache service causes a system crash after a few hours under load.\n")
	x := `{"entities":[{"name":"Memory Leak","type":"bug","supporting_text":"a memory leak"},{"name":"System Crash","type":"event","supporting_text":"a system crash"}],
"relations":[{"source":"memory leak","target":"system crash","type":"causes","confidence":0.9,"supporting_text":"a memory leak in the cache service causes a system crash"}]}`
	ws.Write("x.json", x)
	ws.Write("urls.txt", fmt.Sprintf("# pages\n%s/page/1\n%s/data.json\n", srvURL, srvURL))
	ws.Write(".retrieve/config.yaml", "web:\n  allow_hosts: [127.0.0.1]\nconnections:\n  app:\n    driver: sqlite\n    dsn: data/app.db\n")

	// A history: v1.2.0, then three commits, so that HEAD~3 and a short id resolve.
	first := ws.InitGit()
	ws.Git("tag", "v1.2.0")
	for i := 1; i <= 3; i++ {
		ws.Write("CHANGES.md", fmt.Sprintf("change %d\n", i))
		ws.Commit(fmt.Sprintf("change %d", i))
	}
	t.Chdir(ws.Root)

	// The SQLite database of the app connection.
	docSQLite(t, filepath.Join(ws.Root, "data", "app.db"))

	ids := map[string]string{"short": first[:7], "project": t.TempDir(),
		"edge": graph.EdgeID(&graph.Edge{Source: graph.NodeID("memory leak"), Target: graph.NodeID("system crash"), Type: "causes"})}
	// A retrieval, its snapshot, and an answer that cites it.
	out, errOut, code := runCLI(t, "get", "README.md:1-20", "--json")
	if code != ExitOK {
		t.Fatalf("get: exit %d %s", code, errOut)
	}
	var res struct {
		RetrievalID string `json:"retrieval_id"`
		Citation    struct {
			SourceHash string `json:"source_hash"`
		} `json:"citation"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	ids["retrieval"], ids["snapshot"] = res.RetrievalID, res.Citation.SourceHash
	cite, errOut, code := runCLI(t, "cite", res.RetrievalID)
	if code != ExitOK {
		t.Fatalf("cite: exit %d %s", code, errOut)
	}
	ws.Write("answer.md", "# Why crashes\n\nThe README opens with the project's name "+strings.TrimSpace(cite)+".\n")

	saved, errOut, code := runCLI(t, "get", "notes/incident.md", "--json")
	if code != ExitOK {
		t.Fatalf("get: exit %d %s", code, errOut)
	}
	ws.Write("saved-get-result.json", saved)

	// A recorded agent session.
	ids["session"] = "9ecf22fa-7c1d-4e55-9a0b-2f1c3d4e5f60"
	ids["ledgerkey"] = filepath.Join(t.TempDir(), "ledger.key") // outside the workspace, as the README says
	ids["tsa"] = tsatest.New(t).Serve(t)                        // never a real authority
	read, _ := json.Marshal(map[string]any{"session_id": ids["session"], "host": "doc-agent", "event": "read",
		"path": "a.md", "start_line": 1, "end_line": 3, "content": "# A\n\nalpha\n"})
	var o, e bytes.Buffer
	if code := run(context.Background(), &Streams{In: bytes.NewReader(read), Out: &o, ErrOut: &e}, []string{"hook", "json"}); code != ExitOK {
		t.Fatalf("hook json: exit %d %s", code, e.String())
	}

	// A mini-context-graph project beside the workspace, as `graph export`
	// writes it, for `graph import ../mini-context-graph-project`.
	other := testws.New(t)
	other.Write("notes/incident.md", "Incident report: a memory leak in the cache service causes a system crash after a few hours under load.\n")
	xp := other.Write("x.json", x)
	for _, args := range [][]string{
		{"graph", "ingest", "--doc-id", "doc_009", "--file", "notes/incident.md", "--extraction", xp},
		{"graph", "export", filepath.Join(filepath.Dir(ws.Root), "mini-context-graph-project")},
	} {
		if _, errOut, code := runCLI(t, append([]string{"--root", other.Root}, args...)...); code != ExitOK {
			t.Fatalf("%v: exit %d %s", args, code, errOut)
		}
	}
	return ws, ids
}

// docSQLite writes the app connection's database: the users the sql examples read.
func docSQLite(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := dbsql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{
		"CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, email TEXT, team TEXT, active BOOLEAN, deleted_at TIMESTAMP)",
		"INSERT INTO users VALUES (42, 'Ada', 'ada@example.org', 'core', 1, NULL), (43, 'Jürgen', 'jürgen@example.org', 'core', 1, NULL), (44, 'Bob', 'bob@example.org', 'web', 0, '2024-01-01 10:00:00')",
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
}

// docFreshClients removes the MCP clients' configuration files before an
// `mcp install` example: the documents list one line per client or scope as
// alternatives, each a first installation (a second install of the same
// entry is refused without --force, as it should be).
func docFreshClients(t *testing.T, ws *testws.Workspace) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	for _, f := range []string{".mcp.json", ".cursor", ".vscode", ".codex", ".claude", ".gemini", ".zed"} {
		if err := os.RemoveAll(filepath.Join(ws.Root, f)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDocInlineCommands: the commands named in the prose of the documents
// (`retrieve log --op observe`) exist with the flags they show. They are
// parsed, not run; a span with a placeholder alternative (`show ID | verify
// ID`) or an ellipsis is left out.
func TestDocInlineCommands(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	docs = append(docs, filepath.Join(repo, "README.md"), filepath.Join(repo, "SKILL.md"))
	span := regexp.MustCompile("`(retrieve [^`]+)`")
	checked := 0
	for _, f := range docs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range span.FindAllStringSubmatch(string(b), -1) {
			words := docWords(m[1])
			if len(words) < 2 || !docCommandWord(words[1]) || strings.Contains(m[1], "…") || slices.ContainsFunc(words, func(w string) bool {
				return w == "|" || w == "\\|" || w == "<" || w == ">" || strings.HasSuffix(w, ":")
			}) {
				continue
			}
			if err := docParses(words[1:], false); err != nil {
				t.Errorf("%s: `%s`: %v", filepath.Base(f), m[1], err)
			}
			checked++
		}
	}
	if checked < 50 {
		t.Errorf("only %d inline commands checked", checked)
	}
	t.Logf("%d inline commands parsed", checked)
}

// docMySQLShop adds the shop connection of docs/sql.md on the MariaDB/MySQL
// server RETRIEVE_TEST_MYSQL names, when it is set and on loopback, with
// its orders table; it reports whether it did.
func docMySQLShop(t *testing.T, ws *testws.Workspace) bool {
	t.Helper()
	dsn := os.Getenv("RETRIEVE_TEST_MYSQL")
	if dsn == "" || !strings.Contains(dsn, "(127.0.0.1:") && !strings.Contains(dsn, "(localhost:") && !strings.Contains(dsn, "([::1]:") {
		return false
	}
	db, err := dbsql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE TABLE IF NOT EXISTS orders (id INT PRIMARY KEY, customer INT, number INT)",
		"INSERT IGNORE INTO orders VALUES (101, 7, 1001), (102, 7, 1002), (99, 8, 999)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	cfg, err := os.ReadFile(filepath.Join(ws.Root, ".retrieve", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ws.Write(".retrieve/config.yaml", string(cfg)+"  shop:\n    driver: mysql\n    dsn: "+strconv.Quote(dsn)+"\n")
	return true
}
