package main

import (
	"bytes"
	"context"
	"crypto/rand"
	dbsql "database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	_ "modernc.org/sqlite"
)

// suiteRow is one row of the contract suite: a source kind and a
// constraint, as data. Paths, URLs and names in it hold placeholders that
// each run replaces, so that every (row, transport, store) has its own
// files, pages, tables, notes and documents in a shared workspace:
//
//	{d}  the row's folder in the workspace (rows/<row>)
//	{u}  the row's base URL on the suite's web server
//	{a}  the same on the listener whose host api.headers names
//	{t}  the row's SQL table
//	{id} a name of the row's own (memory notes, wiki titles, graph doc ids)
type suiteRow struct {
	name string
	// needs names the environment variable a row's connection needs
	// (RETRIEVE_TEST_POSTGRES, RETRIEVE_TEST_MYSQL): without it the row is
	// skipped with a message (CI sets both).
	needs string
	// once runs the row on the first transport and store only: its input
	// is heavy and what it tests is the engine's, not the transport's.
	once  bool
	setup []suiteFix
	req   suiteReq
	// ref is the citation.reference expected (a prefix when it ends with
	// '*').
	ref string
	// again are the options kept when a reference or next part is
	// retrieved again (the source kind, a binary format); the target is
	// replaced.
	again suiteReq
	// sameAnchor: one of the evidence anchors at least is a target that
	// gives the same hash (a readable anchor of selected data).
	sameAnchor bool
	// page: follow extraction.next to the end; the parts join to whole
	// (when set) and each verifies. cut: the first part must be cut.
	page, cut bool
	whole     string
	// change alters the source; seen is a text the diff of verify shows.
	change []suiteFix
	seen   string
	// immutable: the citation names a revision the change cannot touch
	// (git:<sha>:…), verify stays verified.
	immutable bool
	// gone makes the source unreachable (a file deleted, a page gone, a
	// record deleted): verify then says unavailable, with the error code
	// goneCode.
	gone     []suiteFix
	goneCode retrieve.Code
	// gap names a known product gap another branch fixes: with
	// RETRIEVE_CONTRACT_KNOWN_GAPS=1 the row is skipped with this text;
	// otherwise it runs (and fails until the fix lands).
	gap string
}

// suiteFix prepares or changes what a row reads.
type suiteFix func(t *testing.T, e *suiteEnv, x *strings.Replacer)

// fFile writes a workspace file (path with placeholders; content as is).
func fFile(path, content string) suiteFix {
	return func(t *testing.T, e *suiteEnv, x *strings.Replacer) {
		p := filepath.Join(e.root, filepath.FromSlash(x.Replace(path)))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fRemove deletes a workspace file.
func fRemove(path string) suiteFix {
	return func(t *testing.T, e *suiteEnv, x *strings.Replacer) {
		if err := os.Remove(filepath.Join(e.root, filepath.FromSlash(x.Replace(path)))); err != nil {
			t.Fatal(err)
		}
	}
}

// fCommit writes a file and commits it.
func fCommit(path, content string) suiteFix {
	return func(t *testing.T, e *suiteEnv, x *strings.Replacer) {
		fFile(path, content)(t, e, x)
		e.gitMu.Lock()
		defer e.gitMu.Unlock()
		testws.GitIn(t, e.root, "add", "--", x.Replace(path))
		testws.GitIn(t, e.root, "commit", "-q", "-m", "suite: "+x.Replace(path))
	}
}

// fPage serves a page at {u}/name (and {a}/name).
func fPage(name string, p suitePage) suiteFix {
	return func(t *testing.T, e *suiteEnv, x *strings.Replacer) {
		q := p
		if q.Next != "" {
			q.Next = x.Replace("{p}/" + q.Next)
		}
		e.web.set(x.Replace("{p}/"+name), q)
	}
}

// fNoPage makes {u}/name answer 404.
func fNoPage(name string) suiteFix {
	return func(t *testing.T, e *suiteEnv, x *strings.Replacer) {
		e.web.mu.Lock()
		defer e.web.mu.Unlock()
		delete(e.web.pages, x.Replace("{p}/"+name))
	}
}

// fSQL runs a statement (with placeholders) on a connection of the
// workspace's config.
func fSQL(conn string, stmts ...string) suiteFix {
	return func(t *testing.T, e *suiteEnv, x *strings.Replacer) {
		db := e.db(t, conn)
		for _, s := range stmts {
			if _, err := db.Exec(x.Replace(s)); err != nil {
				t.Fatalf("%s: %s: %v", conn, x.Replace(s), err)
			}
		}
	}
}

// fCLI runs a retrieve command (arguments with placeholders) that must
// succeed: writing a wiki page, ingesting a graph document.
func fCLI(args ...string) suiteFix {
	return func(t *testing.T, e *suiteEnv, x *strings.Replacer) {
		c := &cliTransport{root: e.root, env: e.environ}
		cmd := make([]string, len(args), len(args)+1)
		for i, a := range args {
			cmd[i] = x.Replace(a)
		}
		out := c.run(t, append(cmd, "--json")...)
		var env struct {
			Error *retrieve.ErrorInfo `json:"error"`
		}
		if json.Unmarshal(out, &env) == nil && env.Error != nil {
			t.Fatalf("retrieve %q: %s: %s", cmd, env.Error.Code, env.Error.Message)
		}
	}
}

// suiteEnv is one transport on one store: a workspace, its server when the
// transport has one, and the databases its rows change.
type suiteEnv struct {
	name  string // cli/sqlite
	id    string // cli-sqlite
	root  string
	web   *suiteWeb
	tr    suiteTransport
	run   string // a random suffix for the names on shared databases
	gitMu sync.Mutex
	// environ is what every process of the env gets (the token's
	// variable); token is its value, which no output may hold.
	environ []string
	token   string
	mu      sync.Mutex
	dbs     map[string]*dbsql.DB
}

// suiteConns are the SQL connections of the suite: name → driver, the
// environment variable of its DSN ("" for the workspace's SQLite file).
var suiteConns = map[string][2]string{
	"app":   {"sqlite", ""},
	"pg":    {"pgx", "RETRIEVE_TEST_POSTGRES"},
	"maria": {"mysql", "RETRIEVE_TEST_MYSQL"},
}

func (e *suiteEnv) db(t *testing.T, conn string) *dbsql.DB {
	e.mu.Lock()
	defer e.mu.Unlock()
	if db := e.dbs[conn]; db != nil {
		return db
	}
	c := suiteConns[conn]
	// The servers read the file while rows write it.
	dsn := "file:" + filepath.Join(e.root, "app.db") + "?_pragma=busy_timeout(10000)"
	if c[1] != "" {
		dsn = os.Getenv(c[1])
	}
	db, err := dbsql.Open(c[0], dsn)
	if err != nil {
		t.Fatal(err)
	}
	e.dbs[conn] = db
	return db
}

// replacer gives a row's placeholders their values in this env.
func (e *suiteEnv) replacer(row string) *strings.Replacer {
	slug := strings.NewReplacer("/", "-", "_", "-").Replace(row)
	id := e.id + "-" + slug
	prefix := "/" + e.id + "/" + slug
	return strings.NewReplacer(
		"{d}", "rows/"+slug,
		"{u}", e.web.main+prefix,
		"{a}", e.web.auth+prefix,
		"{p}", prefix,
		"{t}", "s28_"+e.run+"_"+strings.ReplaceAll(id, "-", "_"),
		"{id}", id,
	)
}

// newSuiteEnv makes the workspace of a transport on a store and starts its
// server.
func newSuiteEnv(t *testing.T, transport, storeKind string, web *suiteWeb, token string) *suiteEnv {
	var b [3]byte
	_, _ = rand.Read(b[:])
	e := &suiteEnv{name: transport + "/" + storeKind, id: transport + "-" + storeKind, web: web, run: hex.EncodeToString(b[:]),
		environ: []string{"SUITE_TOKEN=" + token}, token: token, dbs: map[string]*dbsql.DB{}}
	ws := testws.New(t)
	e.root = ws.Root
	// Registered first, run last (after the servers stop): the header's
	// secret is in no file of the store.
	t.Cleanup(func() { assertNoSecret(t, filepath.Join(e.root, ".retrieve"), token) })
	var cfg strings.Builder
	if storeKind == "postgres" {
		fmt.Fprintf(&cfg, "store: %q\n", pgtest.URL(t, "suite28"))
	}
	cfg.WriteString("connections:\n  app:\n    driver: sqlite\n    dsn: app.db\n")
	if dsn := os.Getenv("RETRIEVE_TEST_POSTGRES"); dsn != "" {
		fmt.Fprintf(&cfg, "  pg:\n    driver: postgres\n    dsn: %q\n", dsn)
	}
	if dsn := os.Getenv("RETRIEVE_TEST_MYSQL"); dsn != "" {
		fmt.Fprintf(&cfg, "  maria:\n    driver: mysql\n    dsn: %q\n", dsn)
	}
	fmt.Fprintf(&cfg, "web:\n  allow_hosts: [127.0.0.1]\n  rate: -1\napi:\n  headers:\n    %q:\n      Authorization: \"Bearer ${env:SUITE_TOKEN}\"\n",
		strings.TrimPrefix(web.auth, "http://"))
	ws.Write(".retrieve/config.yaml", cfg.String())
	ws.Write("memory/semantic/.keep", "")
	ws.Write("rows/.keep", "")
	ws.InitGit()
	t.Cleanup(func() {
		for _, db := range e.dbs {
			_ = db.Close()
		}
	})
	switch transport {
	case "cli":
		e.tr = &cliTransport{root: e.root, env: e.environ}
	case "mcp-stdio":
		e.tr = toolTransport{call: startMCPStdio(t, e.root, e.environ).tool}
	case "http", "mcp-http":
		base, _ := startHTTP(t, e.root, e.environ, "--http", "127.0.0.1:0")
		if transport == "http" {
			e.tr = toolTransport{call: httpPost(base)}
			break
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "contract-suite", Version: "1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		e.tr = toolTransport{call: mcpSDKTool(cs)}
	}
	return e
}

// suiteTransports and suiteStores are the matrix's columns.
var (
	suiteTransports = []string{"cli", "mcp-stdio", "http", "mcp-http"}
	suiteStores     = []string{"sqlite", "postgres"}
)

// TestContractSuite is the end-to-end contract (issue 28), table-driven
// over source kind × constraint (suiteRows) × transport (the CLI as a
// process, MCP over stdio, the HTTP JSON API, MCP over streamable HTTP) ×
// store (SQLite; PostgreSQL with RETRIEVE_TEST_POSTGRES). Every row:
// retrieve → re-retrieve citation.reference and its target anchors (the
// same hash) → verify (verified) → page through a cut result (the parts
// join to the whole, each verifies) → change the source → verify (changed,
// with the diff of what was cited). A new source or constraint is a new
// row (docs/CONTRACT.md, "The contract suite").
func TestContractSuite(t *testing.T) {
	token := randomToken(t)
	web := &suiteWeb{pages: map[string]*suitePage{}, token: token}
	main, auth := httptest.NewServer(web), httptest.NewServer(web)
	defer main.Close()
	defer auth.Close()
	web.main, web.auth = main.URL, auth.URL
	rows := suiteRows()
	first := true
	stores, transports := suiteStores, suiteTransports
	if testing.Short() {
		// -short (CI's -race pass): the servers, where rows run
		// concurrently, on SQLite; the full pass runs the whole matrix.
		stores, transports = stores[:1], []string{"mcp-stdio", "http"}
	}
	for _, st := range stores {
		for _, tr := range transports {
			once := first
			first = false
			t.Run(tr+"/"+st, func(t *testing.T) {
				if st == "postgres" {
					pgtest.BaseURL(t)
				}
				e := newSuiteEnv(t, tr, st, web, token)
				for _, row := range rows {
					if row.once && (!once || testing.Short()) {
						continue // heavy, and the engine's: once per full run
					}
					t.Run(row.name, func(t *testing.T) {
						t.Parallel()
						runSuiteRow(t, e, row)
					})
				}
			})
		}
	}
}

func randomToken(t *testing.T) string {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

// runSuiteRow runs the steps of the contract for one row in one env.
func runSuiteRow(t *testing.T, e *suiteEnv, row suiteRow) {
	if row.gap != "" && os.Getenv("RETRIEVE_CONTRACT_KNOWN_GAPS") == "1" {
		t.Skip("known gap: " + row.gap)
	}
	if usesJQ(row.req) {
		skipUnderRace(t)
	}
	if row.needs != "" && os.Getenv(row.needs) == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is unset under CI", row.needs)
		}
		t.Skipf("%s is unset: the row needs that database (CI sets it)", row.needs)
	}
	x := e.replacer(row.name)
	req := expandReq(row.req, x)
	if why := e.tr.unsupported(req); why != "" {
		t.Skip(why)
	}
	for _, f := range row.setup {
		f(t, e, x)
	}
	again := func(target string) suiteReq {
		r := expandReq(row.again, x)
		r.Target = target
		return r
	}

	first := suiteGet(t, e, req)
	ref := first.Citation.Reference
	t.Logf("reference %s, anchors %q, next %v", ref, first.EvidenceAnchors, first.Extraction.Next)
	if want, prefix := strings.CutSuffix(x.Replace(row.ref), "*"); (prefix && !strings.HasPrefix(ref, want)) || (!prefix && ref != want) {
		t.Errorf("reference %s, want %s", ref, x.Replace(row.ref))
	}
	if r := suiteGet(t, e, again(ref)); *r.Citation.Hash != *first.Citation.Hash {
		t.Errorf("re-retrieving the reference %s gives hash %s, want %s\n data %.300v\n want %.300v", ref, *r.Citation.Hash, *first.Citation.Hash, r.Retrieved.Data, first.Retrieved.Data)
	}
	checkAnchors(t, e, row, first, again)
	if v := suiteVerify(t, e, first.RetrievalID); v.Status != retrieve.Verified {
		t.Errorf("verify before the change: %s %+v %v", v.Status, v.Error, v.Notes)
	}
	if row.cut && (!first.Extraction.Truncated || first.Extraction.Next == nil) {
		t.Errorf("the first part is not cut with a next part: truncated %v, next %v", first.Extraction.Truncated, first.Extraction.Next)
	}
	if row.page {
		pageThrough(t, e, row, first, again)
	}
	if len(row.change) == 0 {
		return
	}
	for _, f := range row.change {
		f(t, e, x)
	}
	v := suiteVerify(t, e, first.RetrievalID)
	switch {
	case row.immutable && v.Status != retrieve.Verified:
		t.Errorf("verify of a pinned revision after a change: %s %+v, want verified", v.Status, v.Error)
	case !row.immutable && (v.Status != retrieve.Changed || !strings.Contains(v.Diff, row.seen)):
		t.Errorf("verify after the change: %s %+v, diff %q; want changed with %q", v.Status, v.Error, v.Diff, row.seen)
	}
	if len(row.gone) == 0 {
		return
	}
	for _, f := range row.gone {
		f(t, e, x)
	}
	if v := suiteVerify(t, e, first.RetrievalID); v.Status != retrieve.Unavailable || v.Error == nil || v.Error.Code != row.goneCode || v.Error.Message == "" {
		t.Errorf("verify of a source that is gone: %s %+v; want unavailable with %s and the reason", v.Status, v.Error, row.goneCode)
	}
}

// suiteVerify verifies a recorded retrieval; the verification must not
// hold the header's secret.
func suiteVerify(t *testing.T, e *suiteEnv, id string) *retrieve.Verification {
	t.Helper()
	v := e.tr.verify(t, id)
	if b, _ := json.Marshal(v); bytes.Contains(b, []byte(e.token)) {
		t.Errorf("verify %s: the verification holds the value of ${env:SUITE_TOKEN}", id)
	}
	return v
}

// assertNoSecret fails when a file under dir holds secret.
func assertNoSecret(t *testing.T, dir, secret string) {
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds the value of ${env:SUITE_TOKEN}", p)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// usesJQ says whether r runs a jq expression (a --select on anything but
// HTML, where it is a CSS selector): jq runs in a sandboxed child process
// that cannot start under the race detector (skipUnderRace).
func usesJQ(r suiteReq) bool {
	return r.Select != "" && !strings.HasSuffix(r.Target, ".html")
}

// suiteGet retrieves r, checks the result against the schema and fails on
// an error envelope or a result without hash or ledger entry.
func suiteGet(t *testing.T, e *suiteEnv, r suiteReq) *retrieve.Result {
	t.Helper()
	res, raw := e.tr.get(t, r)
	contracttest.Check(t, raw)
	if bytes.Contains(raw, []byte(e.token)) {
		t.Errorf("get %s: the result holds the value of ${env:SUITE_TOKEN}", r.Target)
	}
	if res.Error != nil {
		t.Fatalf("get %s: %s: %s (hint: %s)", r.Target, res.Error.Code, res.Error.Message, res.Error.Hint)
	}
	if res.Citation.Hash == nil || res.RetrievalID == "" {
		t.Fatalf("get %s: no hash or no ledger entry", r.Target)
	}
	return res
}

// checkAnchors re-retrieves the evidence anchors documented as targets
// (line spans, byte ranges, documents' parts): each is accepted, and when
// they are all spans of the cited text, or all parts of a document, their
// data joins to it. With sameAnchor, one of them gives the cited hash.
func checkAnchors(t *testing.T, e *suiteEnv, row suiteRow, first *retrieve.Result, again func(string) suiteReq) {
	t.Helper()
	var joined strings.Builder
	kinds := map[string]bool{}
	same := false
	for _, a := range first.EvidenceAnchors {
		if strings.Contains(a, "#sha256=") || strings.Contains(a, "#:~:text=") {
			kinds["other"] = true // a page's digest, a browser's highlight: not targets (docs/web.md)
			continue
		}
		r := suiteGet(t, e, again(a))
		kinds[anchorKind(a)] = true
		joined.WriteString(partData(t, r))
		same = same || *r.Citation.Hash == *first.Citation.Hash
	}
	if row.sameAnchor && !same {
		t.Errorf("no evidence anchor of %q is a target that gives the cited hash %s", first.EvidenceAnchors, *first.Citation.Hash)
	}
	s, text := first.Retrieved.Data.(string)
	if text && len(kinds) == 1 && !kinds["other"] && first.Retrieved.Format != "binary" && joined.String() != s {
		t.Errorf("the anchors %q join to %q, want the cited %q", first.EvidenceAnchors, joined.String(), s)
	}
}

// anchorKind is "span" for a line span (path:N-M, report.pdf#page=2:3-4)
// or a byte range (#bytes=), "part" for a document's part (#page=2 with or
// without its box, #cell=3), "other" for the rest (a whole path).
func anchorKind(a string) string {
	if strings.Contains(a, "#bytes=") {
		return "span"
	}
	if i := strings.LastIndexByte(a, ':'); i >= 0 {
		lo, hi, ok := strings.Cut(a[i+1:], "-")
		digits := func(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
		if ok && digits(lo) && digits(hi) {
			return "span"
		}
	}
	for _, kind := range []string{"#page=", "#cell=", "#para=", "#slide=", "#chapter=", "#record="} {
		if strings.Contains(a, kind) {
			return "part"
		}
	}
	return "other"
}

// partData is a part's data as bytes in a string: the text, or the bytes
// of base64 binary data.
func partData(t *testing.T, r *retrieve.Result) string {
	t.Helper()
	if rows, ok := r.Retrieved.Data.([]any); ok {
		// Rows (a paged SQL query): one JSON line each, keys sorted.
		var b strings.Builder
		for _, row := range rows {
			line, err := json.Marshal(row)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		return b.String()
	}
	s, _ := r.Retrieved.Data.(string)
	if r.Retrieved.Format == "binary" && s != "" {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			t.Fatalf("binary data that is not base64: %v", err)
		}
		return string(b)
	}
	return s
}

// pageThrough follows next from first to the end: each part verifies and
// the parts join to the whole.
func pageThrough(t *testing.T, e *suiteEnv, row suiteRow, first *retrieve.Result, again func(string) suiteReq) {
	t.Helper()
	var joined strings.Builder
	joined.WriteString(partData(t, first))
	r := first
	for part := 1; r.Extraction.Next != nil; part++ {
		if part > 200 {
			t.Fatal("more than 200 parts: next never ends")
		}
		next := *r.Extraction.Next
		r = suiteGet(t, e, again(next))
		if r.Citation.Reference == next && r.Extraction.Next != nil && *r.Extraction.Next == next {
			t.Fatalf("part %d: next names itself (%s)", part, next)
		}
		if v := suiteVerify(t, e, r.RetrievalID); v.Status != retrieve.Verified {
			t.Errorf("part %d (%s): verify %s %+v", part, r.Citation.Reference, v.Status, v.Error)
		}
		joined.WriteString(partData(t, r))
	}
	if r.Extraction.Truncated && r.Extraction.Next == nil {
		t.Errorf("the last part %s is cut (truncated) and names no next part", r.Citation.Reference)
	}
	if row.whole != "" && joined.String() != row.whole {
		t.Errorf("the parts join to %d bytes, want the %d bytes of the whole (%.80q…)", joined.Len(), len(row.whole), joined.String())
	}
}

// expandReq replaces the placeholders of every string of r.
func expandReq(r suiteReq, x *strings.Replacer) suiteReq {
	r.Target, r.Source, r.Lines, r.Bytes = x.Replace(r.Target), x.Replace(r.Source), x.Replace(r.Lines), x.Replace(r.Bytes)
	r.Select, r.Pages, r.Query, r.Header = x.Replace(r.Select), x.Replace(r.Pages), x.Replace(r.Query), x.Replace(r.Header)
	r.Sections = slices.Clone(r.Sections)
	for i := range r.Sections {
		r.Sections[i] = x.Replace(r.Sections[i])
	}
	return r
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
