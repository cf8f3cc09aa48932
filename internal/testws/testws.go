// Package testws makes real workspaces for tests: temp directories with
// files and, when asked, a real git repository with deterministic commits.
package testws

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Epoch is the fixed time used for commits and file mtimes, so that commit
// ids and results are the same on every run.
var Epoch = time.Date(2025, 1, 20, 10, 0, 0, 0, time.UTC)

// Workspace is a temporary workspace directory.
type Workspace struct {
	T    testing.TB
	Root string
}

// New returns an empty workspace in a temp directory.
func New(t testing.TB) *Workspace {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &Workspace{T: t, Root: root}
}

// Write creates a file (and its directories) with mtime Epoch.
func (w *Workspace) Write(rel, content string) string {
	w.T.Helper()
	p := filepath.Join(w.Root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		w.T.Fatal(err)
	}
	if err := os.Chtimes(p, Epoch, Epoch); err != nil {
		w.T.Fatal(err)
	}
	return p
}

// Git runs git in the workspace with a fixed identity and dates, and
// returns its trimmed output.
func (w *Workspace) Git(args ...string) string {
	w.T.Helper()
	return GitIn(w.T, w.Root, args...)
}

// GitIn runs git in dir with a fixed identity and dates.
func GitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	date := Epoch.Format(time.RFC3339)
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.invalid", "GIT_AUTHOR_DATE="+date,
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.invalid", "GIT_COMMITTER_DATE="+date,
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// InitGit makes the workspace a git repository on branch main and commits
// everything in it. It returns the commit id.
func (w *Workspace) InitGit() string {
	w.T.Helper()
	w.Git("init", "-q", "-b", "main")
	return w.Commit("initial")
}

// Commit stages everything and commits; it returns the commit id.
func (w *Workspace) Commit(msg string) string {
	w.T.Helper()
	w.Git("add", "-A")
	w.Git("commit", "-q", "--allow-empty", "-m", msg)
	return w.Git("rev-parse", "HEAD")
}
