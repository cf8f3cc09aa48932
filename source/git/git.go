// Package git is the git source: a file as it was at a git revision, cited
// as git:<full sha>:<path>, an immutable reference that verifies for as long
// as the commit exists. It runs the git command (no shell); no argument that
// comes from a user can be read as an option.
package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/policy"
)

// Options configure a Source.
type Options struct {
	// Root is the workspace root; cited paths are relative to it.
	Root string
	// Deny is the workspace's deny list (the file source's); nil compiles
	// the default one.
	Deny *policy.Deny
	// Timeout bounds each git command (default 30s).
	Timeout time.Duration
}

// Source retrieves files at git revisions of the repositories inside the
// workspace root. It is safe for concurrent use.
type Source struct {
	root    string
	deny    *policy.Deny
	timeout time.Duration

	mu      sync.Mutex
	repos   map[string]repo   // directory → repository
	commits map[string]commit // toplevel \x00 full sha → commit (immutable)
	batches map[string]*batch // toplevel → its cat-file --batch process
}

type repo struct {
	top     string // absolute top-level directory
	shallow bool
}

type commit struct {
	sha  string
	time time.Time
}

// New returns a git source for the workspace root.
func New(opts Options) (*Source, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodePathNotFound, "workspace root %s cannot be resolved", opts.Root).WithErr(err)
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	deny := opts.Deny
	if deny == nil {
		if deny, err = policy.NewDeny(root, nil); err != nil {
			return nil, err
		}
	}
	t := opts.Timeout
	if t <= 0 {
		t = 30 * time.Second
	}
	return &Source{root: root, deny: deny, timeout: t, repos: map[string]repo{}, commits: map[string]commit{}, batches: map[string]*batch{}}, nil
}

var (
	_ retrieve.Source          = (*Source)(nil)
	_ retrieve.Schemer         = (*Source)(nil)
	_ retrieve.PathVersioner   = (*Source)(nil)
	_ retrieve.ReferenceParser = (*Source)(nil)
)

// Kind implements retrieve.Source.
func (s *Source) Kind() string { return "git" }

// Close ends the repositories' batch processes.
func (s *Source) Close() error {
	s.mu.Lock()
	bs := s.batches
	s.batches = map[string]*batch{}
	s.mu.Unlock()
	for _, b := range bs {
		b.close()
	}
	return nil
}

// ReadsPathVersions implements retrieve.PathVersioner: a workspace path
// with --version is read at that revision.
func (s *Source) ReadsPathVersions() bool { return true }

// Schemes implements retrieve.Schemer: git:<rev>:<path>.
func (s *Source) Schemes() []string { return []string{"git"} }

// ParseReference implements retrieve.ReferenceParser:
// git:<rev>:<path>[:START-END]; a reference with no revision or no path
// cites nothing.
func (s *Source) ParseReference(ref string) (retrieve.Reference, bool) {
	r := retrieve.RevisionReference("git", ref)
	return r, r.Rev != "" && r.Path != ""
}

// Target is a parsed git target.
type Target struct {
	Rev  string
	Path string
}

// ParseTarget parses git:<rev>:<path> (without a line suffix), or a plain
// path together with a revision given apart (--version). It refuses
// revisions that git could read as an option or that hold characters no
// ref name can hold.
func ParseTarget(target, version string) (Target, error) {
	var t Target
	if rest, ok := strings.CutPrefix(target, "git:"); ok {
		rev, p, found := strings.Cut(rest, ":")
		if !found {
			return t, retrieve.Errorf(retrieve.CodeInputValidation, "git target %q names no path", target).
				WithHint("write git:<revision>:<path>, for example git:HEAD~1:README.md")
		}
		// A citation's reference pins a full commit id; the revision it was
		// resolved from (kept as the version filter) does not override it.
		if version != "" && version != rev && !isFullSHA(rev) {
			return t, retrieve.Errorf(retrieve.CodeInputValidation, "target %q names revision %s, and --version %s was given too", target, rev, version).
				WithHint("give the revision once")
		}
		t = Target{Rev: rev, Path: p}
	} else {
		t = Target{Rev: version, Path: target}
	}
	if t.Rev == "" {
		return t, retrieve.Errorf(retrieve.CodeInputValidation, "git target %q names no revision", target).
			WithHint("write git:<revision>:<path>; a revision is a commit id, a branch, a tag or HEAD~N")
	}
	if t.Path == "" {
		return t, retrieve.Errorf(retrieve.CodeInputValidation, "git target %q names no path", target).
			WithHint("write git:<revision>:<path>")
	}
	if strings.HasPrefix(t.Rev, "-") || len(t.Rev) > 256 {
		return t, retrieve.Errorf(retrieve.CodeInputValidation, "%q is not a git revision", t.Rev).
			WithHint("a revision is a commit id, a branch, a tag or HEAD~N")
	}
	for _, r := range t.Rev {
		if r < 0x21 || r == 0x7f || strings.ContainsRune(`\:*?[`, r) {
			return t, retrieve.Errorf(retrieve.CodeInputValidation, "%q is not a git revision: it holds %q", t.Rev, r).
				WithHint("a revision is a commit id, a branch, a tag or HEAD~N")
		}
	}
	if strings.Contains(t.Rev, "..") || strings.Contains(t.Rev, "@{") {
		return t, retrieve.Errorf(retrieve.CodeInputValidation, "%q is a range or a reflog entry, not one revision", t.Rev).
			WithHint("name one commit: a commit id, a branch, a tag or HEAD~N")
	}
	if strings.ContainsRune(t.Path, 0) {
		return t, retrieve.Errorf(retrieve.CodeInputValidation, "path %q holds a NUL byte", t.Path)
	}
	return t, nil
}

// Fetch implements retrieve.Source.
func (s *Source) Fetch(ctx context.Context, req *retrieve.Request) (*retrieve.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("git %s: %w", req.Target, err)
	}
	t, err := ParseTarget(req.Target, req.Constraints.Version)
	if err != nil {
		return nil, err
	}
	rel, err := policy.Rel(s.root, t.Path)
	if err != nil {
		return nil, err
	}
	if rel == "." {
		return nil, retrieve.Errorf(retrieve.CodeNotAFile, "%s is the workspace root, a directory", t.Path).
			WithHint("name a file inside it")
	}
	for _, part := range strings.Split(rel, "/") {
		if part == ".git" {
			return nil, retrieve.Errorf(retrieve.CodeSensitivePath, "%s is inside a .git directory, git's own internals", rel).
				WithHint("cite a file of the repository at a revision instead: git:<revision>:<path>")
		}
	}
	if s.deny.Denied(rel) {
		return nil, fmt.Errorf("%w: %s", policy.ErrSensitive, rel)
	}
	rp, err := s.repoOf(ctx, rel)
	if err != nil {
		return nil, err
	}
	inRepo, err := filepath.Rel(rp.top, filepath.Join(s.root, filepath.FromSlash(rel)))
	if err != nil || inRepo == ".." || strings.HasPrefix(inRepo, ".."+string(filepath.Separator)) {
		return nil, retrieve.Errorf(retrieve.CodeOutsideRoot, "%s is outside the repository at %s", rel, rp.top)
	}
	inRepo = filepath.ToSlash(inRepo)
	if isFullSHA(t.Rev) && !strings.ContainsAny(inRepo, "\n") {
		if c, obj, content, ok := s.fastFetch(rp, t.Rev, inRepo); ok {
			return s.document(t, rel, rp, c, obj, io.NopCloser(bytes.NewReader(content))), nil
		}
	}
	c, err := s.resolve(ctx, rp, t.Rev)
	if err != nil {
		return nil, err
	}
	if !isFullSHA(t.Rev) && !strings.ContainsAny(inRepo, "\n") {
		if c2, obj, content, ok := s.fastFetch(rp, c.sha, inRepo); ok {
			return s.document(t, rel, rp, c2, obj, io.NopCloser(bytes.NewReader(content))), nil
		}
	}
	obj, err := s.lsTree(ctx, rp, c.sha, inRepo)
	if err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, s.pathNotAt(ctx, rp, t.Rev, c.sha, rel, inRepo)
	}
	switch {
	case obj.typ == "tree":
		return nil, retrieve.Errorf(retrieve.CodeNotAFile, "%s is a directory at %s", rel, short(c.sha)).
			WithHint("name a file inside it")
	case obj.typ == "commit":
		return nil, retrieve.Errorf(retrieve.CodeNotAFile, "%s is a submodule at %s (its commit %s)", rel, short(c.sha), obj.sha).
			WithHint("cite a file inside the submodule at its own revision: git:%s:%s/<file>", obj.sha, rel)
	case obj.mode == "120000":
		return nil, retrieve.Errorf(retrieve.CodeNotAFile, "%s is a symbolic link at %s", rel, short(c.sha)).
			WithHint("cite the file it points to")
	case obj.typ != "blob":
		return nil, retrieve.Errorf(retrieve.CodeNotAFile, "%s is a git %s, not a file", rel, obj.typ)
	}
	body, err := s.catBlob(ctx, rp, obj.sha)
	if err != nil {
		return nil, err
	}
	return s.document(t, rel, rp, c, obj, body), nil
}

// document describes a blob at a commit.
func (s *Source) document(t Target, rel string, rp repo, c commit, obj *object, body io.ReadCloser) *retrieve.Document {
	v := "git:" + c.sha
	ct := c.time
	doc := &retrieve.Document{
		Body:         body,
		Size:         obj.size,
		Name:         path.Base(rel),
		Locator:      "git:" + c.sha + ":" + rel,
		Label:        "git:" + rel + "@" + short(c.sha),
		Spans:        true,
		Version:      &v,
		LastModified: &ct,
		Authority:    retrieve.AuthorityHigh,
		Reliability:  "Committed file at an immutable git revision",
		Metadata: map[string]any{
			"commit":   c.sha,
			"revision": t.Rev,
			"blob":     obj.sha,
		},
	}
	if top, err := filepath.Rel(s.root, rp.top); err == nil {
		doc.Metadata["repository"] = filepath.ToSlash(top)
	}
	if t.Rev != c.sha {
		doc.Assumptions = append(doc.Assumptions, fmt.Sprintf("Revision %s resolved to commit %s at retrieval time; the citation pins the commit", t.Rev, c.sha))
	}
	if rp.shallow {
		doc.Metadata["shallow"] = true
		doc.Assumptions = append(doc.Assumptions, "The repository is a shallow clone: older revisions may be missing from it")
	}
	return doc
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// run runs git in dir and returns its standard output.
func (s *Source) run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	cmd := s.command(ctx, dir, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, retrieve.Errorf(retrieve.CodeUnknownSource, "git is not installed").
				WithHint("install git to cite files at revisions").WithErr(err)
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil, fmt.Errorf("git %s: %w", args[0], ctx.Err())
		}
		if ctx.Err() == context.DeadlineExceeded {
			return nil, retrieve.Errorf(retrieve.CodeTimeout, "git %s took longer than %s", args[0], s.timeout).WithErr(err)
		}
		return nil, &gitError{args: args[0], err: err, stderr: strings.TrimSpace(stderr.String())}
	}
	return out, nil
}

func (s *Source) command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--literal-pathspecs", "--no-pager", "-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_NO_REPLACE_OBJECTS=1")
	return cmd
}

type gitError struct {
	args   string
	err    error
	stderr string
}

func (e *gitError) Error() string { return "git " + e.args + ": " + e.err.Error() + ": " + e.stderr }

// repoOf finds the repository holding rel: the nearest existing directory
// on its path decides (the file itself may no longer exist).
func (s *Source) repoOf(ctx context.Context, rel string) (repo, error) {
	dir := path.Dir(rel)
	for {
		abs := filepath.Join(s.root, filepath.FromSlash(dir))
		if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
			break
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return repo{}, retrieve.Errorf(retrieve.CodePermissionDenied, "cannot read directory %s", dir).WithErr(err)
		}
		if dir == "." {
			break
		}
		dir = path.Dir(dir)
	}
	abs := filepath.Join(s.root, filepath.FromSlash(dir))
	s.mu.Lock()
	r, ok := s.repos[abs]
	s.mu.Unlock()
	if ok {
		return r, nil
	}
	out, err := s.run(ctx, abs, "rev-parse", "--show-toplevel", "--is-shallow-repository")
	if err != nil {
		var ge *gitError
		if errors.As(err, &ge) && strings.Contains(ge.stderr, "not a git repository") {
			return repo{}, retrieve.Errorf(retrieve.CodeVersionNotFound, "%s is not in a git repository", rel).
				WithHint("git: targets name files of a git work tree inside the workspace; retrieve %s without a revision to read it as it is", rel)
		}
		return repo{}, err
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 2 || lines[0] == "" {
		return repo{}, retrieve.Errorf(retrieve.CodeVersionNotFound, "%s is not in a git work tree (a bare repository?)", rel).
			WithHint("git: targets name files of a checked-out repository inside the workspace")
	}
	r = repo{top: lines[0], shallow: lines[1] == "true"}
	if real, err := filepath.EvalSymlinks(r.top); err == nil {
		r.top = real
	}
	s.mu.Lock()
	s.repos[abs] = r
	s.mu.Unlock()
	return r, nil
}

// resolve turns a revision into its full commit id and commit time. Full
// ids are cached: a commit never changes.
func (s *Source) resolve(ctx context.Context, rp repo, rev string) (commit, error) {
	key := rp.top + "\x00" + rev
	s.mu.Lock()
	c, ok := s.commits[key]
	s.mu.Unlock()
	if ok {
		return c, nil
	}
	out, err := s.run(ctx, rp.top, "show", "-s", "--no-show-signature", "--format=%H %ct", "--end-of-options", rev+"^{commit}")
	if err != nil {
		var ge *gitError
		if errors.As(err, &ge) {
			return commit{}, s.revNotFound(ctx, rp, rev)
		}
		return commit{}, err
	}
	f := strings.Fields(string(out))
	if len(f) < 2 {
		return commit{}, fmt.Errorf("git show %s: unexpected output %q", rev, out)
	}
	secs, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return commit{}, fmt.Errorf("git show %s: bad commit time %q", rev, f[1])
	}
	c = commit{sha: f[0], time: time.Unix(secs, 0).UTC()}
	if isFullSHA(rev) {
		s.mu.Lock()
		s.commits[key] = c
		s.mu.Unlock()
	}
	return c, nil
}

func isFullSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// revNotFound builds VERSION_NOT_FOUND for an unknown revision, with the
// repository's most recent refs as alternatives.
func (s *Source) revNotFound(ctx context.Context, rp repo, rev string) error {
	e := retrieve.Errorf(retrieve.CodeVersionNotFound, "revision %q is not in the repository", rev)
	out, err := s.run(ctx, rp.top, "for-each-ref", "--sort=-committerdate", "--count=8", "--format=%(refname:short)", "refs/heads", "refs/tags")
	if err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if l != "" {
				e.Alternatives = append(e.Alternatives, l)
			}
		}
	}
	switch {
	case rp.shallow:
		e.WithHint("the repository is a shallow clone, so older commits may be missing: `git fetch --unshallow`, or use one of the refs listed")
	case len(e.Alternatives) > 0:
		e.WithHint("use a commit id, HEAD~N or one of the refs listed (most recent first)")
	default:
		e.WithHint("the repository has no commits or refs yet")
	}
	return e
}

type object struct {
	mode, typ, sha string
	size           int64
}

// lsTree returns the object at inRepo in commit sha, nil when absent.
func (s *Source) lsTree(ctx context.Context, rp repo, sha, inRepo string) (*object, error) {
	out, err := s.run(ctx, rp.top, "ls-tree", "-l", "--full-tree", "-z", sha, "--", inRepo)
	if err != nil {
		return nil, err
	}
	entry, _, _ := bytes.Cut(out, []byte{0})
	if len(entry) == 0 {
		return nil, nil
	}
	meta, name, ok := bytes.Cut(entry, []byte{'\t'})
	if !ok || string(name) != inRepo {
		return nil, nil
	}
	f := strings.Fields(string(meta))
	if len(f) != 4 {
		return nil, fmt.Errorf("git ls-tree: unexpected entry %q", entry)
	}
	o := &object{mode: f[0], typ: f[1], sha: f[2], size: -1}
	if n, err := strconv.ParseInt(f[3], 10, 64); err == nil {
		o.size = n
	}
	return o, nil
}

// pathNotAt builds VERSION_NOT_FOUND for a path absent at a revision; the
// alternative is the path at the last commit that had it.
func (s *Source) pathNotAt(ctx context.Context, rp repo, rev, sha, rel, inRepo string) error {
	e := retrieve.Errorf(retrieve.CodeVersionNotFound, "%s does not exist at %s (commit %s)", rel, rev, short(sha))
	out, err := s.run(ctx, rp.top, "log", "-1", "--format=%H", "--all", "--", inRepo)
	last := strings.TrimSpace(string(out))
	if err != nil || last == "" {
		return e.WithHint("no commit of the repository has %s; check the path (it is relative to the workspace root)", rel)
	}
	// The last commit touching the path may be the one that deleted it:
	// then its parent has it.
	for _, cand := range []string{last, last + "^"} {
		c, err := s.resolve(ctx, rp, cand)
		if err != nil {
			continue
		}
		if o, err := s.lsTree(ctx, rp, c.sha, inRepo); err == nil && o != nil {
			e.Alternatives = append(e.Alternatives, "git:"+c.sha+":"+rel)
			return e.WithHint("the path's last commit that has it is %s (%s)", short(c.sha), Timestamp(c.time))
		}
	}
	return e.WithHint("the path's last change is commit %s", short(last))
}

// Timestamp formats t like the contract does.
func Timestamp(t time.Time) string { return retrieve.Timestamp(t) }

// catBlob streams a blob's bytes.
func (s *Source) catBlob(ctx context.Context, rp repo, sha string) (io.ReadCloser, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	cmd := s.command(ctx, rp.top, "cat-file", "blob", sha)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	return &blobReader{r: out, cmd: cmd, cancel: cancel, stderr: &stderr}, nil
}

type blobReader struct {
	r      io.ReadCloser
	cmd    *exec.Cmd
	cancel context.CancelFunc
	stderr *bytes.Buffer
	done   bool
	err    error
}

func (b *blobReader) Read(p []byte) (int, error) {
	if b.done {
		if b.err != nil {
			return 0, b.err
		}
		return 0, io.EOF
	}
	n, err := b.r.Read(p)
	if err == io.EOF {
		b.done = true
		if werr := b.cmd.Wait(); werr != nil {
			b.err = fmt.Errorf("git cat-file: %w: %s", werr, strings.TrimSpace(b.stderr.String()))
			return n, b.err
		}
	}
	return n, err
}

func (b *blobReader) Close() error {
	if !b.done {
		b.done = true
		b.cancel()
		_ = b.r.Close()
		_ = b.cmd.Wait()
	}
	b.cancel()
	return nil
}
