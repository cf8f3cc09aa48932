package file

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// gitRepo is one repository found above a workspace folder.
type gitRepo struct {
	gitDir    string // absolute: HEAD and the index (per work tree)
	commonDir string // absolute: objects, refs, packed-refs, config (shared by worktrees)
	workTree  string // absolute top of the work tree
	indexPath string // gitDir/index
	headPath  string // gitDir/HEAD
	// inproc says the in-process reader may answer for this repository;
	// false leaves every answer to the git process.
	inproc   bool
	fileMode bool // core.filemode: the executable bit counts

	mu       sync.Mutex
	headSeen stamp  // HEAD's stamp when headName was read
	headName string // the ref HEAD names, "" when detached
}

// errFallback marks a case the in-process reader leaves to git.
var errFallback = errors.New("left to the git process")

// findRepo finds the repository governing dir without starting git, and
// says whether it knows (known false: ask git). No .git entry and no HEAD
// (a bare repository) in dir or any of its parents: no repository (nil,
// known). The nearest .git is a folder holding HEAD and objects, or a file
// naming such a folder (a worktree, a submodule): that repository, read in
// process when its configuration allows (see repoConfig). Anything else —
// $GIT_DIR, $GIT_WORK_TREE, $GIT_CEILING_DIRECTORIES or
// $GIT_DISCOVERY_ACROSS_FILESYSTEM set, a bare repository, a .git git would
// not take — is git's to answer.
func findRepo(dir string, getenv func(string) string) (repo *gitRepo, known bool) {
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"} {
		if getenv(v) != "" {
			return nil, false
		}
	}
	for d := filepath.Clean(dir); ; {
		dotGit := filepath.Join(d, ".git")
		fi, err := os.Lstat(dotGit)
		switch {
		case err == nil && fi.IsDir() && isGitDir(dotGit):
			return newGitRepo(dotGit, dotGit, d)
		case err == nil && fi.Mode().IsRegular():
			gd, ok := readGitFile(dotGit)
			if !ok {
				return nil, false
			}
			common := gd
			if b, err := os.ReadFile(filepath.Join(gd, "commondir")); err == nil {
				c := strings.TrimSpace(string(b))
				if !filepath.IsAbs(c) {
					c = filepath.Join(gd, c)
				}
				common = filepath.Clean(c)
			}
			if !isRegular(filepath.Join(gd, "HEAD")) || !isGitDir(common) {
				return nil, false
			}
			return newGitRepo(gd, common, d)
		case err == nil || !errors.Is(err, fs.ErrNotExist):
			return nil, false
		}
		if _, err := os.Lstat(filepath.Join(d, "HEAD")); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return nil, false
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, true
		}
		d = parent
	}
}

// readGitFile reads a .git file ("gitdir: <path>", relative to the file's
// folder) and returns the folder it names.
func readGitFile(p string) (string, bool) {
	b, err := os.ReadFile(p)
	if err != nil {
		return "", false
	}
	gd, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok || gd == "" {
		return "", false
	}
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(filepath.Dir(p), gd)
	}
	return filepath.Clean(gd), true
}

func newGitRepo(gitDir, commonDir, workTree string) (*gitRepo, bool) {
	var err error
	r := &gitRepo{}
	if r.gitDir, err = filepath.Abs(gitDir); err != nil {
		return nil, false
	}
	if r.commonDir, err = filepath.Abs(commonDir); err != nil {
		return nil, false
	}
	if r.workTree, err = filepath.Abs(workTree); err != nil {
		return nil, false
	}
	r.setPaths()
	r.inproc, r.fileMode = repoConfig(r)
	return r, true
}

func (r *gitRepo) setPaths() {
	r.indexPath = filepath.Join(r.gitDir, "index")
	r.headPath = filepath.Join(r.gitDir, "HEAD")
}

// repoConfig reads the repository's configuration and says whether the
// in-process reader may answer, and whether the executable bit counts.
// It may not when the configuration changes what it reads: another object
// format (sha256) or ref storage (reftable), a newer repository format,
// case-insensitive paths, no symbolic links, a work tree elsewhere than
// where .git was found, a bare repository, or include files it would have
// to follow.
func repoConfig(r *gitRepo) (inproc, fileMode bool) {
	cfg := gitconfig.New()
	for _, p := range []string{filepath.Join(r.commonDir, "config"), filepath.Join(r.gitDir, "config.worktree")} {
		f, err := os.Open(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return false, false
		}
		err = gitconfig.NewDecoder(bufio.NewReader(f)).Decode(cfg)
		f.Close()
		if err != nil {
			return false, false
		}
	}
	core := cfg.Section("core")
	ext := cfg.Section("extensions")
	if v := core.Option("repositoryformatversion"); v != "" && v != "0" && v != "1" {
		return false, false
	}
	if f := ext.Option("objectformat"); f != "" && !strings.EqualFold(f, "sha1") {
		return false, false
	}
	if s := ext.Option("refstorage"); s != "" && !strings.EqualFold(s, "files") {
		return false, false
	}
	if cfg.HasSection("include") || cfg.HasSection("includeif") {
		return false, false
	}
	if isTrue(core.Option("bare")) || isTrue(core.Option("ignorecase")) || isFalse(core.Option("symlinks")) {
		return false, false
	}
	if wt := core.Option("worktree"); wt != "" {
		// A submodule's git folder names its work tree; it must be the
		// folder that holds the .git file.
		if !filepath.IsAbs(wt) {
			wt = filepath.Join(r.gitDir, wt)
		}
		a, err1 := filepath.EvalSymlinks(wt)
		b, err2 := filepath.EvalSymlinks(r.workTree)
		if err1 != nil || err2 != nil || a != b {
			return false, false
		}
	}
	return true, !isFalse(core.Option("filemode"))
}

func isTrue(v string) bool {
	switch strings.ToLower(v) {
	case "true", "yes", "on", "1":
		return true
	}
	return false
}

func isFalse(v string) bool {
	switch strings.ToLower(v) {
	case "false", "no", "off", "0":
		return true
	}
	return false
}

func isRegular(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}

// head resolves HEAD to a commit id: "" when the branch has no commit yet
// (an unborn branch), errFallback when refs are not plain files.
func (r *gitRepo) head() (string, error) {
	b, err := os.ReadFile(filepath.Join(r.gitDir, "HEAD"))
	if err != nil {
		return "", err
	}
	s := strings.TrimSpace(string(b))
	for range 5 {
		ref, ok := strings.CutPrefix(s, "ref: ")
		if !ok {
			if !isHexID(s) {
				return "", fmt.Errorf("%w: HEAD holds %q", errFallback, firstLine(s))
			}
			return s, nil
		}
		if !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "..") {
			return "", fmt.Errorf("%w: ref %q", errFallback, ref)
		}
		if s, ok, err = r.readRef(ref); err != nil || !ok {
			return "", err
		}
	}
	return "", fmt.Errorf("%w: symbolic refs nested too deep", errFallback)
}

// readRef reads a ref as a loose file (the work tree's own git folder
// first, for per-worktree refs, then the common one), then in packed-refs.
// Not found: an unborn branch (ok false).
func (r *gitRepo) readRef(ref string) (string, bool, error) {
	for _, d := range []string{r.gitDir, r.commonDir} {
		b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(ref)))
		if err == nil {
			return strings.TrimSpace(string(b)), true, nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) && !errors.Is(err, syscall.EISDIR) {
			return "", false, err
		}
		if r.gitDir == r.commonDir {
			break
		}
	}
	f, err := os.Open(filepath.Join(r.commonDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		id, name, ok := strings.Cut(line, " ")
		if ok && name == ref {
			return id, true, nil
		}
	}
	return "", false, sc.Err()
}

func isHexID(s string) bool {
	if len(s) != 40 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// headEntry finds path in HEAD's tree: its mode and blob id, found false
// when HEAD's tree has no such file. Objects are read through go-git's
// object storage, loose or packed (with its deltas); the commit and the
// trees are parsed here. An object it cannot read is left to git.
func (r *gitRepo) headEntry(head, path string) (mode uint32, sha [20]byte, found bool, err error) {
	st := filesystem.NewStorageWithOptions(idxReadFS{osfs.New(r.commonDir)}, cache.NewObjectLRU(1<<20), filesystem.Options{AlternatesFS: osfs.New("/")})
	defer st.Close()
	read := func(t plumbing.ObjectType, id plumbing.Hash) ([]byte, error) {
		o, err := st.EncodedObject(t, id)
		if err != nil {
			return nil, fmt.Errorf("%w: %s %s: %v", errFallback, t, id, err)
		}
		rd, err := o.Reader()
		if err != nil {
			return nil, fmt.Errorf("%w: %s %s: %v", errFallback, t, id, err)
		}
		defer rd.Close()
		return io.ReadAll(rd)
	}
	commit, err := read(plumbing.CommitObject, plumbing.NewHash(head))
	if err != nil {
		return 0, sha, false, err
	}
	tree, ok := commitTree(commit)
	if !ok {
		return 0, sha, false, fmt.Errorf("%w: commit %s has no tree line", errFallback, head)
	}
	parts := strings.Split(path, "/")
	for i, name := range parts {
		data, err := read(plumbing.TreeObject, tree)
		if err != nil {
			return 0, sha, false, err
		}
		m, id, ok, err := treeEntry(data, name)
		if err != nil {
			return 0, sha, false, fmt.Errorf("%w: tree %s: %v", errFallback, tree, err)
		}
		if !ok {
			return 0, sha, false, nil
		}
		if i == len(parts)-1 {
			if m&modeTypeMsk == 0o040000 {
				return 0, sha, false, nil
			}
			return canonMode(m), id, true, nil
		}
		if m&modeTypeMsk != 0o040000 {
			return 0, sha, false, nil
		}
		tree = id
	}
	return 0, sha, false, nil
}

// canonMode is a tree entry's mode as git compares it with the index:
// old trees may hold a regular file as 100664, which git reads as 100644.
func canonMode(m uint32) uint32 {
	if m&modeTypeMsk != 0o100000 {
		return m
	}
	if m&0o100 != 0 {
		return 0o100755
	}
	return 0o100644
}

// commitTree reads the tree id from a commit object's first line.
func commitTree(commit []byte) (plumbing.Hash, bool) {
	line, _, _ := bytes.Cut(commit, []byte("\n"))
	id, ok := bytes.CutPrefix(line, []byte("tree "))
	if !ok || !isHexID(string(id)) {
		return plumbing.ZeroHash, false
	}
	return plumbing.NewHash(string(id)), true
}

// treeEntry finds name in a tree object: entries of "<octal mode>
// <name>\0<20-byte id>".
func treeEntry(tree []byte, name string) (mode uint32, id [20]byte, found bool, err error) {
	for len(tree) > 0 {
		sp := bytes.IndexByte(tree, ' ')
		if sp <= 0 {
			return 0, id, false, errTreeCorrupt
		}
		m, perr := strconv.ParseUint(string(tree[:sp]), 8, 32)
		if perr != nil {
			return 0, id, false, errTreeCorrupt
		}
		rest := tree[sp+1:]
		nul := bytes.IndexByte(rest, 0)
		if nul < 0 || len(rest) < nul+1+20 {
			return 0, id, false, errTreeCorrupt
		}
		if string(rest[:nul]) == name {
			copy(id[:], rest[nul+1:nul+21])
			return uint32(m), id, true, nil
		}
		tree = rest[nul+21:]
	}
	return 0, id, false, nil
}

// errTreeCorrupt marks a tree object that does not parse.
var errTreeCorrupt = errors.New("git tree: corrupt")

// blobID hashes content as git hashes a blob: sha1("blob <size>\0" +
// content). It reads at offsets, leaving the file's position to the
// retrieval.
func blobID(content io.ReaderAt, size int64) ([20]byte, error) {
	var id [20]byte
	h := sha1.New()
	h.Write([]byte("blob " + strconv.FormatInt(size, 10) + "\x00"))
	n, err := io.Copy(h, io.NewSectionReader(content, 0, size+1))
	if err != nil {
		return id, err
	}
	if n != size {
		return id, fmt.Errorf("%w: the file changed while hashed", errFallback)
	}
	copy(id[:], h.Sum(nil))
	return id, nil
}

// stateInProcess answers what `git status` would for one file (abs, in
// r's work tree) from the index, HEAD and the objects, without a process.
// errFallback (wrapped) means the git process must answer.
func (r *gitRepo) stateInProcess(abs string, file openedFile, trees *treeCache) (gitStatus, error) {
	rel, err := filepath.Rel(r.workTree, abs)
	if err != nil || rel == "." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == ".." {
		return gitStatus{}, fmt.Errorf("%w: %s outside the work tree", errFallback, abs)
	}
	rel = filepath.ToSlash(rel)
	indexPath := r.indexPath
	var idx indexLookup
	var indexInfo os.FileInfo
	data, err := os.ReadFile(indexPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// No index yet: nothing is tracked.
	case err != nil:
		return gitStatus{}, err
	default:
		if idx, err = lookupIndex(data, rel); err != nil {
			return gitStatus{}, fmt.Errorf("%w: %v", errFallback, err)
		}
		if indexInfo, err = os.Stat(indexPath); err != nil {
			return gitStatus{}, err
		}
	}
	if idx.gitlink {
		return gitStatus{}, fmt.Errorf("%w: %s is inside a submodule that is not checked out", errFallback, rel)
	}
	head, err := r.head()
	if err != nil {
		return gitStatus{}, err
	}
	if !idx.found && !idx.conflict {
		return gitStatus{state: gitUntracked, head: head}, nil
	}
	if head == "" {
		return gitStatus{state: gitNoHead}, nil
	}
	if idx.conflict || idx.entry.intentToAdd {
		return gitStatus{state: gitDirty, head: head}, nil
	}
	e := idx.entry
	// The work tree against the index, as git's ie_match_stat: entries
	// marked assume-unchanged or skip-worktree are taken as they are in
	// the index, as git status takes them.
	if !e.assumeValid && !e.skipWorktree {
		dirty, err := r.worktreeDiffers(file, e, indexInfo)
		if err != nil {
			return gitStatus{}, err
		}
		if dirty {
			return gitStatus{state: gitDirty, head: head}, nil
		}
	}
	// The index against HEAD's tree.
	mode, sha, found, err := trees.entry(r, head, rel)
	if err != nil {
		return gitStatus{}, err
	}
	if !found || sha != e.sha || mode != e.mode {
		return gitStatus{state: gitDirty, head: head}, nil
	}
	return gitStatus{state: gitClean, head: head}, nil
}

// worktreeDiffers compares the file with its index entry: by stat data
// first, and by content (its blob id) when the stat data differs in
// anything but the size, or when the entry is racily clean (the file
// changed in the same instant the index was written).
func (r *gitRepo) worktreeDiffers(file openedFile, e indexEntry, index os.FileInfo) (bool, error) {
	fi := file.fi
	if !fi.Mode().IsRegular() || file.content == nil {
		return false, fmt.Errorf("%w: not a regular file", errFallback)
	}
	switch e.mode & modeTypeMsk {
	case 0o100000:
	case modeSymlink, modeGitlink:
		return true, nil // the type changed
	default:
		return false, fmt.Errorf("%w: index mode %o", errFallback, e.mode)
	}
	if r.fileMode && (e.mode&0o100 != 0) != (fi.Mode().Perm()&0o100 != 0) {
		return true, nil
	}
	sd, ok := statData(fi)
	if uint32(fi.Size()) != e.size && e.size != 0 {
		return true, nil // git's ce_modified: a size change is a change
	}
	match := ok && uint32(fi.Size()) == e.size &&
		sd.mtimeSec == e.mtimeSec && sd.mtimeNsec == e.mtimeNsec &&
		sd.ctimeSec == e.ctimeSec && sd.ctimeNsec == e.ctimeNsec &&
		sd.ino == e.ino && sd.uid == e.uid && sd.gid == e.gid
	racy := index != nil && !fi.ModTime().Before(index.ModTime())
	if match && !racy {
		return false, nil
	}
	id, err := blobID(file.content, fi.Size())
	if err != nil {
		return false, err
	}
	if id == e.sha {
		return false, nil
	}
	// The bytes differ from the blob, but git may convert them first
	// (core.autocrlf, .gitattributes filters): git decides.
	return false, fmt.Errorf("%w: content differs from the index blob at the same size", errFallback)
}

// gitStat is the stat data git keeps in an index entry.
type gitStat struct {
	ctimeSec, ctimeNsec, mtimeSec, mtimeNsec, ino, uid, gid uint32
}

// treeCache keeps HEAD's tree entries by (commit, path): a commit never
// changes, so an entry once read holds for as long as HEAD points there.
type treeCache struct {
	mu sync.Mutex
	m  map[treeKey]treeVal
}

type treeKey struct{ head, path string }

type treeVal struct {
	mode  uint32
	sha   [20]byte
	found bool
}

const treeCacheMax = 4096

func (c *treeCache) entry(r *gitRepo, head, path string) (uint32, [20]byte, bool, error) {
	k := treeKey{head: r.commonDir + "\x00" + head, path: path}
	c.mu.Lock()
	v, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return v.mode, v.sha, v.found, nil
	}
	mode, sha, found, err := r.headEntry(head, path)
	if err != nil {
		return 0, sha, false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= treeCacheMax {
		c.m = map[treeKey]treeVal{}
	}
	c.m[k] = treeVal{mode: mode, sha: sha, found: found}
	return mode, sha, found, nil
}

// idxReadFS reads pack index files (*.idx) whole, in one read: go-git
// decodes them four bytes per read call, hundreds of system calls per pack
// opened, which was most of a CLI call's git cost.
type idxReadFS struct{ billy.Filesystem }

func (f idxReadFS) Open(name string) (billy.File, error) {
	if !strings.HasSuffix(name, ".idx") {
		return f.Filesystem.Open(name)
	}
	b, err := os.ReadFile(f.Join(f.Root(), name))
	if err != nil {
		return nil, err
	}
	return &memFile{name: name, Reader: bytes.NewReader(b)}, nil
}

// memFile is a read-only billy.File over bytes already read.
type memFile struct {
	name string
	*bytes.Reader
}

func (m *memFile) Name() string              { return m.name }
func (m *memFile) Write([]byte) (int, error) { return 0, os.ErrPermission }
func (m *memFile) Close() error              { return nil }
func (m *memFile) Lock() error               { return nil }
func (m *memFile) Unlock() error             { return nil }
func (m *memFile) Truncate(int64) error      { return os.ErrPermission }
