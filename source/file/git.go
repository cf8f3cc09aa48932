package file

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

type gitState int

const (
	gitNone        gitState = iota // not in a git work tree
	gitClean                       // tracked, identical to HEAD
	gitDirty                       // tracked, differs from HEAD
	gitUntracked                   // untracked or ignored
	gitNoHead                      // repository without commits
	gitUnavailable                 // git missing or failing
)

type gitStatus struct {
	state  gitState
	head   string
	reason string
}

// gitInfo asks git for a file's state with one `git status` per file, and
// caches the answer until the file, the index or HEAD change, so that
// repeated retrievals of the same file cost a few stat calls.
type gitInfo struct {
	root string

	mu      sync.Mutex
	gitDirs map[string]string // directory → absolute git dir ("" when none)
	cache   map[string]cachedStatus
}

type cachedStatus struct {
	key    string
	status gitStatus
}

func newGitInfo(root string) *gitInfo {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = root
	}
	return &gitInfo{root: abs, gitDirs: map[string]string{}, cache: map[string]cachedStatus{}}
}

const gitTimeout = 10 * time.Second

func (g *gitInfo) run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"--literal-pathspecs", "-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// gitDir returns the git directory governing dir, "" when there is none.
func (g *gitInfo) gitDir(ctx context.Context, dir string) (string, error) {
	g.mu.Lock()
	gd, ok := g.gitDirs[dir]
	g.mu.Unlock()
	if ok {
		return gd, nil
	}
	out, err := []byte(nil), error(nil)
	if found, known := findGitDir(dir, os.Getenv); known {
		out = []byte(found)
	} else {
		out, err = g.run(ctx, dir, "rev-parse", "--absolute-git-dir")
	}
	switch {
	case err == nil:
		gd = strings.TrimSpace(string(out))
	case errors.Is(err, exec.ErrNotFound):
		return "", err
	case strings.Contains(err.Error(), "not a git repository"):
		gd = ""
	default:
		return "", err
	}
	g.mu.Lock()
	g.gitDirs[dir] = gd
	g.mu.Unlock()
	return gd, nil
}

// findGitDir finds the git directory governing dir without starting git,
// in the two common cases, and says whether it knows (known false: ask
// git). No .git entry and no HEAD (a bare repository) in dir or any of its
// parents: there is no repository ("" known). The nearest marker is a
// .git folder holding HEAD and objects (what git checks): that folder.
// Anything else — $GIT_DIR, $GIT_WORK_TREE, $GIT_CEILING_DIRECTORIES or
// $GIT_DISCOVERY_ACROSS_FILESYSTEM set, a .git file (a worktree, a
// submodule), a bare repository, a .git git would not take — is git's to
// answer. Starting git costs a few milliseconds of every CLI retrieval.
func findGitDir(dir string, getenv func(string) string) (gitDir string, known bool) {
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"} {
		if getenv(v) != "" {
			return "", false
		}
	}
	for d := filepath.Clean(dir); ; {
		dotGit := filepath.Join(d, ".git")
		fi, err := os.Lstat(dotGit)
		switch {
		case err == nil && fi.IsDir() && isGitDir(dotGit):
			abs, err := filepath.Abs(dotGit)
			return abs, err == nil
		case err == nil || !errors.Is(err, fs.ErrNotExist):
			return "", false
		}
		if _, err := os.Lstat(filepath.Join(d, "HEAD")); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return "", false
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", true
		}
		d = parent
	}
}

// isGitDir says whether a .git folder holds what git checks for: a HEAD
// file and an objects folder.
func isGitDir(dotGit string) bool {
	head, err := os.Lstat(filepath.Join(dotGit, "HEAD"))
	if err != nil || !head.Mode().IsRegular() {
		return false
	}
	objects, err := os.Stat(filepath.Join(dotGit, "objects"))
	return err == nil && objects.IsDir()
}

func (g *gitInfo) status(ctx context.Context, rel string) gitStatus {
	abs := filepath.Join(g.root, filepath.FromSlash(rel))
	dir, base := filepath.Split(abs)
	gd, err := g.gitDir(ctx, dir)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return gitStatus{state: gitUnavailable, reason: "git is not installed"}
		}
		return gitStatus{state: gitUnavailable, reason: firstLine(err.Error())}
	}
	if gd == "" {
		return gitStatus{state: gitNone}
	}
	key := fingerprint(abs, gd)
	g.mu.Lock()
	c, ok := g.cache[abs]
	g.mu.Unlock()
	if ok && key != "" && c.key == key {
		return c.status
	}
	out, err := g.run(ctx, dir, "status", "--porcelain=v2", "--branch", "--untracked-files=all", "--ignored=matching", "--", base)
	if err != nil {
		return gitStatus{state: gitUnavailable, reason: firstLine(err.Error())}
	}
	st := parseStatus(out)
	if key != "" {
		g.mu.Lock()
		g.cache[abs] = cachedStatus{key: key, status: st}
		g.mu.Unlock()
	}
	return st
}

func parseStatus(out []byte) gitStatus {
	st := gitStatus{state: gitClean}
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(line, "# branch.oid "):
			st.head = strings.TrimPrefix(line, "# branch.oid ")
		case strings.HasPrefix(line, "1 "), strings.HasPrefix(line, "2 "), strings.HasPrefix(line, "u "):
			st.state = gitDirty
		case strings.HasPrefix(line, "? "), strings.HasPrefix(line, "! "):
			st.state = gitUntracked
		}
	}
	if st.state != gitUntracked && (st.head == "" || st.head == "(initial)") {
		st.state = gitNoHead
	}
	return st
}

// fingerprint identifies the inputs of a git status answer: the file's
// size and mtime, the index's, and what HEAD points to. "" disables caching.
func fingerprint(abs, gitDir string) string {
	var b strings.Builder
	for _, p := range []string{abs, filepath.Join(gitDir, "index")} {
		fi, err := os.Stat(p)
		if err != nil {
			if p == abs {
				return ""
			}
			b.WriteString("-|")
			continue
		}
		fmt.Fprintf(&b, "%d.%d|", fi.Size(), fi.ModTime().UnixNano())
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	b.Write(head)
	if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); ok {
		target, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref)))
		if err != nil {
			// A packed ref: key on packed-refs instead.
			fi, perr := os.Stat(filepath.Join(gitDir, "packed-refs"))
			if perr != nil {
				return ""
			}
			fmt.Fprintf(&b, "|packed %d.%d", fi.Size(), fi.ModTime().UnixNano())
		} else {
			b.Write(target)
		}
	}
	return b.String()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
