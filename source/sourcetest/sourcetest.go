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
// Each rule of the contract is one subtest.
package sourcetest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"

	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/testws"
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
}

func newEngine(t *testing.T, f Fixture) *engine.Engine {
	t.Helper()
	if f.Source == nil || len(f.Targets) == 0 {
		t.Fatal("the fixture needs a Source and at least one Target")
	}
	e, err := engine.New(engine.Options{Sources: append([]retrieve.Source{f.Source}, f.Others...)})
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
