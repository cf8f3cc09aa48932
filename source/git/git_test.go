package git_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"

	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/source/file"
	"github.com/retrieve-dev/retrieve/source/git"
)

func newEngine(t testing.TB, root string) *engine.Engine {
	t.Helper()
	fs, err := file.New(file.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fs.Close() })
	gs, err := git.New(git.Options{Root: root, Deny: fs.Deny()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gs.Close() })
	e, err := engine.New(engine.Options{Sources: []retrieve.Source{fs, gs}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func get(t *testing.T, e *engine.Engine, req retrieve.Request) (*retrieve.Result, *retrieve.Error) {
	t.Helper()
	res, err := e.Retrieve(context.Background(), req)
	b, jerr := json.Marshal(res)
	if jerr != nil {
		t.Fatal(jerr)
	}
	contracttest.Check(t, b)
	if err != nil {
		return res, retrieve.AsError(err)
	}
	return res, nil
}

func TestGitRevisions(t *testing.T) {
	ws := testws.New(t)
	ws.Write("docs/guide.md", "# Guide\n\nold line\n")
	ws.Write("gone.txt", "soon deleted\n")
	c1 := ws.InitGit()
	ws.Git("tag", "v1")
	ws.Write("docs/guide.md", "# Guide\n\nnew line\nmore\n")
	os.Remove(filepath.Join(ws.Root, "gone.txt"))
	c2 := ws.Commit("second")
	ws.Git("branch", "feature", c1)
	e := newEngine(t, ws.Root)

	for _, rev := range []string{"v1", c1, c1[:7], "HEAD~1", "feature"} {
		t.Run("Resolve/"+rev, func(t *testing.T) {
			res, err := get(t, e, retrieve.Request{Target: "git:" + rev + ":docs/guide.md"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Retrieved.Data != "# Guide\n\nold line\n" {
				t.Errorf("data = %q", res.Retrieved.Data)
			}
			if *res.Citation.Version != "git:"+c1 || res.Citation.Reference != "git:"+c1+":docs/guide.md:1-3" {
				t.Errorf("version %s reference %s", *res.Citation.Version, res.Citation.Reference)
			}
			if res.Provenance.Freshness != retrieve.FreshnessFresh || res.Citation.Authority != retrieve.AuthorityHigh {
				t.Errorf("freshness %s authority %s", res.Provenance.Freshness, res.Citation.Authority)
			}
			if res.Provenance.LastModified == nil || *res.Provenance.LastModified != retrieve.Timestamp(testws.Epoch) {
				t.Errorf("last_modified = %v", res.Provenance.LastModified)
			}
		})
	}
	t.Run("Lines", func(t *testing.T) {
		res, err := get(t, e, retrieve.Request{Target: "git:HEAD:docs/guide.md:3-4"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Retrieved.Data != "new line\nmore\n" || res.Citation.Reference != "git:"+c2+":docs/guide.md:3-4" {
			t.Errorf("data %q reference %s", res.Retrieved.Data, res.Citation.Reference)
		}
		if len(res.EvidenceAnchors) != 1 || res.EvidenceAnchors[0] != "git:"+c2+":docs/guide.md:3-4" {
			t.Errorf("anchors %v", res.EvidenceAnchors)
		}
	})
	t.Run("VersionFlag", func(t *testing.T) {
		res, err := get(t, e, retrieve.Request{Target: "docs/guide.md", Constraints: retrieve.Constraints{Version: "v1", Sections: []string{"Guide"}}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(res.Citation.Reference, "git:"+c1+":docs/guide.md") || res.Provenance.SourceType != "git" {
			t.Errorf("reference %s source %s", res.Citation.Reference, res.Provenance.SourceType)
		}
	})
	t.Run("ReferenceRoundTrip", func(t *testing.T) {
		res, err := get(t, e, retrieve.Request{Target: "docs/guide.md:3", Constraints: retrieve.Constraints{Version: "HEAD~1"}})
		if err != nil {
			t.Fatal(err)
		}
		again, err := get(t, e, retrieve.CitationRequest(res))
		if err != nil {
			t.Fatal(err)
		}
		if *again.Citation.Hash != *res.Citation.Hash || again.Citation.Reference != res.Citation.Reference {
			t.Errorf("re-retrieval differs: %s %s", again.Citation.Reference, *again.Citation.Hash)
		}
	})
	t.Run("DeletedPathAlternative", func(t *testing.T) {
		_, err := get(t, e, retrieve.Request{Target: "git:HEAD:gone.txt"})
		if err == nil || err.Code != retrieve.CodeVersionNotFound {
			t.Fatalf("err = %v", err)
		}
		if len(err.Alternatives) != 1 || err.Alternatives[0] != "git:"+c1+":gone.txt" {
			t.Errorf("alternatives %v hint %q", err.Alternatives, err.Hint)
		}
		res, err := get(t, e, retrieve.Request{Target: err.Alternatives[0]})
		if err != nil || res.Retrieved.Data != "soon deleted\n" {
			t.Errorf("alternative does not retrieve: %v %v", err, res.Retrieved.Data)
		}
	})
	t.Run("UnknownRevision", func(t *testing.T) {
		_, err := get(t, e, retrieve.Request{Target: "git:nosuchbranch:docs/guide.md"})
		if err == nil || err.Code != retrieve.CodeVersionNotFound {
			t.Fatalf("err = %v", err)
		}
		if strings.Join(err.Alternatives, ",") != "main,feature,v1" && len(err.Alternatives) != 3 {
			t.Errorf("alternatives %v", err.Alternatives)
		}
	})
	t.Run("NeverPathAtAll", func(t *testing.T) {
		_, err := get(t, e, retrieve.Request{Target: "git:HEAD:nothing.md"})
		if err == nil || err.Code != retrieve.CodeVersionNotFound || len(err.Alternatives) != 0 {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("Refused", func(t *testing.T) {
		for target, code := range map[string]retrieve.Code{
			"git:--output=/tmp/x:docs/guide.md": retrieve.CodeInputValidation,
			"git:HEAD~2..HEAD:docs/guide.md":    retrieve.CodeInputValidation,
			"git:HEAD:.git/config":              retrieve.CodeSensitivePath,
			"git:HEAD:docs/.git/config":         retrieve.CodeSensitivePath,
			"git:HEAD:../outside.txt":           retrieve.CodeOutsideRoot,
			"git:HEAD:docs":                     retrieve.CodeNotAFile,
			"git:HEAD":                          retrieve.CodeInputValidation,
			"git::docs/guide.md":                retrieve.CodeInputValidation,
		} {
			_, err := get(t, e, retrieve.Request{Target: target})
			if err == nil || err.Code != code {
				t.Errorf("%s: err = %v, want %s", target, err, code)
			}
		}
	})
	t.Run("DetachedHead", func(t *testing.T) {
		ws.Git("checkout", "-q", "--detach", c1)
		defer ws.Git("checkout", "-q", "main")
		res, err := get(t, e, retrieve.Request{Target: "git:HEAD:docs/guide.md"})
		if err != nil || *res.Citation.Version != "git:"+c1 {
			t.Fatalf("err %v version %v", err, res.Citation.Version)
		}
	})
}

func TestGitFullIDFastPath(t *testing.T) {
	ws := testws.New(t)
	ws.Write("a/b/c.txt", "deep\n")
	ws.Write("top.txt", "top\n")
	if err := os.Symlink("top.txt", filepath.Join(ws.Root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	sha := ws.InitGit()
	e := newEngine(t, ws.Root)
	for target, want := range map[string]string{"git:" + sha + ":a/b/c.txt": "deep\n", "git:" + sha + ":top.txt": "top\n"} {
		for i := 0; i < 2; i++ { // the batch process answers repeatedly
			res, err := get(t, e, retrieve.Request{Target: target})
			if err != nil || res.Retrieved.Data != want || *res.Citation.Version != "git:"+sha {
				t.Fatalf("%s: %v %v", target, err, res.Retrieved.Data)
			}
			if res.Provenance.LastModified == nil || *res.Provenance.LastModified != retrieve.Timestamp(testws.Epoch) {
				t.Errorf("last_modified %v", res.Provenance.LastModified)
			}
		}
	}
	for target, code := range map[string]retrieve.Code{
		"git:" + sha + ":link.txt":                    retrieve.CodeNotAFile,
		"git:" + sha + ":a/b":                         retrieve.CodeNotAFile,
		"git:" + sha + ":a/b/x.txt":                   retrieve.CodeVersionNotFound,
		"git:" + strings.Repeat("0", 40) + ":top.txt": retrieve.CodeVersionNotFound,
	} {
		if _, err := get(t, e, retrieve.Request{Target: target}); err == nil || err.Code != code {
			t.Errorf("%s: %v, want %s", target, err, code)
		}
	}
}

func TestGitNotARepository(t *testing.T) {
	ws := testws.New(t)
	ws.Write("a.txt", "x\n")
	_, err := get(t, newEngine(t, ws.Root), retrieve.Request{Target: "git:HEAD:a.txt"})
	if err == nil || err.Code != retrieve.CodeVersionNotFound || !strings.Contains(err.Message, "not in a git repository") {
		t.Fatalf("err = %v", err)
	}
}

func TestGitShallowAndSubmodule(t *testing.T) {
	up := testws.New(t)
	up.Write("lib.txt", "v1\n")
	first := up.InitGit()
	up.Write("lib.txt", "version 2\n")
	up.Commit("two")

	ws := testws.New(t)
	ws.Write("main.txt", "main\n")
	ws.InitGit()
	ws.Git("-c", "protocol.file.allow=always", "clone", "-q", "--depth", "1", "file://"+up.Root, "shallow")
	ws.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", up.Root, "sub")
	ws.Commit("add submodule")
	e := newEngine(t, ws.Root)

	t.Run("Shallow", func(t *testing.T) {
		res, err := get(t, e, retrieve.Request{Target: "git:HEAD:shallow/lib.txt"})
		if err != nil || res.Retrieved.Data != "version 2\n" {
			t.Fatalf("err %v data %v", err, res.Retrieved.Data)
		}
		if res.Provenance.Metadata["shallow"] != true || !strings.Contains(strings.Join(res.Assumptions, " "), "shallow") {
			t.Errorf("shallow not reported: %v %v", res.Provenance.Metadata, res.Assumptions)
		}
		_, gerr := get(t, e, retrieve.Request{Target: "git:" + first + ":shallow/lib.txt"})
		if gerr == nil || gerr.Code != retrieve.CodeVersionNotFound || !strings.Contains(gerr.Hint, "shallow") {
			t.Errorf("beyond depth: %v", gerr)
		}
	})
	t.Run("SubmoduleEntry", func(t *testing.T) {
		_, err := get(t, e, retrieve.Request{Target: "git:HEAD:sub"})
		if err == nil || err.Code != retrieve.CodeNotAFile || !strings.Contains(err.Message, "submodule") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("InsideSubmodule", func(t *testing.T) {
		res, err := get(t, e, retrieve.Request{Target: "git:" + first + ":sub/lib.txt"})
		if err != nil || res.Retrieved.Data != "v1\n" || res.Provenance.Metadata["repository"] != "sub" {
			t.Fatalf("err %v data %v meta %v", err, res.Retrieved.Data, res.Provenance.Metadata)
		}
	})
}

func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"git:HEAD:README.md", "git:v1.2:a/b.md", "git:-x:a", "git::a", "git:a", "README.md", "git:HEAD~1..HEAD:x", "git:a@{1}:x", "git:\x00:x"} {
		f.Add(s, "")
		f.Add(s, "HEAD")
	}
	f.Fuzz(func(t *testing.T, target, version string) {
		tg, err := git.ParseTarget(target, version)
		if err != nil {
			if retrieve.AsError(err).Code != retrieve.CodeInputValidation {
				t.Fatalf("error code %s", retrieve.AsError(err).Code)
			}
			return
		}
		if tg.Rev == "" || tg.Path == "" || strings.HasPrefix(tg.Rev, "-") || strings.ContainsAny(tg.Rev, " :\n\x00") || strings.Contains(tg.Rev, "..") {
			t.Fatalf("accepted %q %q → %+v", target, version, tg)
		}
	})
}

func TestGitConcurrent(t *testing.T) {
	ws := testws.New(t)
	for i := 0; i < 8; i++ {
		ws.Write(fmt.Sprintf("d/f%d.txt", i), strings.Repeat(fmt.Sprintf("line %d\n", i), 100+i))
	}
	sha := ws.InitGit()
	e := newEngine(t, ws.Root)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 8; i++ {
				n := (g + i) % 8
				res, err := e.Retrieve(context.Background(), retrieve.Request{Target: fmt.Sprintf("git:%s:d/f%d.txt", sha, n)})
				if err != nil {
					errs <- err
					return
				}
				if want := strings.Repeat(fmt.Sprintf("line %d\n", n), 100+n); res.Retrieved.Data != want {
					errs <- fmt.Errorf("f%d: wrong data (%d bytes)", n, len(res.Retrieved.Data.(string)))
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
