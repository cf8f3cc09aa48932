package check_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/check"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/ops/opstest"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var update = flag.Bool("update", false, "rewrite the golden outputs in testdata/")

// workspace is a temp workspace with an engine that records (so
// retrieval:<id> citations resolve): opstest's, with the files below.
func workspace(t testing.TB) (*testws.Workspace, *engine.Engine) {
	t.Helper()
	env := opstest.New(t)
	env.WS.Write("notes.txt", "alpha beta\ngamma delta\nepsilon\nzeta eta\n")
	env.WS.Write("guide.md", "# Guide\n\nStep one: install.\nStep two: run.\n")
	env.WS.Write(".env", "TOKEN=do-not-leak\n")
	return env.WS, env.Deps.Engine
}

// forms are the citation forms of every source `retrieve serve` registers.
func forms(t testing.TB) check.Forms {
	t.Helper()
	return check.Forms{Registry: opstest.New(t).Deps.Engine.Registry()}
}

func hashOf(t testing.TB, eng *engine.Engine, ref string) string {
	t.Helper()
	res, err := eng.Retrieve(context.Background(), retrieve.Request{Target: ref, NoRecord: true})
	if err != nil {
		t.Fatal(err)
	}
	return *res.Citation.Hash
}

// doc is a document with one citation of every kind and outcome; %s are
// filled with real hashes and a retrieval id.
const doc = `# Findings

The notes start with "alpha beta" [notes.txt:1](notes.txt:1).
The guide: [guide.md:3-4](guide.md:3-4 "%s").
A stale hash: [notes.txt:1-2](notes.txt:1-2 "sha256:0000000000000000000000000000000000000000000000000000000000000000").
A fabricated quote: "alpha omega" [notes.txt:1-2](notes.txt:1-2).
Two ranges joined: "delta epsilon" [notes.txt:2,3](notes.txt:2,3) — loosely only.
A secret [.env:1](.env:1) and outside [../x.txt:1](../x.txt:1).
Missing: [nope.md:1-2](nope.md:1-2). A plain link [home](https://example.invalid/) is no citation.
As recorded, "zeta" [^r].

> Step two: run.

— [guide.md:4](guide.md:4)

[^r]: retrieval:%s %s
`

func fill(t testing.TB, eng *engine.Engine) []byte {
	t.Helper()
	res, err := eng.Retrieve(context.Background(), retrieve.Request{Target: "notes.txt:4"})
	if err != nil {
		t.Fatal(err)
	}
	return []byte(fmt.Sprintf(doc, hashOf(t, eng, "guide.md:3-4"), res.RetrievalID, *res.Citation.Hash))
}

func TestCheck(t *testing.T) {
	_, eng := workspace(t)
	src := fill(t, eng)
	r, err := (&check.Checker{Engine: eng}).Check(context.Background(), "findings.md", src)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, f := range r.Findings {
		got = append(got, fmt.Sprintf("%d %s %s %s %s", f.Line, f.Reference, f.Status, f.Rule, f.Code))
	}
	want := []string{
		"3 notes.txt:1 ok  ",
		"4 guide.md:3-4 ok  ",
		"5 notes.txt:1-2 failed citation-hash-mismatch CHANGED",
		"6 notes.txt:1-2 failed citation-quote-not-found QUOTE_NOT_FOUND",
		"7 notes.txt:2,3 failed citation-quote-not-found QUOTE_NOT_FOUND",
		"8 .env:1 refused citation-refused SENSITIVE_PATH",
		"8 ../x.txt:1 refused citation-refused OUTSIDE_ROOT",
		"9 nope.md:1-2 failed citation-unresolved PATH_NOT_FOUND",
		"10 retrieval:" + r.Findings[8].Reference[len("retrieval:"):] + " ok  ",
		"14 guide.md:4 ok  ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r.OK != 4 || r.Failed != 4 || r.Refused != 2 || r.Passed() {
		t.Fatalf("counts ok=%d failed=%d refused=%d", r.OK, r.Failed, r.Refused)
	}
	if q := r.Findings[9].Quote; q != "Step two: run." {
		t.Fatalf("blockquote quote = %q", q)
	}
	// The quotation spanning two cited ranges is in the joined data, not in
	// either range: with --loose (whitespace) the check says so.
	loose, _ := (&check.Checker{Engine: eng, Loose: true}).Check(context.Background(), "findings.md", src)
	if f := loose.Findings[4]; !strings.Contains(f.Reason, "spans two cited ranges") {
		t.Fatalf("spanning quote: %+v", f)
	}
}

// A retrieval whose source changed since it was recorded fails; the file
// edited after the citation was written makes its hash fail too.
func TestCheckChanged(t *testing.T) {
	ws, eng := workspace(t)
	res, err := eng.Retrieve(context.Background(), retrieve.Request{Target: "notes.txt:1-2"})
	if err != nil {
		t.Fatal(err)
	}
	src := []byte(fmt.Sprintf("Seen [r](retrieval:%s) and [n](notes.txt:1-2 %q).\n", res.RetrievalID, *res.Citation.Hash))
	c := &check.Checker{Engine: eng}
	if r, _ := c.Check(context.Background(), "a.md", src); !r.Passed() {
		t.Fatalf("before the edit: %+v", r.Findings)
	}
	ws.Write("notes.txt", "alpha beta\nGAMMA\n")
	r, _ := c.Check(context.Background(), "a.md", src)
	if r.Failed != 2 || r.Findings[0].Rule != check.RuleChanged || r.Findings[1].Rule != check.RuleHash {
		t.Fatalf("after the edit: %+v", r.Findings)
	}
}

// Thousands of citations: every one is checked (the same reference is read
// once), with progress.
func TestCheckMany(t *testing.T) {
	_, eng := workspace(t)
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "Item %d: \"gamma delta\" [notes.txt:2](notes.txt:2).\n\n", i)
	}
	calls := 0
	c := &check.Checker{Engine: eng, Workers: 4, Progress: func(done, total int) { calls++ }}
	r, err := c.Check(context.Background(), "many.md", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if r.Citations != 3000 || r.OK != 3000 || calls != 3000 {
		t.Fatalf("citations=%d ok=%d progress calls=%d", r.Citations, r.OK, calls)
	}
}

func TestParseForms(t *testing.T) {
	src := "A [plain](docs/guide.md) link, [web](https://x.invalid/) and [frag](https://x.invalid/p#:~:text=hello) and [g](git:abc123:README.md:1-2).\n\n" +
		"Curly “quoted text” ([a.md:1](a.md:1)) then *[em](b.md:2-3)*.\n\n" +
		"Mail [m](mailto:a@b.c) and [anchor](#top) and [^x] and [^none].\n\n" +
		"[^x]: c.md:4 sha256:" + strings.Repeat("ab", 32) + "\n"
	var got []string
	for _, c := range forms(t).Parse([]byte(src)) {
		got = append(got, fmt.Sprintf("%s|%s|%s|%q", c.Form, c.Reference, c.Hash, c.Quote))
	}
	want := []string{
		`link|https://x.invalid/p#:~:text=hello||""`,
		`link|git:abc123:README.md:1-2||""`,
		`link|a.md:1||"quoted text"`,
		`link|b.md:2-3||""`,
		`footnote|c.md:4|sha256:` + strings.Repeat("ab", 32) + `|""`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseCSL(t *testing.T) {
	src := `[{"id": "r1", "type": "dataset", "URL": "retrieval:0192f0c4", "note": "notes.txt:1-2 sha256:` + strings.Repeat("0", 64) + `"}, {"id": "x", "URL": "https://x.invalid/"}]`
	cits := forms(t).Parse([]byte(src))
	if len(cits) != 1 || cits[0].Form != check.FormCSL || cits[0].Reference != "retrieval:0192f0c4" || cits[0].Hash != "sha256:"+strings.Repeat("0", 64) {
		t.Fatalf("cits = %+v", cits)
	}
}

// goldenReport is a fixed report, so that the golden outputs do not
// depend on temp paths or hashes.
func goldenReport() *check.Report {
	r := &check.Report{Document: "docs/answer.md", Citations: 3, OK: 1, Failed: 1, Refused: 1}
	r.Findings = []check.Finding{
		{Citation: check.Citation{Index: 1, Line: 3, Column: 5, Form: check.FormLink, Reference: "notes.txt:1-2", Quote: "alpha beta"}, Status: check.StatusOK, CurrentHash: "sha256:" + strings.Repeat("1", 64)},
		{Citation: check.Citation{Index: 2, Line: 7, Column: 12, Form: check.FormFootnote, Label: "2", Reference: "notes.txt:2", Quote: "gamma <omega> & \"co\""}, Status: check.StatusFailed,
			Rule: check.RuleQuote, Code: "QUOTE_NOT_FOUND", Reason: `the quoted text "gamma <omega> & \"co\"" is not in notes.txt:2`, Hint: "quote the source verbatim"},
		{Citation: check.Citation{Index: 3, Line: 9, Column: 1, Form: check.FormLink, Reference: ".env:1"}, Status: check.StatusRefused,
			Rule: check.RuleRefused, Code: "SENSITIVE_PATH", Reason: "refused: path is on the deny list: .env", Hint: "it is never read"},
	}
	return r
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (go test ./check -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs (go test ./check -update rewrites it); got:\n%s", p, got)
	}
}

// The SARIF output is valid SARIF 2.1.0: validated against the OASIS
// schema vendored in testdata (its licence beside it).
func TestSARIFGolden(t *testing.T) {
	var b bytes.Buffer
	if err := check.WriteSARIF(&b, goldenReport(), "1.2.3"); err != nil {
		t.Fatal(err)
	}
	golden(t, "golden.sarif", b.Bytes())
	f, err := os.Open("testdata/sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif-schema-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("the SARIF output is not valid SARIF 2.1.0: %v", err)
	}
	// The validator is not vacuous: a log without its version fails.
	var m map[string]any
	_ = json.Unmarshal(b.Bytes(), &m)
	delete(m, "version")
	bad, _ := json.Marshal(m)
	inst, _ = jsonschema.UnmarshalJSON(bytes.NewReader(bad))
	if schema.Validate(inst) == nil {
		t.Fatal("a SARIF log without version validated")
	}
	if n := len(m["runs"].([]any)[0].(map[string]any)["results"].([]any)); n != 2 {
		t.Fatalf("%d results, want the 2 failing citations", n)
	}
}

// JUnit XML as CI systems read it. The checks follow the JUnit schema of
// Ant/Jenkins (junit-10.xsd): <testsuites> holds <testsuite name tests
// failures errors skipped>, each <testcase name classname> holds at most
// one <failure message type>, and the counts agree with the cases.
func TestJUnitGolden(t *testing.T) {
	var b bytes.Buffer
	if err := check.WriteJUnit(&b, goldenReport()); err != nil {
		t.Fatal(err)
	}
	golden(t, "golden.junit.xml", b.Bytes())
	if err := validateJUnit(b.Bytes()); err != nil {
		t.Fatal(err)
	}
	if validateJUnit([]byte(`<testsuites><testsuite name="x" tests="2" failures="0" errors="0" skipped="0"><testcase name="a" classname="c"/></testsuite></testsuites>`)) == nil {
		t.Fatal("a suite whose tests count is wrong validated")
	}
}

func validateJUnit(b []byte) error {
	type failure struct {
		Message *string `xml:"message,attr"`
		Type    *string `xml:"type,attr"`
	}
	type testcase struct {
		Name      *string   `xml:"name,attr"`
		Classname *string   `xml:"classname,attr"`
		Failures  []failure `xml:"failure"`
		Errors    []failure `xml:"error"`
	}
	type suite struct {
		Name     *string    `xml:"name,attr"`
		Tests    *int       `xml:"tests,attr"`
		Failures *int       `xml:"failures,attr"`
		Errors   *int       `xml:"errors,attr"`
		Skipped  *int       `xml:"skipped,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	var doc struct {
		XMLName xml.Name `xml:"testsuites"`
		Suites  []suite  `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("not JUnit XML: %v", err)
	}
	if len(doc.Suites) == 0 {
		return fmt.Errorf("no testsuite")
	}
	for _, s := range doc.Suites {
		if s.Name == nil || s.Tests == nil || s.Failures == nil || s.Errors == nil || s.Skipped == nil {
			return fmt.Errorf("a testsuite lacks a required attribute")
		}
		fails := 0
		for _, c := range s.Cases {
			if c.Name == nil || c.Classname == nil {
				return fmt.Errorf("a testcase lacks name or classname")
			}
			if len(c.Failures)+len(c.Errors) > 1 {
				return fmt.Errorf("testcase %s has several failures", *c.Name)
			}
			for _, f := range c.Failures {
				if f.Message == nil || f.Type == nil {
					return fmt.Errorf("a failure lacks message or type")
				}
				fails++
			}
		}
		if *s.Tests != len(s.Cases) || *s.Failures != fails {
			return fmt.Errorf("suite %s: tests=%d failures=%d, but %d cases and %d failures", *s.Name, *s.Tests, *s.Failures, len(s.Cases), fails)
		}
	}
	return nil
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(doc))
	f.Add([]byte("> q\n> — [a:1](a:1)\n"))
	f.Add([]byte("\"x\" [^1]\n\n[^1]: a.md:1 sha256:00\n"))
	f.Add([]byte(`[{"URL": "retrieval:x", "note": "a b"}]`))
	f.Add([]byte("“a” [b.md:1-2](b.md:1-2 \"sha256:zz\")"))
	fm := forms(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, c := range fm.Parse(src) {
			if c.Reference == "" || c.Line < 1 || c.Column < 1 || c.Index < 1 {
				t.Fatalf("bad citation %+v", c)
			}
			if !fm.IsCitation(c.Reference, true) {
				t.Fatalf("citation %q is no citation form", c.Reference)
			}
		}
	})
}

// BenchmarkCheck1000 checks a document of 1,000 citations (a quotation
// and a hash each) and reports citations per second: "shared" cites 100
// spans ten times each (each span is read once per run), "distinct" cites
// 1,000 different spans, the baseline of one retrieval per citation.
func BenchmarkCheck1000(b *testing.B) {
	ws, eng := workspace(b)
	for i := range 100 {
		var f strings.Builder
		for l := range 10 {
			fmt.Fprintf(&f, "file %d line %d\n", i, l+1)
		}
		ws.Write(fmt.Sprintf("docs/f%03d.md", i), f.String())
	}
	for _, c := range []struct {
		name string
		span func(i int) (file, line int)
	}{
		{"shared", func(i int) (int, int) { return i % 100, 3 }},
		{"distinct", func(i int) (int, int) { return i / 10, i%10 + 1 }},
	} {
		var d strings.Builder
		for i := range 1000 {
			file, line := c.span(i)
			ref := fmt.Sprintf("docs/f%03d.md:%d", file, line)
			fmt.Fprintf(&d, "Claim %d: \"file %d line %d\" [%s](%s %q).\n\n", i, file, line, ref, ref, hashOf(b, eng, ref))
		}
		src := []byte(d.String())
		b.Run(c.name, func(b *testing.B) {
			ch := &check.Checker{Engine: eng}
			for b.Loop() {
				r, err := ch.Check(context.Background(), "bench.md", src)
				if err != nil || r.OK != 1000 {
					b.Fatalf("ok=%d err=%v", r.OK, err)
				}
			}
			b.ReportMetric(float64(1000*b.N)/b.Elapsed().Seconds(), "citations/s")
		})
	}
}
