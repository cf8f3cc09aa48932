package engine_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/internal/testws"
)

// ownerSource owns schemes and, with match set, takes only what match
// accepts; Fetch is never reached by these tests.
type ownerSource struct {
	kind    string
	schemes []string
}

func (s *ownerSource) Kind() string      { return s.kind }
func (s *ownerSource) Schemes() []string { return s.schemes }
func (s *ownerSource) Fetch(context.Context, *retrieve.Request) (*retrieve.Document, error) {
	return nil, retrieve.Errorf(retrieve.CodeInternal, "not reached")
}

type hostMatcher struct {
	ownerSource
	host string
}

func (s *hostMatcher) Match(target string) bool { return strings.Contains(target, "://"+s.host+"/") }

func TestResolveBySchemes(t *testing.T) {
	ws := testws.New(t)
	fileSrc := newEngine(t, ws.Root).Registry()
	file, _ := fileSrc.Lookup("file")
	api := &hostMatcher{ownerSource{"api", []string{"http", "https"}}, "api.local"}
	web := &ownerSource{"web", []string{"http", "https"}}
	git := &ownerSource{"git", []string{"git"}}
	reg := retrieve.NewRegistry(file, api, web, git)
	for target, want := range map[string]string{
		"http://api.local/v1":    "api",
		"https://127.0.0.1/page": "web",
		"HTTP://127.0.0.1/page":  "web",
		"git:HEAD:README.md":     "git",
		"README.md:1-3":          "file",
		"a:b.txt":                "file", // no source owns "a"
	} {
		got, err := reg.Resolve(&retrieve.Request{Target: target})
		if err != nil || got.Kind() != want {
			t.Errorf("Resolve(%s) = %v, %v; want %s", target, got, err, want)
		}
	}
	for _, target := range []string{"s3://bucket/key", "mem://notes/a"} {
		_, err := reg.Resolve(&retrieve.Request{Target: target})
		if ae := retrieve.AsError(err); err == nil || ae.Code != retrieve.CodeUnknownSource || !strings.Contains(ae.Hint, "http") {
			t.Errorf("Resolve(%s) = %v, want UNKNOWN_SOURCE naming the schemes there are", target, err)
		}
	}
	// An owner that declines (api for another host, no web source): no
	// fallback to the file source.
	_, err := retrieve.NewRegistry(file, api).Resolve(&retrieve.Request{Target: "http://127.0.0.1/x"})
	if retrieve.AsError(err).Code != retrieve.CodeUnknownSource {
		t.Errorf("http with only a declining owner = %v, want UNKNOWN_SOURCE", err)
	}
}

// TestUnclaimedURLWithVersion: `get s3://bucket/key --version X` is no git
// path at a revision: it is UNKNOWN_SOURCE (a workspace path with
// --version still goes to git: source/git's tests).
func TestUnclaimedURLWithVersion(t *testing.T) {
	ws := testws.New(t)
	e := newEngine(t, ws.Root)
	req := retrieve.Request{Target: "s3://bucket/key"}
	req.Constraints.Version = "v1"
	_, err := get(t, e, req)
	if ae := retrieve.AsError(err); err == nil || ae.Code != retrieve.CodeUnknownSource {
		t.Fatalf("s3:// --version = %v, want UNKNOWN_SOURCE", err)
	}
}

// wholeSource parses its references whole, as sql:, wiki: and graph: do.
type wholeSource struct{ ownerSource }

func (s *wholeSource) ParseReference(ref string) (retrieve.Reference, bool) {
	return retrieve.WholeReference(s.schemes[0], ref), true
}

// TestRegistryParseReference: the registry parses a reference as the
// source that takes it does; a registered colon scheme is never a path.
func TestRegistryParseReference(t *testing.T) {
	ws := testws.New(t)
	file, _ := newEngine(t, ws.Root).Registry().Lookup("file")
	kv := &ownerSource{"kv", []string{"kv"}}
	s3 := &ownerSource{"s3", []string{"s3"}}
	wk := &wholeSource{ownerSource{"wiki", []string{"wiki"}}}
	web := &ownerSource{"web", []string{"http", "https"}}
	reg := retrieve.NewRegistry(file, kv, s3, wk, web)
	tests := []struct {
		in   string
		kind string
		want retrieve.Reference
	}{
		{"kv:b/a:2-3", "kv", retrieve.Reference{Scheme: "kv", Path: "b/a", Lines: "2-3"}},
		{"kv:b/a", "kv", retrieve.Reference{Scheme: "kv", Path: "b/a"}},
		{"s3://bucket/key:1-2", "s3", retrieve.Reference{Scheme: "s3", Path: "s3://bucket/key:1-2"}},
		{"wiki:topic/x:2", "wiki", retrieve.Reference{Scheme: "wiki", Path: "topic/x:2"}},
		{"https://127.0.0.1/a:1-2", "web", retrieve.Reference{Scheme: "web", Path: "https://127.0.0.1/a:1-2"}},
		{"notes.md:1-5", "file", retrieve.Reference{Scheme: "file", Path: "notes.md", Lines: "1-5"}},
		// No git source here: git:… is a workspace path, and says so.
		{"git:HEAD:a.md:1-2", "file", retrieve.Reference{Scheme: "file", Path: "git:HEAD:a.md", Lines: "1-2"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			src, got, ok := reg.Recognize(tt.in)
			if !ok || src.Kind() != tt.kind || got != tt.want {
				t.Fatalf("Recognize(%q) = %v, %+v, %v; want %s, %+v", tt.in, src, got, ok, tt.kind, tt.want)
			}
			if p := reg.ParseReference(tt.in); p != tt.want {
				t.Errorf("ParseReference(%q) = %+v, want %+v", tt.in, p, tt.want)
			}
			if s := got.String(); s != tt.in {
				t.Errorf("String() = %q, want %q", s, tt.in)
			}
		})
	}
	for _, in := range []string{"gs://bucket/key", "file:///etc/passwd", "ftp://127.0.0.1/x"} {
		if src, _, ok := reg.Recognize(in); ok {
			t.Errorf("Recognize(%q) = %s; want no source (no source owns the scheme)", in, src.Kind())
		}
	}
	// Without a file source, a path cites nothing.
	if src, _, ok := retrieve.NewRegistry(kv).Recognize("notes.md:1-5"); ok {
		t.Errorf("Recognize(notes.md:1-5) with no file source = %s, want no source", src.Kind())
	}
}

// FuzzRegistryParseReference: what the registry parses formats back to the
// same string's parse.
func FuzzRegistryParseReference(f *testing.F) {
	for _, s := range []string{"kv:b/a:2-3", "kv:", "kv:x:1-", "wiki:a/b:3", "s3://b/k:1-2", "a.md:1-3", "a:b:c", "https://h/x"} {
		f.Add(s)
	}
	reg := retrieve.NewRegistry(&ownerSource{"kv", []string{"kv"}}, &ownerSource{"s3", []string{"s3"}},
		&wholeSource{ownerSource{"wiki", []string{"wiki"}}}, &ownerSource{"web", []string{"http", "https"}})
	f.Fuzz(func(t *testing.T, s string) {
		r := reg.ParseReference(s)
		if back := reg.ParseReference(r.String()); back != r {
			t.Fatalf("round trip of %q: parse(format(%+v)) = %+v", s, r, back)
		}
	})
}

// echoSource serves one line per target asked, telling what Fetch saw.
type echoSource struct {
	wholeSource
	line bool // parse references as LineReference instead
}

func (s *echoSource) ParseReference(ref string) (retrieve.Reference, bool) {
	if s.line {
		return retrieve.LineReference(s.schemes[0], ref), true
	}
	return s.wholeSource.ParseReference(ref)
}

func (s *echoSource) Fetch(_ context.Context, req *retrieve.Request) (*retrieve.Document, error) {
	text := "target=" + req.Target + "\nlines=" + req.Constraints.Lines + "\nthird\n"
	return &retrieve.Document{Body: io.NopCloser(strings.NewReader(text)), Size: int64(len(text)), Locator: req.Target, Label: s.kind}, nil
}

// TestEngineParsesByRegistry: the engine splits a line suffix off a
// reference only where its source's form has one (a registered whole form
// keeps wk:topic/x:2 as it is; a line form's kv:b/a:1-2 is kv:b/a, lines 1-2).
func TestEngineParsesByRegistry(t *testing.T) {
	whole := &echoSource{wholeSource: wholeSource{ownerSource{"wk", []string{"wk"}}}}
	lines := &echoSource{wholeSource: wholeSource{ownerSource{"kv", []string{"kv"}}}, line: true}
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{whole, lines}})
	if err != nil {
		t.Fatal(err)
	}
	for target, want := range map[string]string{
		"wk:topic/x:2": "target=wk:topic/x:2\nlines=\nthird\n",
		"kv:b/a:1-2":   "target=kv:b/a\nlines=1-2\n",
	} {
		res, err := e.Retrieve(context.Background(), retrieve.Request{Target: target})
		if err != nil {
			t.Fatalf("Retrieve(%s): %v", target, err)
		}
		if got, _ := res.Retrieved.Data.(string); got != want {
			t.Errorf("Retrieve(%s) data %q, want %q", target, got, want)
		}
	}
}
