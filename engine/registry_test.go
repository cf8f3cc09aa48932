package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
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
