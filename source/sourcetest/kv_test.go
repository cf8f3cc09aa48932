package sourcetest_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/source/sourcetest"
)

// kvSource is a toy source of a new colon scheme, kv:<bucket>/<key>, over
// values held in memory, whose lines can be cited (kv:notes/a:2-3). It
// proves what adding a source takes: this file and the one line that
// registers it (Fixture.Source below; in the program, one line of
// source/sources.New). Nothing else names it: the registry parses its
// references (a colon scheme of no source would be a file path), check
// takes them for citations, and the request schema's source enum and the
// pages' source filter list its kind — the suite's ReferencesRecognised
// rule holds each of these.
type kvSource struct{ values map[string]string }

func (s *kvSource) Kind() string      { return "kv" }
func (s *kvSource) Schemes() []string { return []string{"kv"} }

func (s *kvSource) Fetch(ctx context.Context, req *retrieve.Request) (*retrieve.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	key := strings.TrimPrefix(req.Target, "kv:")
	if strings.HasPrefix(key, "private/") {
		return nil, retrieve.Errorf(retrieve.CodeSensitivePath, "%s is private", req.Target).
			WithHint("private keys are never read")
	}
	v, ok := s.values[key]
	if !ok {
		return nil, retrieve.Errorf(retrieve.CodePathNotFound, "no key %s", req.Target).
			WithHint("the keys are kv:notes/a and kv:notes/b")
	}
	return &retrieve.Document{
		Body: io.NopCloser(strings.NewReader(v)), Size: int64(len(v)),
		Name: key + ".txt", Locator: "kv:" + key, Label: "kv:" + key, Spans: true,
	}, nil
}

func TestKVToySource(t *testing.T) {
	sourcetest.Run(t, func(t *testing.T) sourcetest.Fixture {
		src := &kvSource{values: map[string]string{
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

// TestKVReferenceIsNoPath: registered, kv:b/a:2-3 is the kv source's key
// b/a, lines 2-3; with no kv source it is a workspace path, as a:b.txt is.
func TestKVReferenceIsNoPath(t *testing.T) {
	reg := retrieve.NewRegistry(&kvSource{})
	src, ref, ok := reg.Recognize("kv:b/a:2-3")
	want := retrieve.Reference{Scheme: "kv", Path: "b/a", Lines: "2-3"}
	if !ok || src.Kind() != "kv" || ref != want {
		t.Fatalf("Recognize(kv:b/a:2-3) = %v, %+v, %v; want kv, %+v", src, ref, ok, want)
	}
	if got := retrieve.NewRegistry().ParseReference("kv:b/a:2-3"); got.Scheme != "file" || got.Path != "kv:b/a" {
		t.Errorf("with no kv source, ParseReference(kv:b/a:2-3) = %+v, want the file path kv:b/a", got)
	}
}
