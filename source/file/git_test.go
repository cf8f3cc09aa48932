package file

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
)

// findRepo answers as git does where it can (no repository; the nearest
// .git folder or a .git file naming one) and leaves the rest to git:
// $GIT_DIR and the other discovery variables, a .git file naming nothing,
// a bare repository's HEAD, a .git git would not take.
func TestFindRepo(t *testing.T) {
	root := t.TempDir()
	if err := exec.Command("git", "-C", root, "rev-parse", "--absolute-git-dir").Run(); err == nil {
		t.Skipf("the temp folder %s is itself inside a git repository", root)
	}
	deep := filepath.Join(root, "a", "b", "c")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	noEnv := func(string) string { return "" }
	if r, known := findRepo(deep, noEnv); !known || r != nil {
		t.Errorf("no marker: findRepo = %+v, %v; want no repository, known", r, known)
	}
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"} {
		if _, known := findRepo(deep, func(k string) string {
			if k == v {
				return "x"
			}
			return ""
		}); known {
			t.Errorf("$%s set: findRepo answered instead of git", v)
		}
	}
	for _, marker := range []string{".git", "HEAD"} {
		m := filepath.Join(root, "a", marker)
		if err := os.WriteFile(m, []byte("gitdir: ../x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, known := findRepo(deep, noEnv); known {
			t.Errorf("a %s file in a parent: findRepo answered instead of git", marker)
		}
		if err := os.Remove(m); err != nil {
			t.Fatal(err)
		}
	}
	// A .git folder git would not take (no objects) is git's to judge.
	if err := os.MkdirAll(filepath.Join(root, "a", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a", ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, known := findRepo(deep, noEnv); known {
		t.Error("a .git folder without objects: findRepo answered instead of git")
	}
	// A real repository: the same folder git names.
	repo := filepath.Join(root, "repo")
	sub := filepath.Join(repo, "src", "pkg")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	want, err := exec.Command("git", "-C", sub, "rev-parse", "--absolute-git-dir").Output()
	if err != nil {
		t.Fatal(err)
	}
	r, known := findRepo(sub, noEnv)
	if !known || r == nil {
		t.Fatal("a .git folder: findRepo asked git")
	}
	if !r.inproc {
		t.Error("a plain repository: left to the git process")
	}
	a, _ := filepath.EvalSymlinks(r.gitDir)
	b, _ := filepath.EvalSymlinks(strings.TrimSpace(string(want)))
	if a != b {
		t.Errorf("findRepo = %q, git says %q", r.gitDir, want)
	}
}

// Outside any repository git is not started: with no git on $PATH the
// file is still reported as outside version control, not as "git is not
// installed" (which starting git would have said).
func TestNoGitStartedOutsideARepository(t *testing.T) {
	root := t.TempDir()
	if err := exec.Command("git", "-C", root, "rev-parse", "--absolute-git-dir").Run(); err == nil {
		t.Skipf("the temp folder %s is itself inside a git repository", root)
	}
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	s, err := New(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	doc, err := s.Fetch(context.Background(), &retrieve.Request{Target: "notes.txt"})
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Body.Close()
	got := strings.Join(doc.Assumptions, " | ")
	if !strings.Contains(got, "not in a git work tree") || strings.Contains(got, "not installed") {
		t.Errorf("assumptions = %q, want the file outside version control", got)
	}
}
