package file

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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

// gitInfo learns a file's git state in process — from the index, HEAD and
// the objects (gitrepo.go) — and asks `git status` only for what that
// reader leaves to git. It caches the answer until the file, the index or
// HEAD change, so that repeated retrievals of the same file cost a few
// stat calls.
type gitInfo struct {
	root string
	// processOnly sends every question to the git process (benchmarks
	// compare the two paths).
	processOnly bool

	mu    sync.Mutex
	repos map[string]*gitRepo // directory → its repository (nil when none)
	cache map[string]cachedStatus
	trees treeCache
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
	return &gitInfo{root: abs, repos: map[string]*gitRepo{}, cache: map[string]cachedStatus{}}
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

// repo returns the repository governing dir, nil when there is none.
func (g *gitInfo) repo(ctx context.Context, dir string) (*gitRepo, error) {
	g.mu.Lock()
	r, ok := g.repos[dir]
	g.mu.Unlock()
	if ok {
		return r, nil
	}
	r, known := findRepo(dir, os.Getenv)
	if !known {
		out, err := g.run(ctx, dir, "rev-parse", "--absolute-git-dir", "--git-common-dir")
		switch {
		case err == nil:
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			r = &gitRepo{gitDir: lines[0], commonDir: lines[0]}
			if len(lines) > 1 {
				c := lines[1]
				if !filepath.IsAbs(c) {
					c = filepath.Join(dir, c)
				}
				r.commonDir = filepath.Clean(c)
			}
		case errors.Is(err, exec.ErrNotFound):
			return nil, err
		case strings.Contains(err.Error(), "not a git repository"):
			r = nil
		default:
			return nil, err
		}
	}
	g.mu.Lock()
	g.repos[dir] = r
	g.mu.Unlock()
	return r, nil
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
	r, err := g.repo(ctx, dir)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return gitStatus{state: gitUnavailable, reason: "git is not installed"}
		}
		return gitStatus{state: gitUnavailable, reason: firstLine(err.Error())}
	}
	if r == nil {
		return gitStatus{state: gitNone}
	}
	key := fingerprint(abs, r)
	g.mu.Lock()
	c, ok := g.cache[abs]
	g.mu.Unlock()
	if ok && key != "" && c.key == key {
		return c.status
	}
	var st gitStatus
	if r.inproc && !g.processOnly {
		st, err = r.stateInProcess(abs, &g.trees)
	}
	if !r.inproc || g.processOnly || err != nil {
		// What the reader does not handle (errFallback), or a read that
		// failed: git answers, with its own errors.
		out, err := g.run(ctx, dir, "status", "--porcelain=v2", "--branch", "--untracked-files=all", "--ignored=matching", "--", base)
		if err != nil {
			return gitStatus{state: gitUnavailable, reason: firstLine(err.Error())}
		}
		st = parseStatus(out)
	}
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
// size, mtime and mode, the index's size and mtime, what HEAD points to and
// the ref it names (loose, or packed-refs' stat). "" disables caching.
func fingerprint(abs string, r *gitRepo) string {
	var b strings.Builder
	fi, err := os.Stat(abs)
	if err != nil {
		return ""
	}
	fmt.Fprintf(&b, "%d.%d.%o|", fi.Size(), fi.ModTime().UnixNano(), fi.Mode())
	if fi, err := os.Stat(filepath.Join(r.gitDir, "index")); err == nil {
		fmt.Fprintf(&b, "%d.%d|", fi.Size(), fi.ModTime().UnixNano())
	} else {
		b.WriteString("-|")
	}
	head, err := os.ReadFile(filepath.Join(r.gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	b.Write(head)
	if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); ok {
		target, err := os.ReadFile(filepath.Join(r.gitDir, filepath.FromSlash(ref)))
		if err != nil && r.commonDir != r.gitDir {
			target, err = os.ReadFile(filepath.Join(r.commonDir, filepath.FromSlash(ref)))
		}
		if err == nil {
			b.Write(target)
		} else {
			// A packed ref, or none yet (an unborn branch): key on
			// packed-refs and on the ref's absence.
			b.WriteString("|-")
		}
		if fi, err := os.Stat(filepath.Join(r.commonDir, "packed-refs")); err == nil {
			fmt.Fprintf(&b, "|packed %d.%d", fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return b.String()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
