package file

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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
	key    statusKey
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
			r.setPaths()
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

// openedFile is a workspace file as the workspace opened it: its stat data
// and its content. The git state is read from these, never by the path
// again, so it describes the bytes retrieved (and no path is opened
// outside workspace.FS).
type openedFile struct {
	fi      os.FileInfo
	content io.ReaderAt
}

// status is the git state of the workspace file rel, opened as file.
func (g *gitInfo) status(ctx context.Context, rel string, file openedFile) gitStatus {
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
	key := fingerprint(file.fi, r)
	g.mu.Lock()
	c, ok := g.cache[abs]
	g.mu.Unlock()
	if ok && key.valid() && c.key == key {
		return c.status
	}
	var st gitStatus
	if r.inproc && !g.processOnly {
		st, err = r.stateInProcess(abs, file, &g.trees)
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
	if key.valid() {
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

// stamp identifies a version of a file by its stat data: git rewrites
// HEAD, refs and the index by renaming a new file over the old one, so a
// change always shows in the inode, the size or the times.
type stamp struct {
	id     fileID
	mode   fs.FileMode
	exists bool
}

func stampInfo(fi os.FileInfo) stamp {
	id, ok := statID(fi)
	if !ok {
		id = fileID{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	}
	return stamp{id: id, mode: fi.Mode(), exists: true}
}

// statusKey identifies the inputs of a git status answer: the file, the
// index, HEAD, the ref HEAD names (loose) and packed-refs, each by its
// stat data. A file or HEAD that cannot be read disables caching.
type statusKey struct {
	file, index, head, ref, packed stamp
}

func (k statusKey) valid() bool { return k.file.exists && k.head.exists }

// fingerprint is the statusKey of a file (fi: its stat data) in r: three
// or four stat calls, and a read of HEAD only when HEAD changed since the
// last call. packed-refs counts only when the ref is not a loose file,
// which takes precedence over it.
func fingerprint(fi os.FileInfo, r *gitRepo) statusKey {
	k := statusKey{
		file:  stampInfo(fi),
		index: stampOf(r.indexPath),
		head:  stampOf(r.headPath),
	}
	if !k.valid() {
		return k
	}
	ref, ok := r.headRef(k.head)
	if !ok {
		k.head.exists = false
		return k
	}
	if ref != "" {
		if k.ref = stampOf(filepath.Join(r.gitDir, filepath.FromSlash(ref))); !k.ref.exists && r.commonDir != r.gitDir {
			k.ref = stampOf(filepath.Join(r.commonDir, filepath.FromSlash(ref)))
		}
		if !k.ref.exists {
			k.packed = stampOf(filepath.Join(r.commonDir, "packed-refs"))
		}
	}
	return k
}

// headRef is the ref HEAD names ("" when detached), read again only when
// HEAD's stamp changes.
func (r *gitRepo) headRef(st stamp) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.headSeen == st {
		return r.headName, true
	}
	b, err := os.ReadFile(r.headPath)
	if err != nil {
		return "", false
	}
	ref, _ := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: ")
	if isHexID(ref) {
		ref = ""
	}
	r.headSeen, r.headName = st, ref
	return ref, true
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
