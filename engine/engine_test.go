package engine_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/extract/codeparser"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/source/file"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixedNow is the retrieval time of every test result.
var fixedNow = time.Date(2025, 1, 24, 15, 30, 0, 0, time.UTC)

func newEngine(t testing.TB, root string) *engine.Engine {
	t.Helper()
	src, err := file.New(file.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{src}, Now: func() time.Time { return fixedNow }, Code: codeparser.New()})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// get retrieves and validates the result against the schema whatever happens.
func get(t testing.TB, e *engine.Engine, req retrieve.Request) (*retrieve.Result, error) {
	t.Helper()
	res, err := e.Retrieve(context.Background(), req)
	if res == nil {
		t.Fatalf("Retrieve(%q) returned a nil result", req.Target)
	}
	contracttest.Check(t, res)
	return res, err
}

func mustGet(t testing.TB, e *engine.Engine, req retrieve.Request) *retrieve.Result {
	t.Helper()
	res, err := get(t, e, req)
	if err != nil {
		t.Fatalf("Retrieve(%+v): %v", req, err)
	}
	return res
}

func golden(t *testing.T, name string, res *retrieve.Result) {
	t.Helper()
	got, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", name+".golden.json")
	if *update {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(strings.TrimSpace(string(want)), strings.TrimSpace(string(got))); diff != "" {
		t.Fatalf("result differs from %s (-want +got):\n%s", path, diff)
	}
}

const databaseYML = `development:
  adapter: postgresql
  host: localhost
  database: myapp_dev
production:
  adapter: postgresql
  host: "${DATABASE_HOST}"
  database: myapp_prod
  pool: 25
`

const guideMD = `# Guide

Intro text.

## Install

Run the installer.

### Linux

apt-get install retrieve

### macOS

brew install retrieve

## Usage

retrieve get README.md
`

// Seed 002 example 1: a configuration file retrieved whole and parsed.
func TestSeedExample1(t *testing.T) {
	ws := testws.New(t)
	ws.Write("config/database.yml", databaseYML)
	ws.InitGit()
	e := newEngine(t, ws.Root)
	res := mustGet(t, e, retrieve.Request{Target: "config/database.yml", Source: "file", Format: "yaml"})
	golden(t, "seed_example1", res)
	if got, want := res.Citation.Reference, "config/database.yml:1-9"; got != want {
		t.Errorf("reference = %q, want %q", got, want)
	}
	if !res.Retrieved.Complete || res.Confidence != 1 || res.Citation.Authority != retrieve.AuthorityHigh {
		t.Errorf("complete=%v confidence=%v authority=%v, want true 1 high", res.Retrieved.Complete, res.Confidence, res.Citation.Authority)
	}
	// The hash is of the canonical JSON of the returned data.
	want, err := retrieve.HashData(res.Retrieved.Data)
	if err != nil {
		t.Fatal(err)
	}
	if *res.Citation.Hash != want {
		t.Errorf("hash = %s, want %s", *res.Citation.Hash, want)
	}
	// The source hash is of the file's bytes.
	if got, want := *res.Citation.SourceHash, retrieve.HashBytes([]byte(databaseYML)); got != want {
		t.Errorf("source_hash = %s, want %s", got, want)
	}
}

// Seed 002 example 3, on markdown: lines plus two sections → two anchors.
func TestSeedExample3(t *testing.T) {
	ws := testws.New(t)
	ws.Write("docs/guide.md", guideMD)
	ws.InitGit()
	e := newEngine(t, ws.Root)
	res := mustGet(t, e, retrieve.Request{Target: "docs/guide.md", Constraints: retrieve.Constraints{Lines: "1-50", Sections: []string{"Linux", "Usage"}}})
	golden(t, "seed_example3", res)
	res = mustGet(t, e, retrieve.Request{Target: "docs/guide.md", Constraints: retrieve.Constraints{Sections: []string{"Linux", "Usage"}}})
	if diff := cmp.Diff([]string{"docs/guide.md:9-12", "docs/guide.md:17-19"}, res.EvidenceAnchors); diff != "" {
		t.Errorf("anchors (-want +got):\n%s", diff)
	}
	if res.Retrieved.Complete {
		t.Error("complete = true for a part of the file")
	}
	// The reference re-retrieves exactly the same span.
	again := mustGet(t, e, retrieve.Request{Target: res.Citation.Reference})
	if *again.Citation.Hash != *res.Citation.Hash {
		t.Errorf("re-retrieving %s: hash %s, want %s", res.Citation.Reference, *again.Citation.Hash, *res.Citation.Hash)
	}
}

func TestRetrieveFile(t *testing.T) {
	ws := testws.New(t)
	ws.Write("notes.txt", "one\ntwo\nthree\nfour\nfive\n")
	ws.Write("data.json", `{"name":"retrieve","tags":["a","b"],"n":12345678901234}`)
	ws.Write("conf.toml", "title = \"x\"\n[owner]\nname = \"Tom\"\n")
	ws.Write("bom.txt", "\xef\xbb\xbfhello\n")
	ws.Write("empty.txt", "")
	ws.Write("blob.bin", "abc\x00def")
	ws.Write("latin1.txt", "caf\xe9\n")
	ws.InitGit()
	ws.Write("untracked.txt", "u\n")
	e := newEngine(t, ws.Root)

	t.Run("OK", func(t *testing.T) {
		res := mustGet(t, e, retrieve.Request{Target: "notes.txt", Constraints: retrieve.Constraints{Lines: "2-3"}})
		if got, want := res.Retrieved.Data, "two\nthree\n"; got != want {
			t.Errorf("data = %q, want %q", got, want)
		}
		if got, want := res.Citation.Reference, "notes.txt:2-3"; got != want {
			t.Errorf("reference = %q, want %q", got, want)
		}
		if got, want := *res.Citation.Hash, retrieve.HashBytes([]byte("two\nthree\n")); got != want {
			t.Errorf("hash = %q, want %q", got, want)
		}
		if res.Retrieved.Complete || res.Extraction.Truncated {
			t.Errorf("complete=%v truncated=%v, want false false", res.Retrieved.Complete, res.Extraction.Truncated)
		}
		if *res.Extraction.OriginalSize != 24 || *res.Extraction.ReturnedSize != 10 {
			t.Errorf("sizes = %d/%d, want 24/10", *res.Extraction.OriginalSize, *res.Extraction.ReturnedSize)
		}
	})
	t.Run("ReferenceRoundTrip", func(t *testing.T) {
		res := mustGet(t, e, retrieve.Request{Target: "notes.txt", Constraints: retrieve.Constraints{Lines: "1-2,4-"}})
		if diff := cmp.Diff([]string{"notes.txt:1-2", "notes.txt:4-5"}, res.EvidenceAnchors); diff != "" {
			t.Errorf("anchors (-want +got):\n%s", diff)
		}
		again := mustGet(t, e, retrieve.Request{Target: res.Citation.Reference})
		if again.Retrieved.Data != res.Retrieved.Data || *again.Citation.Hash != *res.Citation.Hash {
			t.Errorf("re-retrieving %q gave %q", res.Citation.Reference, again.Retrieved.Data)
		}
	})
	t.Run("Select", func(t *testing.T) {
		res := mustGet(t, e, retrieve.Request{Target: "data.json", Constraints: retrieve.Constraints{Select: ".tags"}})
		if diff := cmp.Diff([]any{"a", "b"}, res.Retrieved.Data); diff != "" {
			t.Errorf("data (-want +got):\n%s", diff)
		}
		if got, want := *res.Citation.Hash, retrieve.HashBytes([]byte(`["a","b"]`)); got != want {
			t.Errorf("hash = %s, want %s (canonical JSON)", got, want)
		}
	})
	t.Run("TOML", func(t *testing.T) {
		res := mustGet(t, e, retrieve.Request{Target: "conf.toml", Constraints: retrieve.Constraints{Select: ".owner.name"}})
		if res.Retrieved.Data != "Tom" {
			t.Errorf("data = %v, want Tom", res.Retrieved.Data)
		}
	})
	t.Run("BOM", func(t *testing.T) {
		res := mustGet(t, e, retrieve.Request{Target: "bom.txt"})
		if res.Retrieved.Data != "hello\n" {
			t.Errorf("data = %q, want the BOM stripped", res.Retrieved.Data)
		}
		if *res.Citation.SourceHash != retrieve.HashBytes([]byte("\xef\xbb\xbfhello\n")) {
			t.Error("source_hash must cover the BOM too")
		}
	})
	t.Run("Empty", func(t *testing.T) {
		res := mustGet(t, e, retrieve.Request{Target: "empty.txt"})
		if res.Retrieved.Data != "" || !res.Retrieved.Complete || res.Citation.Reference != "empty.txt" {
			t.Errorf("data=%q complete=%v reference=%q", res.Retrieved.Data, res.Retrieved.Complete, res.Citation.Reference)
		}
		if *res.Citation.Hash != retrieve.HashBytes(nil) {
			t.Errorf("hash = %s, want the hash of no bytes", *res.Citation.Hash)
		}
	})
	t.Run("Binary", func(t *testing.T) {
		res := mustGet(t, e, retrieve.Request{Target: "blob.bin"})
		if res.Retrieved.Data != nil || res.Retrieved.Format != "binary" {
			t.Errorf("data=%v format=%s, want null binary", res.Retrieved.Data, res.Retrieved.Format)
		}
		if res.Citation.Hash == nil || *res.Citation.Hash != retrieve.HashBytes([]byte("abc\x00def")) {
			t.Errorf("hash = %v, want the hash of the bytes", res.Citation.Hash)
		}
		res = mustGet(t, e, retrieve.Request{Target: "blob.bin", Format: "binary"})
		if res.Retrieved.Data != "YWJjAGRlZg==" {
			t.Errorf("data = %v, want base64", res.Retrieved.Data)
		}
	})
	t.Run("InvalidUTF8", func(t *testing.T) {
		res := mustGet(t, e, retrieve.Request{Target: "latin1.txt"})
		if res.Retrieved.Data != nil || res.Retrieved.Format != "binary" {
			t.Errorf("data=%v format=%s, want binary", res.Retrieved.Data, res.Retrieved.Format)
		}
		res = mustGet(t, e, retrieve.Request{Target: "latin1.txt", Format: "text"})
		if res.Retrieved.Data != "caf\uFFFD\n" || res.Confidence >= 1 {
			t.Errorf("data=%q confidence=%v, want repaired and a deduction", res.Retrieved.Data, res.Confidence)
		}
	})
	t.Run("MaxBytes", func(t *testing.T) {
		res := mustGet(t, e, retrieve.Request{Target: "notes.txt", Constraints: retrieve.Constraints{MaxBytes: 9}})
		if res.Retrieved.Data != "one\ntwo\n" || !res.Extraction.Truncated || res.Retrieved.Complete {
			t.Errorf("data=%q truncated=%v complete=%v", res.Retrieved.Data, res.Extraction.Truncated, res.Retrieved.Complete)
		}
		if res.Citation.Reference != "notes.txt:1-2" {
			t.Errorf("reference = %q", res.Citation.Reference)
		}
	})
	t.Run("Versions", func(t *testing.T) {
		head := ws.Git("rev-parse", "HEAD")
		res := mustGet(t, e, retrieve.Request{Target: "notes.txt"})
		if res.Citation.Version == nil || *res.Citation.Version != "git:"+head {
			t.Errorf("clean version = %v, want git:%s", res.Citation.Version, head)
		}
		res = mustGet(t, e, retrieve.Request{Target: "untracked.txt"})
		if res.Citation.Version != nil || res.Citation.Authority != retrieve.AuthorityMedium {
			t.Errorf("untracked: version=%v authority=%s", res.Citation.Version, res.Citation.Authority)
		}
		ws.Write("notes.txt", "changed\n")
		res = mustGet(t, e, retrieve.Request{Target: "notes.txt"})
		if res.Citation.Version == nil || *res.Citation.Version != "git:"+head+"+dirty" {
			t.Errorf("dirty version = %v", res.Citation.Version)
		}
		if !strings.Contains(strings.Join(res.Assumptions, "\n"), "differs from the committed revision") {
			t.Errorf("assumptions do not explain the dirty copy: %q", res.Assumptions)
		}
	})
}

func TestRetrieveErrors(t *testing.T) {
	ws := testws.New(t)
	ws.Write("notes.txt", "one\ntwo\n")
	ws.Write("guide.md", guideMD)
	ws.Write("bad.json", `{"a": `)
	ws.Write("good.json", `{"a": 1}`)
	ws.Write("sub/readme.md", "x\n")
	ws.Write(".env", "SECRET_TOKEN=do-not-leak\n")
	ws.Write("keys/server.pem", "PRIVATE KEY do-not-leak\n")
	ws.Write("private/notes.md", "do-not-leak\n")
	ws.Write(".retrieveignore", "private/\n")
	if err := os.Symlink(".env", filepath.Join(ws.Root, "innocent.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(ws.Root, "outside.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop2", filepath.Join(ws.Root, "loop1")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop1", filepath.Join(ws.Root, "loop2")); err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, ws.Root)
	tests := []struct {
		name string
		req  retrieve.Request
		code retrieve.Code
	}{
		{"ErrMissing", retrieve.Request{Target: "note.txt"}, retrieve.CodePathNotFound},
		{"ErrDirectory", retrieve.Request{Target: "sub"}, retrieve.CodeNotAFile},
		{"ErrLinesReversed", retrieve.Request{Target: "notes.txt", Constraints: retrieve.Constraints{Lines: "5-2"}}, retrieve.CodeInputValidation},
		{"ErrLinesZero", retrieve.Request{Target: "notes.txt", Constraints: retrieve.Constraints{Lines: "0-3"}}, retrieve.CodeInputValidation},
		{"ErrLinesText", retrieve.Request{Target: "notes.txt", Constraints: retrieve.Constraints{Lines: "abc"}}, retrieve.CodeInputValidation},
		{"ErrLinesPastEnd", retrieve.Request{Target: "notes.txt", Constraints: retrieve.Constraints{Lines: "10-20"}}, retrieve.CodeRangeNotFound},
		{"ErrSection", retrieve.Request{Target: "guide.md", Constraints: retrieve.Constraints{Sections: []string{"Nope"}}}, retrieve.CodeSectionNotFound},
		{"ErrJQ", retrieve.Request{Target: "good.json", Constraints: retrieve.Constraints{Select: ".["}}, retrieve.CodeSelectFailed},
		{"ErrSelectOnText", retrieve.Request{Target: "notes.txt", Constraints: retrieve.Constraints{Select: ".a"}}, retrieve.CodeUnsupportedFormat},
		{"ErrMalformedJSON", retrieve.Request{Target: "bad.json", Format: "json"}, retrieve.CodeParseFailed},
		{"ErrDotDot", retrieve.Request{Target: "../etc/passwd"}, retrieve.CodeOutsideRoot},
		{"ErrAbsolute", retrieve.Request{Target: "/etc/passwd"}, retrieve.CodeOutsideRoot},
		{"ErrSymlinkOut", retrieve.Request{Target: "outside.txt"}, retrieve.CodeOutsideRoot},
		{"ErrSymlinkLoop", retrieve.Request{Target: "loop1"}, retrieve.CodeInputValidation},
		{"ErrEnv", retrieve.Request{Target: ".env"}, retrieve.CodeSensitivePath},
		{"ErrPem", retrieve.Request{Target: "keys/server.pem"}, retrieve.CodeSensitivePath},
		{"ErrLinkToEnv", retrieve.Request{Target: "innocent.txt"}, retrieve.CodeSensitivePath},
		{"ErrRetrieveIgnore", retrieve.Request{Target: "private/notes.md"}, retrieve.CodeSensitivePath},
		{"ErrGitInternals", retrieve.Request{Target: ".git/config"}, retrieve.CodeSensitivePath},
		{"ErrUnknownSource", retrieve.Request{Target: "notes.txt", Source: "ftp"}, retrieve.CodeUnknownSource},
		{"ErrEmptyTarget", retrieve.Request{Target: ""}, retrieve.CodeInputValidation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.req.Target == "" {
				// The schema requires a target; check the error only.
				_, err := e.Retrieve(context.Background(), tt.req)
				if got := retrieve.ErrorCode(err); got != tt.code {
					t.Fatalf("code = %s, want %s", got, tt.code)
				}
				return
			}
			res, err := get(t, e, tt.req)
			if got := retrieve.ErrorCode(err); got != tt.code {
				t.Fatalf("code = %s (%v), want %s", got, err, tt.code)
			}
			if res.Error == nil || res.Error.Code != tt.code || res.Retrieved.Complete || res.Retrieved.Data != nil {
				t.Fatalf("envelope = %+v, want a failure with %s", res.Error, tt.code)
			}
			if res.Error.Message == "" || res.Error.Hint == "" {
				t.Errorf("message %q and hint %q must both be set", res.Error.Message, res.Error.Hint)
			}
			b, _ := json.Marshal(res)
			if strings.Contains(string(b), "do-not-leak") {
				t.Fatalf("sensitive content leaked: %s", b)
			}
		})
	}
	t.Run("ErrMissingAlternatives", func(t *testing.T) {
		res, _ := get(t, e, retrieve.Request{Target: "note.txt"})
		if diff := cmp.Diff([]string{"notes.txt"}, res.Error.Alternatives); diff != "" {
			t.Errorf("alternatives (-want +got):\n%s", diff)
		}
	})
	t.Run("ErrSectionAlternatives", func(t *testing.T) {
		res, _ := get(t, e, retrieve.Request{Target: "guide.md", Constraints: retrieve.Constraints{Sections: []string{"Nope"}}})
		if !strings.Contains(strings.Join(res.Error.Alternatives, "|"), "Guide > Install > Linux") {
			t.Errorf("alternatives = %q, want the existing headings", res.Error.Alternatives)
		}
	})
	t.Run("ErrNoPermission", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root reads any file whatever its mode; this case runs as a normal user")
		}
		p := ws.Write("locked.txt", "x\n")
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
		_, err := get(t, e, retrieve.Request{Target: "locked.txt"})
		if got := retrieve.ErrorCode(err); got != retrieve.CodePermissionDenied {
			t.Fatalf("code = %s, want %s", got, retrieve.CodePermissionDenied)
		}
	})
}

// A 2 GiB file with --lines 1-3 is streamed, never loaded.
func TestRetrieveHugeFileLines(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 2 GiB; skipped with -short")
	}
	ws := testws.New(t)
	p := filepath.Join(ws.Root, "huge.log")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	head := strings.Repeat("a log line of some length\n", 400) // 10 KiB of text before the sparse zeros
	if _, err := f.WriteString(head); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	e := newEngine(t, ws.Root)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := mustGet(t, e, retrieve.Request{Target: "huge.log", Constraints: retrieve.Constraints{Lines: "1-3"}})
	runtime.ReadMemStats(&after)
	if res.Retrieved.Data != strings.Repeat("a log line of some length\n", 3) {
		t.Errorf("data = %q", res.Retrieved.Data)
	}
	if *res.Extraction.OriginalSize != 2<<30 {
		t.Errorf("original_size = %d, want 2 GiB (hashed whole)", *res.Extraction.OriginalSize)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("allocated %d MiB for a 3-line retrieval of a 2 GiB file", grew>>20)
	}
}

// A 100 MB line: outside the range it is skipped; inside it is cut at max_bytes.
func TestRetrieveLongLine(t *testing.T) {
	ws := testws.New(t)
	long := strings.Repeat("x", 100<<20)
	ws.Write("long.txt", "first\n"+long+"\nlast\n")
	e := newEngine(t, ws.Root)
	res := mustGet(t, e, retrieve.Request{Target: "long.txt", Constraints: retrieve.Constraints{Lines: "3"}})
	if res.Retrieved.Data != "last\n" {
		t.Errorf("data = %q, want the last line", res.Retrieved.Data)
	}
	res = mustGet(t, e, retrieve.Request{Target: "long.txt", Constraints: retrieve.Constraints{Lines: "2", MaxBytes: 1000}})
	if s, _ := res.Retrieved.Data.(string); len(s) != 1000 || !res.Extraction.Truncated {
		t.Errorf("got %d bytes truncated=%v, want 1000 bytes truncated", len(s), res.Extraction.Truncated)
	}
}

func TestFormatOverride(t *testing.T) {
	ws := testws.New(t)
	ws.Write("conf.yaml", "a: 1\nb: [x]\n")
	ws.Write("conf.txt", `{"a": 2}`)
	e := newEngine(t, ws.Root)
	res := mustGet(t, e, retrieve.Request{Target: "conf.yaml", Format: "json"})
	if res.Retrieved.Format != "yaml" || !cmp.Equal(res.Retrieved.Data, map[string]any{"a": 1, "b": []any{"x"}}) {
		t.Errorf("format=%s data=%v: a YAML file asked as json is parsed as YAML", res.Retrieved.Format, res.Retrieved.Data)
	}
	res = mustGet(t, e, retrieve.Request{Target: "conf.txt", Format: "json"})
	if res.Retrieved.Format != "json" || !cmp.Equal(res.Retrieved.Data, map[string]any{"a": 2}) {
		t.Errorf("format=%s data=%v: text asked as json is parsed as JSON", res.Retrieved.Format, res.Retrieved.Data)
	}
}
