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

// mayBeInGit finds git's markers in a folder or any parent: a .git entry
// (a work tree, a submodule's .git file) or a HEAD (a bare repository);
// $GIT_DIR always asks git.
func TestMayBeInGit(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b", "c")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("git", "-C", root, "rev-parse", "--absolute-git-dir").Run(); err == nil {
		t.Skipf("the temp folder %s is itself inside a git repository", root)
	}
	if mayBeInGit(deep, "") {
		t.Errorf("no marker: mayBeInGit(%s) = true", deep)
	}
	if !mayBeInGit(deep, filepath.Join(root, "elsewhere.git")) {
		t.Error("$GIT_DIR set: mayBeInGit = false")
	}
	for _, marker := range []string{".git", "HEAD"} {
		m := filepath.Join(root, "a", marker)
		if err := os.WriteFile(m, []byte("gitdir: ../x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if !mayBeInGit(deep, "") {
			t.Errorf("%s in a parent: mayBeInGit = false", marker)
		}
		if err := os.Remove(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(deep, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if !mayBeInGit(deep, "") {
		t.Error(".git folder in the folder itself: mayBeInGit = false")
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
