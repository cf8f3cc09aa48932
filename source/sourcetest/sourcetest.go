// Package sourcetest is the suite every source passes (DESIGN.md: one
// contract for every source). A source's test builds a Fixture — the
// source, a few targets it retrieves, one it refuses, and a secret planted
// where the source can reach it — and calls Run:
//
//	func TestContract(t *testing.T) {
//		sourcetest.Run(t, func(t *testing.T) sourcetest.Fixture {
//			ws := testws.New(t)
//			ws.Write("a.md", "# A\n")
//			…
//			return sourcetest.Fixture{Source: src, Targets: []string{"a.md"}, …}
//		})
//	}
//
// Each rule of the contract is one subtest. Besides the rules of one
// retrieval, the suite holds what a source only shows among the others:
// its references are recognised wherever a reference goes (the registry,
// check, the servers' schema and the pages' filter, which it builds over
// the engine under test as the servers do), every Body is closed, it
// serves concurrent retrievals, and its line spans round-trip.
package sourcetest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/check"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/ops"
)

// Fixture is one source under test and the targets that exercise it.
type Fixture struct {
	// Source is the source under test.
	Source retrieve.Source
	// Others are further sources the engine needs (a git source cites
	// through the file source); they are registered after Source.
	Others []retrieve.Source
	// Targets are references the source retrieves successfully, without
	// naming the source: each must go to Source by its scheme or as a
	// workspace path. At least one.
	Targets []string
	// Missing is a target of the source that does not exist, and
	// MissingCode the code the source answers it with.
	Missing     string
	MissingCode retrieve.Code
	// Secret is a value planted where the source can reach it (a
	// credential in a header or a connection, a deny-listed file); no
	// result of SecretTargets, success or failure, may contain it.
	Secret        string
	SecretTargets []string
}

// Run runs the contract rules against the fixtures newFixture builds (one
// fresh fixture per rule).
func Run(t *testing.T, newFixture func(t *testing.T) Fixture) {
	t.Helper()
	t.Run("Resolve", func(t *testing.T) { testResolve(t, newFixture(t)) })
	t.Run("ReferenceRoundTrip", func(t *testing.T) { testRoundTrip(t, newFixture(t)) })
	t.Run("HashOfReturnedBytes", func(t *testing.T) { testHash(t, newFixture(t)) })
	t.Run("TypedErrors", func(t *testing.T) { testErrors(t, newFixture(t)) })
	t.Run("ContextCancellation", func(t *testing.T) { testCancel(t, newFixture(t)) })
	t.Run("NoSecretInResults", func(t *testing.T) { testSecret(t, newFixture(t)) })
	t.Run("ReferencesRecognised", func(t *testing.T) { testRecognised(t, newFixture(t)) })
	t.Run("BodyClosed", func(t *testing.T) { testBodyClosed(t, newFixture(t)) })
	t.Run("ConcurrentFetch", func(t *testing.T) { testConcurrent(t, newFixture(t)) })
	t.Run("LineSpansRoundTrip", func(t *testing.T) { testSpans(t, newFixture(t)) })
}

func newEngine(t *testing.T, f Fixture) *engine.Engine {
	t.Helper()
	return engineOf(t, f, f.Source)
}

// engineOf is an engine with src in the place of the fixture's source.
func engineOf(t *testing.T, f Fixture, src retrieve.Source) *engine.Engine {
	t.Helper()
	if f.Source == nil || len(f.Targets) == 0 {
		t.Fatal("the fixture needs a Source and at least one Target")
	}
	e, err := engine.New(engine.Options{Sources: append([]retrieve.Source{src}, f.Others...)})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// get retrieves req and checks the envelope against the published schema,
// whatever happens.
func get(t *testing.T, e *engine.Engine, ctx context.Context, req retrieve.Request) (*retrieve.Result, error) {
	t.Helper()
	res, err := e.Retrieve(ctx, req)
	if res == nil {
		t.Fatalf("Retrieve(%s) returned no result (err %v): the failure envelope is always returned", req.Target, err)
	}
	contracttest.Check(t, res)
	return res, err
}

func mustGet(t *testing.T, e *engine.Engine, target string) *retrieve.Result {
	t.Helper()
	res, err := get(t, e, context.Background(), retrieve.Request{Target: target})
	if err != nil {
		t.Fatalf("Retrieve(%s): %v", target, err)
	}
	return res
}

// testResolve: every target goes to the source under test without naming
// it, and the source kind is the provenance's source type.
func testResolve(t *testing.T, f Fixture) {
	e := newEngine(t, f)
	kind := f.Source.Kind()
	if kind == "" {
		t.Fatal("Kind() is empty")
	}
	for _, target := range f.Targets {
		src, err := e.Registry().Resolve(&retrieve.Request{Target: target})
		if err != nil || src != f.Source {
			t.Errorf("Resolve(%s) = %v, %v; want the %s source", target, src, err, kind)
			continue
		}
		if res := mustGet(t, e, target); res.Provenance.SourceType != kind {
			t.Errorf("%s: provenance.source_type = %q, want %q", target, res.Provenance.SourceType, kind)
		}
	}
}

// testRoundTrip: the citation's reference retrieves the same bytes again
// and cites itself.
func testRoundTrip(t *testing.T, f Fixture) {
	e := newEngine(t, f)
	for _, target := range f.Targets {
		first := mustGet(t, e, target)
		ref := first.Citation.Reference
		if ref == "" || first.Citation.Hash == nil {
			t.Errorf("%s: reference %q, hash %v: a successful result cites both", target, ref, first.Citation.Hash)
			continue
		}
		again := mustGet(t, e, ref)
		if again.Citation.Hash == nil || *again.Citation.Hash != *first.Citation.Hash {
			t.Errorf("%s: the reference %s retrieves other bytes (hash %v, was %s)", target, ref, again.Citation.Hash, *first.Citation.Hash)
		}
		if again.Citation.Reference != ref {
			t.Errorf("%s: the reference %s cites itself as %s", target, ref, again.Citation.Reference)
		}
	}
}

// testHash: citation.hash is the hash of exactly the returned data.
func testHash(t *testing.T, f Fixture) {
	e := newEngine(t, f)
	for _, target := range f.Targets {
		res := mustGet(t, e, target)
		want, err := retrieve.HashData(res.Retrieved.Data)
		if err != nil {
			t.Fatal(err)
		}
		if res.Citation.Hash == nil || *res.Citation.Hash != want {
			t.Errorf("%s: citation.hash %v, the returned data hashes to %s", target, res.Citation.Hash, want)
		}
	}
}

// testErrors: a missing target is the source's typed error with a hint,
// in the failure envelope; Fetch never returns both a document and an error.
func testErrors(t *testing.T, f Fixture) {
	e := newEngine(t, f)
	if f.Missing == "" || f.MissingCode == "" {
		t.Fatal("the fixture needs Missing and MissingCode")
	}
	res, err := get(t, e, context.Background(), retrieve.Request{Target: f.Missing})
	var ae *retrieve.Error
	if err == nil {
		t.Fatalf("Retrieve(%s) succeeded, want %s", f.Missing, f.MissingCode)
	}
	ae = retrieve.AsError(err)
	if ae.Code != f.MissingCode || ae.Hint == "" {
		t.Errorf("Retrieve(%s) = %s %q (hint %q), want %s with a hint", f.Missing, ae.Code, ae.Message, ae.Hint, f.MissingCode)
	}
	if res.Error == nil || res.Error.Code != f.MissingCode || res.Retrieved.Complete || res.Retrieved.Data != nil {
		t.Errorf("failure envelope: error %+v, complete %v, data %v", res.Error, res.Retrieved.Complete, res.Retrieved.Data)
	}
	doc, err := f.Source.Fetch(context.Background(), &retrieve.Request{Target: f.Missing, Source: f.Source.Kind()})
	if doc != nil {
		if doc.Body != nil {
			doc.Body.Close()
		}
		t.Errorf("Fetch(%s) returned a document with error %v", f.Missing, err)
	}
}

// testCancel: a canceled retrieval fails with CANCELED and returns no data.
func testCancel(t *testing.T, f Fixture) {
	e := newEngine(t, f)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, target := range f.Targets {
		res, err := get(t, e, ctx, retrieve.Request{Target: target})
		if err == nil {
			t.Errorf("Retrieve(%s) with a canceled context succeeded", target)
			continue
		}
		if ae := retrieve.AsError(err); ae.Code != retrieve.CodeCanceled {
			t.Errorf("Retrieve(%s) with a canceled context = %s %q, want CANCELED", target, ae.Code, ae.Message)
		}
		if res.Retrieved.Data != nil {
			t.Errorf("Retrieve(%s) with a canceled context returned data", target)
		}
	}
}

// testSecret: the planted secret shows in no result and no error.
func testSecret(t *testing.T, f Fixture) {
	e := newEngine(t, f)
	if f.Secret == "" || len(f.SecretTargets) == 0 {
		t.Fatal("the fixture needs a Secret and SecretTargets that reach it")
	}
	for _, target := range f.SecretTargets {
		res, err := get(t, e, context.Background(), retrieve.Request{Target: target})
		b, jerr := json.Marshal(res)
		if jerr != nil {
			t.Fatal(jerr)
		}
		if strings.Contains(string(b), f.Secret) {
			t.Errorf("the result of %s holds the secret: %s", target, b)
		}
		if err != nil && strings.Contains(err.Error()+retrieve.AsError(err).Hint, f.Secret) {
			t.Errorf("the error of %s holds the secret: %v", target, err)
		}
	}
}

// testRecognised: every reference form a result gives (citation.reference
// and evidence_anchors) goes back to the source wherever a reference goes,
// with nothing to list but the registry: the registry parses it back to
// the source, check takes it for a citation and checks it, and the kind is
// in the request schema's source enum and the pages' source filter (both
// built from the registry by ops.Core, as every server builds them).
func testRecognised(t *testing.T, f Fixture) {
	e := newEngine(t, f)
	reg := e.Registry()
	kind := f.Source.Kind()
	table := ops.Core(ops.Deps{Engine: e})
	if enum := sourceEnum(t, table); !slices.Contains(enum, kind) {
		t.Errorf("the retrieve schema's source enum %v lacks %q", enum, kind)
	}
	if !slices.Contains(table.Kinds, kind) {
		t.Errorf("the pages' source filter %v lacks %q", table.Kinds, kind)
	}
	forms := check.Forms{Registry: reg}
	checker := &check.Checker{Engine: e, Workers: 1}
	for _, target := range f.Targets {
		res := mustGet(t, e, target)
		refs := append([]string{res.Citation.Reference}, res.EvidenceAnchors...)
		for _, ref := range refs {
			if strings.Contains(ref, "#bytes=") {
				continue // a byte range anchors a span; it is not a target (docs/CONTRACT.md)
			}
			src, parsed, ok := reg.Recognize(ref)
			if !ok || src.Kind() != kind {
				t.Errorf("%s: the registry does not take %s back to the %s source (got %v, %v)", target, ref, kind, src, ok)
				continue
			}
			if back := parsed.String(); back != ref {
				t.Errorf("%s: the registry parses %s as %+v, which formats as %s", target, ref, parsed, back)
			}
			if !forms.IsCitation(ref, true) {
				t.Errorf("%s: check does not take %s for a citation", target, ref)
			}
		}
		ref, hash := res.Citation.Reference, *res.Citation.Hash
		doc := fmt.Sprintf("A claim [cited](%s %q).\n", ref, hash)
		rep, err := checker.Check(context.Background(), "answer.md", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Citations != 1 || !rep.Passed() {
			t.Errorf("%s: check of a document citing %s with its hash: %d citations, findings %+v; want 1, ok", target, ref, rep.Citations, rep.Findings)
		}
	}
}

// sourceEnum is the source enum of the retrieve op's input schema.
func sourceEnum(t *testing.T, table *ops.Table) []string {
	t.Helper()
	op, ok := table.Lookup("retrieve")
	if !ok {
		t.Fatal("ops.Core has no retrieve op")
	}
	var schema struct {
		Properties struct {
			Source struct {
				Enum []string `json:"enum"`
			} `json:"source"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(op.Input, &schema); err != nil {
		t.Fatal(err)
	}
	return schema.Properties.Source.Enum
}

// closeSpy is the source under test with every document's Body wrapped,
// counting the bodies opened and closed. Requests name it (it owns no
// scheme of its own).
type closeSpy struct {
	retrieve.Source
	opened, closed atomic.Int64
}

type spyBody struct {
	io.ReadCloser
	spy  *closeSpy
	once sync.Once
}

func (b *spyBody) Close() error {
	b.once.Do(func() { b.spy.closed.Add(1) })
	return b.ReadCloser.Close()
}

func (s *closeSpy) Fetch(ctx context.Context, req *retrieve.Request) (*retrieve.Document, error) {
	doc, err := s.Source.Fetch(ctx, req)
	if doc != nil && doc.Body != nil {
		s.opened.Add(1)
		doc.Body = &spyBody{ReadCloser: doc.Body, spy: s}
	}
	return doc, err
}

// testBodyClosed: every Body a source hands over is closed once the
// retrieval is done, whole, cut by a small max_bytes, or failed.
func testBodyClosed(t *testing.T, f Fixture) {
	spy := &closeSpy{Source: f.Source}
	e := engineOf(t, f, spy)
	kind := f.Source.Kind()
	for _, target := range f.Targets {
		for _, cons := range []retrieve.Constraints{{}, {MaxBytes: 1}} {
			req := retrieve.Request{Target: target, Source: kind, Constraints: cons}
			// A cut may fail (structured data over max_bytes is
			// TOO_LARGE): the body is closed all the same.
			if _, err := get(t, e, context.Background(), req); err != nil && cons.MaxBytes == 0 {
				t.Errorf("Retrieve(%s) naming the source: %v", target, err)
			}
			if o, c := spy.opened.Load(), spy.closed.Load(); o != c {
				t.Fatalf("Retrieve(%s): %d bodies fetched, %d closed", target, o, c)
			}
		}
	}
	_, _ = get(t, e, context.Background(), retrieve.Request{Target: f.Missing, Source: kind})
	if o, c := spy.opened.Load(), spy.closed.Load(); o != c {
		t.Errorf("Retrieve(%s): %d bodies fetched, %d closed", f.Missing, o, c)
	}
}

// testConcurrent: one source serves several retrievals at once (run with
// -race in CI) and each gives the bytes a retrieval alone gives.
func testConcurrent(t *testing.T, f Fixture) {
	e := newEngine(t, f)
	want := map[string]string{}
	for _, target := range f.Targets {
		want[target] = *mustGet(t, e, target).Citation.Hash
	}
	const workers = 6
	var wg sync.WaitGroup
	errs := make(chan string, workers*len(f.Targets))
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range f.Targets {
				target := f.Targets[(i+w)%len(f.Targets)]
				res, err := e.Retrieve(context.Background(), retrieve.Request{Target: target})
				switch {
				case err != nil:
					errs <- fmt.Sprintf("%s: %v", target, err)
				case res.Citation.Hash == nil || *res.Citation.Hash != want[target]:
					errs <- fmt.Sprintf("%s: hash %v at once with others, %s alone", target, res.Citation.Hash, want[target])
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error("concurrent retrieval " + msg)
	}
}

// testSpans: where a document says Spans, a line range of it is cited as
// Locator:START-END, and that reference retrieves the same lines again.
func testSpans(t *testing.T, f Fixture) {
	e := newEngine(t, f)
	reg := e.Registry()
	spans, checked := 0, 0
	for _, target := range f.Targets {
		ref := reg.ParseReference(target)
		ref.Lines = ""
		doc, err := f.Source.Fetch(context.Background(), &retrieve.Request{Target: ref.String(), Source: f.Source.Kind()})
		if err != nil {
			t.Fatalf("Fetch(%s): %v", ref.String(), err)
		}
		if doc.Body != nil {
			doc.Body.Close()
		}
		if !doc.Spans {
			continue
		}
		spans++
		whole := mustGet(t, e, ref.String())
		text, ok := whole.Retrieved.Data.(string)
		lines := strings.SplitAfter(text, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if !ok || len(lines) == 0 {
			continue
		}
		checked++
		start, end := min(2, len(lines)), len(lines)
		span := strconv.Itoa(start) + "-" + strconv.Itoa(end)
		part, err := get(t, e, context.Background(), retrieve.Request{Target: ref.String(), Constraints: retrieve.Constraints{Lines: span}})
		if err != nil {
			t.Fatalf("Retrieve(%s, lines %s): %v", ref.String(), span, err)
		}
		wantRef := doc.Locator + ":" + span
		if part.Citation.Reference != wantRef {
			t.Errorf("%s lines %s is cited as %s, want %s (Locator:START-END)", ref.String(), span, part.Citation.Reference, wantRef)
		}
		again := mustGet(t, e, part.Citation.Reference)
		wantText := strings.Join(lines[start-1:end], "")
		if got, _ := again.Retrieved.Data.(string); got != wantText || *again.Citation.Hash != *part.Citation.Hash {
			t.Errorf("%s retrieves %q (hash %s), want lines %s of %s: %q (hash %s)", part.Citation.Reference, got, *again.Citation.Hash, span, ref.String(), wantText, *part.Citation.Hash)
		}
		if p := reg.ParseReference(part.Citation.Reference); p.Lines != span {
			t.Errorf("the registry parses %s with lines %q, want %s", part.Citation.Reference, p.Lines, span)
		}
	}
	if spans > 0 && checked == 0 {
		t.Errorf("the source cites line spans, but no target returned text to cite them in")
	}
}

// Workspace returns a temp workspace for a source that reads workspace
// files: README.md, docs/a.md (three lines) and a .env, which the deny list
// names, holding secret.
func Workspace(t *testing.T, secret string) *testws.Workspace {
	t.Helper()
	ws := testws.New(t)
	ws.Write("README.md", "# Readme\n\nHello.\n")
	ws.Write("docs/a.md", "one\ntwo\nthree\n")
	ws.Write(".env", "TOKEN="+secret+"\n")
	return ws
}
