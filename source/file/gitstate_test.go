package file

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/internal/testws"
)

var stateNames = map[gitState]string{
	gitNone: "none", gitClean: "clean", gitDirty: "dirty", gitUntracked: "untracked",
	gitNoHead: "no HEAD", gitUnavailable: "unavailable",
}

// gitSays is the oracle: `git status --porcelain=v2` on the file, read as
// the process path reads it.
func gitSays(t *testing.T, abs string) gitStatus {
	t.Helper()
	dir, base := filepath.Split(abs)
	cmd := exec.Command("git", "--literal-pathspecs", "-C", dir, "status", "--porcelain=v2", "--branch", "--untracked-files=all", "--ignored=matching", "--", base)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git status %s: %v", abs, err)
	}
	return parseStatus(out)
}

// checkState compares the in-process answer for abs with git's. handled
// says the reader must answer itself (no fallback to the process).
func checkState(t *testing.T, name, abs string, handled bool) {
	t.Helper()
	want := gitSays(t, abs)
	r, known := findRepo(filepath.Dir(abs), func(string) string { return "" })
	if !known || r == nil {
		t.Fatalf("%s: findRepo(%s) = %v, %v; want a repository", name, abs, r, known)
	}
	var got gitStatus
	err := errFallback
	if r.inproc {
		got, err = r.stateInProcess(abs, openFile(t, abs), &treeCache{})
	}
	switch {
	case err != nil && handled:
		t.Errorf("%s: in process: %v; want an answer (git says %s)", name, err, stateNames[want.state])
	case err != nil && !errors.Is(err, errFallback):
		t.Errorf("%s: in process: %v; want an answer or errFallback", name, err)
	case err == nil:
		if got.state != want.state || ((got.state == gitClean || got.state == gitDirty) && got.head != want.head) {
			t.Errorf("%s: in process = %s at %q; git says %s at %q", name, stateNames[got.state], got.head, stateNames[want.state], want.head)
		}
	}
	// Through gitInfo (with its fallback and cache), twice.
	root := filepath.Dir(abs)
	g := newGitInfo(root)
	for i := range 2 {
		st := g.status(context.Background(), filepath.Base(abs), openFile(t, abs))
		if st.state != want.state || ((st.state == gitClean || st.state == gitDirty) && st.head != want.head) {
			t.Errorf("%s: status (call %d) = %s at %q; git says %s at %q", name, i+1, stateNames[st.state], st.head, stateNames[want.state], want.head)
		}
	}
}

// openFile opens a file as the source does, closed with the test.
func openFile(t testing.TB, p string) openedFile {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return openedFile{fi: fi, content: f}
}

func write(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newRepo(t *testing.T) *testws.Workspace { return newRepoTB(t) }

func newRepoTB(t testing.TB) *testws.Workspace {
	t.Helper()
	w := testws.New(t)
	if err := exec.Command("git", "-C", w.Root, "rev-parse", "--absolute-git-dir").Run(); err == nil {
		t.Skipf("the temp folder %s is itself inside a git repository", w.Root)
	}
	w.Git("init", "-q", "-b", "main")
	return w
}

// Every state the file source reports, in process, against git status.
func TestGitStateMatchesGitStatus(t *testing.T) {
	w := newRepo(t)
	p := func(rel string) string { return filepath.Join(w.Root, filepath.FromSlash(rel)) }

	// No commit yet.
	write(t, p("staged.txt"), "staged\n")
	write(t, p("loose.txt"), "loose\n")
	w.Git("add", "staged.txt")
	checkState(t, "unborn, in the index", p("staged.txt"), true)
	checkState(t, "unborn, untracked", p("loose.txt"), true)

	// Committed.
	for _, f := range []string{"clean.txt", "dirty.txt", "samesize.txt", "mode.sh", "staged2.txt", "a/b/deep.txt", "skip.txt", "assume.txt"} {
		write(t, p(f), "content of "+f+"\n")
	}
	write(t, p(".gitignore"), "*.log\n")
	head := w.Commit("one")
	write(t, p("build.log"), "ignored\n")
	write(t, p("new.txt"), "untracked\n")
	write(t, p("dirty.txt"), "changed, and longer than before\n")
	time.Sleep(10 * time.Millisecond)
	write(t, p("samesize.txt"), "CONTENT OF samesize.txt\n")
	if err := os.Chmod(p("mode.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, p("staged2.txt"), "staged change\n")
	w.Git("add", "staged2.txt")
	write(t, p("ita.txt"), "intent to add\n")
	w.Git("add", "-N", "ita.txt")
	w.Git("update-index", "--skip-worktree", "skip.txt")
	write(t, p("skip.txt"), "changed behind git's back\n")
	w.Git("update-index", "--assume-unchanged", "assume.txt")
	write(t, p("assume.txt"), "changed behind git's back\n")

	cases := []struct {
		name, rel string
		handled   bool
	}{
		{"clean", "clean.txt", true},
		{"clean, nested", "a/b/deep.txt", true},
		{"dirty content", "dirty.txt", true},
		{"dirty content, same size", "samesize.txt", false},
		{"dirty mode", "mode.sh", true},
		{"staged change", "staged2.txt", true},
		{"intent to add", "ita.txt", true},
		{"skip-worktree", "skip.txt", true},
		{"assume-unchanged", "assume.txt", true},
		{"untracked", "new.txt", true},
		{"ignored", "build.log", true},
	}
	check := func(label string) {
		for _, c := range cases {
			checkState(t, label+c.name, p(c.rel), c.handled)
		}
	}
	check("")
	if got := gitSays(t, p("clean.txt")).head; got != head {
		t.Fatalf("oracle head = %q, want %q", got, head)
	}

	// Packed refs and packed objects: HEAD's tree read from a pack.
	w.Git("pack-refs", "--all")
	w.Git("repack", "-a", "-d", "-q")
	w.Git("prune-packed")
	if _, err := os.Stat(p(".git/refs/heads/main")); err == nil {
		t.Fatal("the branch is still a loose ref after pack-refs")
	}
	check("packed: ")

	// Index version 4 (prefix-compressed paths).
	w.Git("update-index", "--index-version", "4")
	check("index v4: ")
	w.Git("update-index", "--index-version", "3")
	check("index v3: ")

	// Detached HEAD.
	w.Git("checkout", "-q", "--detach")
	check("detached: ")
}

// Racy timestamps: a file whose mtime is not older than the index is
// compared by content, as git compares it.
func TestGitStateRacy(t *testing.T) {
	w := newRepo(t)
	f := filepath.Join(w.Root, "racy.txt")
	write(t, f, "first\n")
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(f, future, future); err != nil {
		t.Fatal(err)
	}
	w.Commit("one")
	checkState(t, "racy, unchanged", f, true)
	write(t, f, "FIRST\n")
	if err := os.Chtimes(f, future, future); err != nil {
		t.Fatal(err)
	}
	checkState(t, "racy, changed at the same size and mtime", f, false)
	write(t, f, "changed again\n")
	checkState(t, "changed size", f, true)
}

// A worktree (a .git file with a commondir) and a submodule (a .git file,
// core.worktree in its git folder) are read in process.
func TestGitStateWorktreeAndSubmodule(t *testing.T) {
	w := newRepo(t)
	write(t, filepath.Join(w.Root, "main.txt"), "main\n")
	w.Commit("one")

	wt := filepath.Join(t.TempDir(), "wt")
	w.Git("worktree", "add", "-q", "-b", "feature", wt)
	checkState(t, "worktree, clean", filepath.Join(wt, "main.txt"), true)
	write(t, filepath.Join(wt, "main.txt"), "changed in the worktree\n")
	checkState(t, "worktree, dirty", filepath.Join(wt, "main.txt"), true)
	write(t, filepath.Join(wt, "other.txt"), "untracked\n")
	checkState(t, "worktree, untracked", filepath.Join(wt, "other.txt"), true)
	testws.GitIn(t, wt, "pack-refs", "--all")
	checkState(t, "worktree, packed refs", filepath.Join(wt, "main.txt"), true)

	lib := testws.New(t)
	lib.Git("init", "-q", "-b", "main")
	write(t, filepath.Join(lib.Root, "lib.txt"), "library\n")
	lib.Commit("lib")
	w.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", lib.Root, "sub")
	w.Commit("add sub")
	inSub := filepath.Join(w.Root, "sub", "lib.txt")
	if fi, err := os.Lstat(filepath.Join(w.Root, "sub", ".git")); err != nil || fi.IsDir() {
		t.Fatalf("sub/.git: %v; want a .git file", err)
	}
	checkState(t, "submodule, clean", inSub, true)
	write(t, inSub, "changed in the submodule\n")
	checkState(t, "submodule, dirty", inSub, true)
}

// Repositories the reader leaves to git are answered by git.
func TestGitStateFallback(t *testing.T) {
	w := newRepo(t)
	f := filepath.Join(w.Root, "f.txt")
	write(t, f, "hello\n")
	write(t, filepath.Join(w.Root, "out", "x.txt"), "outside the cone\n")
	w.Commit("one")
	w.Git("config", "core.ignorecase", "true")
	r, _ := findRepo(w.Root, func(string) string { return "" })
	if r == nil || r.inproc {
		t.Fatalf("core.ignorecase: findRepo = %+v; want a repository left to git", r)
	}
	checkState(t, "left to git", f, false)
	w.Git("config", "--unset", "core.ignorecase")
	w.Git("sparse-checkout", "init", "--cone", "--sparse-index")
	checkState(t, "sparse index", f, false)
	_, err := lookupIndex(mustRead(t, filepath.Join(w.Root, ".git", "index")), "f.txt")
	if !errors.Is(err, errIndexUnsupported) {
		t.Errorf("sparse index: lookupIndex err = %v, want errIndexUnsupported", err)
	}
}

func mustRead(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The cache key of an unborn branch is stable, so a repository with no
// commit yet does not ask again on every read; a commit, a change of mode
// and a checkout change it.
func TestFingerprint(t *testing.T) {
	w := newRepo(t)
	f := filepath.Join(w.Root, "f.txt")
	write(t, f, "hello\n")
	r, _ := findRepo(w.Root, func(string) string { return "" })
	k1 := fingerprint(openFile(t, f).fi, r)
	if !k1.valid() || k1 != fingerprint(openFile(t, f).fi, r) {
		t.Fatalf("unborn fingerprint = %+v, want a stable valid key", k1)
	}
	w.Commit("one")
	k2 := fingerprint(openFile(t, f).fi, r)
	if k2 == k1 || !k2.valid() {
		t.Errorf("fingerprint after the first commit = %+v, want a new valid key", k2)
	}
	if err := os.Chmod(f, 0o755); err != nil {
		t.Fatal(err)
	}
	k3 := fingerprint(openFile(t, f).fi, r)
	if k3 == k2 {
		t.Error("fingerprint after chmod unchanged")
	}
	w.Git("checkout", "-q", "-b", "other")
	w.Git("commit", "-q", "--allow-empty", "-m", "two")
	if k4 := fingerprint(openFile(t, f).fi, r); k4 == k3 || k4.ref == k3.ref {
		t.Errorf("fingerprint after a commit on another branch: ref stamp unchanged (%+v)", k4.ref)
	}
}

// One gitInfo answers concurrent reads of several files (serve does), each
// with its own state; run with -race.
func TestGitStateConcurrent(t *testing.T) {
	w := newRepo(t)
	p := func(rel string) string { return filepath.Join(w.Root, rel) }
	write(t, p("clean.txt"), "clean\n")
	write(t, p("dirty.txt"), "dirty\n")
	w.Commit("one")
	write(t, p("dirty.txt"), "dirty and longer\n")
	write(t, p("new.txt"), "new\n")
	want := map[string]gitState{"clean.txt": gitClean, "dirty.txt": gitDirty, "new.txt": gitUntracked}
	g := newGitInfo(w.Root)
	files := map[string]openedFile{}
	for f := range want {
		files[f] = openFile(t, p(f))
	}
	errs := make(chan string, 8*30*3)
	done := make(chan struct{})
	for range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 30 {
				for f, st := range want {
					if got := g.status(context.Background(), f, files[f]); got.state != st {
						errs <- f + ": " + stateNames[got.state] + ", want " + stateNames[st]
					}
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// An unresolved merge (index stages 1–3) is dirty, as git status's "u".
func TestGitStateConflict(t *testing.T) {
	w := newRepo(t)
	f := filepath.Join(w.Root, "f.txt")
	write(t, f, "base\n")
	w.Commit("base")
	w.Git("checkout", "-q", "-b", "other")
	write(t, f, "other\n")
	w.Commit("other")
	w.Git("checkout", "-q", "main")
	write(t, f, "main\n")
	w.Commit("main")
	cmd := exec.Command("git", "-C", w.Root, "-c", "user.name=t", "-c", "user.email=t@e.invalid", "merge", "-q", "other")
	if err := cmd.Run(); err == nil {
		t.Fatal("the merge did not conflict")
	}
	if got := gitSays(t, f); got.state != gitDirty {
		t.Fatalf("oracle: git says %s, want dirty for a conflict", stateNames[got.state])
	}
	checkState(t, "conflict", f, true)
}
