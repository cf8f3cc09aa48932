package sourcetest_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/source/sourcetest"
)

// toySource is a made-up source over values held in memory, written as a
// new source would be. It proves what adding one takes: its type and the
// one line that registers it (Fixture.Source below; in the program, one
// line of source/sources.New). Nothing else names it: the registry parses
// its references, check takes them for citations, and the request
// schema's source enum and the pages' source filter list its kind — the
// suite's ReferencesRecognised rule holds each of these. Two of them run
// the suite: a colon scheme whose lines can be cited (kv:notes/a:2-3) and
// a URL scheme (mem://notes/a).
type toySource struct {
	kind   string // the kind and scheme
	prefix string // what a target starts with: "kv:", "mem://"
	// private is the key prefix that is refused as sensitive.
	private string
	values  map[string]string
	// spans: the source cites lines (a colon scheme's ref:START-END).
	spans bool
}

func (s *toySource) Kind() string      { return s.kind }
func (s *toySource) Schemes() []string { return []string{s.kind} }

func (s *toySource) Fetch(ctx context.Context, req *retrieve.Request) (*retrieve.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	key := strings.TrimPrefix(req.Target, s.prefix)
	if strings.HasPrefix(key, s.private) {
		return nil, retrieve.Errorf(retrieve.CodeSensitivePath, "%s is private", req.Target).
			WithHint("private values are never read")
	}
	v, ok := s.values[key]
	if !ok {
		return nil, retrieve.Errorf(retrieve.CodePathNotFound, "no value %s", req.Target).
			WithHint("the values are %snotes/a and %snotes/b", s.prefix, s.prefix)
	}
	return &retrieve.Document{
		Body: io.NopCloser(strings.NewReader(v)), Size: int64(len(v)),
		Name: key + ".txt", Locator: s.prefix + key, Label: s.kind + ":" + key, Spans: s.spans,
	}, nil
}

func TestKVToySource(t *testing.T) {
	sourcetest.Run(t, func(t *testing.T) sourcetest.Fixture {
		src := &toySource{kind: "kv", prefix: "kv:", private: "private/", spans: true, values: map[string]string{
			"notes/a": "one\ntwo\nthree\n", "notes/b": "single line\n", "private/token": "kv-SECRET-7\n",
		}}
		return sourcetest.Fixture{
			Source:  src,
			Targets: []string{"kv:notes/a", "kv:notes/a:2-3", "kv:notes/b"},
			Missing: "kv:notes/zzz", MissingCode: retrieve.CodePathNotFound,
			Secret: "kv-SECRET-7", SecretTargets: []string{"kv:private/token", "kv:private/token:1"},
		}
	})
}

func TestMemToySource(t *testing.T) {
	sourcetest.Run(t, func(t *testing.T) sourcetest.Fixture {
		src := &toySource{kind: "mem", prefix: "mem://", private: "secret/", values: map[string]string{
			"notes/a": "# A\n\nfirst note\n", "notes/b": "plain text\n", "secret/token": "tok-SECRET-42\n",
		}}
		return sourcetest.Fixture{
			Source:  src,
			Targets: []string{"mem://notes/a", "mem://notes/b"},
			Missing: "mem://notes/zzz", MissingCode: retrieve.CodePathNotFound,
			Secret: "tok-SECRET-42", SecretTargets: []string{"mem://secret/token"},
		}
	})
}

// TestKVReferenceIsNoPath: registered, kv:b/a:2-3 is the kv source's key
// b/a, lines 2-3; with no kv source it is a workspace path, as a:b.txt is.
func TestKVReferenceIsNoPath(t *testing.T) {
	reg := retrieve.NewRegistry(&toySource{kind: "kv", prefix: "kv:"})
	src, ref, ok := reg.Recognize("kv:b/a:2-3")
	want := retrieve.Reference{Scheme: "kv", Path: "b/a", Lines: "2-3"}
	if !ok || src.Kind() != "kv" || ref != want {
		t.Fatalf("Recognize(kv:b/a:2-3) = %v, %+v, %v; want kv, %+v", src, ref, ok, want)
	}
	if got := retrieve.NewRegistry().ParseReference("kv:b/a:2-3"); got.Scheme != "file" || got.Path != "kv:b/a" {
		t.Errorf("with no kv source, ParseReference(kv:b/a:2-3) = %+v, want the file path kv:b/a", got)
	}
}
