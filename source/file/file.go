// Package file is the workspace file source: it reads files under the
// workspace root through os.Root, refuses the deny list, and reports the
// git state of the file as its version.
package file

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"syscall"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/policy"
	"github.com/retrieve-dev/retrieve/workspace"
)

// Source reads files in one workspace.
type Source struct {
	ws     *workspace.FS
	own    bool // ws was opened by New, and is closed by Close
	deny   *policy.Deny
	git    *gitInfo
	hashes *hashCache
}

var _ retrieve.Source = (*Source)(nil)

// Options configure the file source.
type Options struct {
	// FS is the workspace, shared with the other readers of its files; when
	// nil, New opens Root with Deny.
	FS *workspace.FS
	// Root is the workspace root directory (when FS is nil).
	Root string
	// Deny are extra deny patterns (gitignore syntax) from the configuration
	// (when FS is nil).
	Deny []string
	// NoGit turns off git version detection.
	NoGit bool
	// HashCache is the directory of the persistent hash cache (the
	// workspace's .retrieve/cache/hashes); empty keeps the cache in memory
	// for the life of the source.
	HashCache string
}

// New opens the workspace root.
func New(opts Options) (*Source, error) {
	ws, own := opts.FS, false
	if ws == nil {
		root := opts.Root
		if root == "" {
			root = "."
		}
		var err error
		if ws, err = OpenWorkspace(root, opts.Deny); err != nil {
			return nil, err
		}
		own = true
	}
	s := &Source{ws: ws, own: own, deny: ws.Deny(), hashes: newHashCache(opts.HashCache)}
	if !opts.NoGit {
		s.git = newGitInfo(ws.Dir())
	}
	return s, nil
}

// OpenWorkspace opens a workspace root with the errors a user can act on.
func OpenWorkspace(root string, deny []string) (*workspace.FS, error) {
	ws, err := workspace.Open(root, deny)
	switch {
	case err == nil:
		return ws, nil
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return nil, retrieve.Errorf(retrieve.CodePathNotFound, "workspace root %s cannot be opened", root).
			WithHint("pass --root with an existing directory").WithErr(err)
	case strings.Contains(err.Error(), policy.IgnoreFile):
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "the deny list cannot be read").
			WithHint("check %s in the workspace root", policy.IgnoreFile).WithErr(err)
	default:
		return nil, retrieve.Errorf(retrieve.CodePathNotFound, "workspace root %s cannot be opened", root).
			WithHint("pass --root with a directory you can read").WithErr(err)
	}
}

// Close releases the root when New opened it.
func (s *Source) Close() error {
	if s.own {
		return s.ws.Close()
	}
	return nil
}

// Kind implements retrieve.Source.
func (s *Source) Kind() string { return "file" }

// Deny returns the deny list in force, for other sources of the same
// workspace (memory, outline) that must obey it too.
func (s *Source) Deny() *policy.Deny { return s.deny }

// FS returns the workspace the source reads.
func (s *Source) FS() *workspace.FS { return s.ws }

// Fetch implements retrieve.Source.
func (s *Source) Fetch(ctx context.Context, req *retrieve.Request) (*retrieve.Document, error) {
	rel, err := s.ws.Rel(req.Target)
	if err != nil {
		return nil, err
	}
	if rel == "." {
		return nil, retrieve.Errorf(retrieve.CodeNotAFile, "%s is the workspace root, a directory", req.Target).
			WithHint("name a file inside it")
	}
	// The workspace opens the file inside the root (a link out of it is
	// refused) and checks the deny list on the name and on the final path
	// of the opened file (notes.txt -> .env), so a link swapped in between
	// reads nothing.
	f, fi, real, err := s.ws.OpenResolved(rel)
	if err != nil {
		return nil, s.openError(rel, err)
	}
	if fi.IsDir() {
		f.Close()
		return nil, retrieve.Errorf(retrieve.CodeNotAFile, "%s is a directory", rel).
			WithHint("name a file inside it").WithErr(nil)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, retrieve.Errorf(retrieve.CodeNotAFile, "%s is not a regular file (%s)", rel, fi.Mode().Type()).
			WithHint("only regular files can be retrieved")
	}
	mtime := fi.ModTime().UTC()
	doc := &retrieve.Document{
		Body:         f,
		Size:         fi.Size(),
		Name:         path.Base(rel),
		Locator:      rel,
		Label:        "file:" + rel,
		Spans:        true,
		LastModified: &mtime,
		Authority:    retrieve.AuthorityMedium,
		Reliability:  "Workspace file read directly",
	}
	if id, ok := s.hashes.identify(fi); ok && id.size >= HashCacheMin {
		doc.BodyHash = s.hashes.lookup(id)
		doc.Hashed = func(hash string) { s.hashes.remember(f, id, hash) }
	}
	s.describeVersion(ctx, real, openedFile{fi: fi, content: f}, doc)
	return doc, nil
}

// describeVersion sets the version, authority and assumptions from git.
func (s *Source) describeVersion(ctx context.Context, rel string, file openedFile, doc *retrieve.Document) {
	if s.git == nil {
		doc.Assumptions = append(doc.Assumptions, "Version not checked (git detection is off); the file is read as it is now")
		return
	}
	st := s.git.status(ctx, rel, file)
	switch st.state {
	case gitClean:
		v := "git:" + st.head
		doc.Version = &v
		doc.Authority = retrieve.AuthorityHigh
		doc.Reliability = "Version-controlled file, identical to the committed revision"
	case gitDirty:
		v := "git:" + st.head + "+dirty"
		doc.Version = &v
		doc.Reliability = "Version-controlled file with uncommitted changes"
		doc.Assumptions = append(doc.Assumptions, "The working copy differs from the committed revision ("+st.head[:12]+"): the version cannot be re-retrieved from git; the snapshot is the record")
		doc.Deductions = append(doc.Deductions, retrieve.Deduction{Reason: "dirty working copy", Amount: 0.05})
	case gitUntracked:
		doc.Reliability = "File not tracked by git"
		doc.Assumptions = append(doc.Assumptions, "The file is not tracked by git: it has no version; the hash is the record")
	case gitNoHead:
		doc.Reliability = "File in a git repository with no commit yet"
		doc.Assumptions = append(doc.Assumptions, "The git repository has no commit yet: the file has no version; the hash is the record")
	case gitNone:
		doc.Reliability = "File outside version control"
		doc.Assumptions = append(doc.Assumptions, "The file is not in a git work tree: it has no version; the hash is the record")
	case gitUnavailable:
		doc.Assumptions = append(doc.Assumptions, "The git state could not be read ("+st.reason+"): the version is unknown")
	}
}

func (s *Source) openError(rel string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s.notFound(rel)
	case errors.Is(err, fs.ErrPermission):
		return retrieve.Errorf(retrieve.CodePermissionDenied, "%s cannot be read: permission denied", rel).
			WithHint("check the file's permissions").WithErr(err)
	case errors.Is(err, syscall.ELOOP):
		return retrieve.Errorf(retrieve.CodeInputValidation, "%s is a symlink loop", rel).
			WithHint("fix the link; it points back to itself").WithErr(err)
	case errors.Is(err, policy.ErrOutsideRoot), errors.Is(err, policy.ErrSensitive),
		errors.Is(err, policy.ErrHardLink), errors.Is(err, policy.ErrBadName), errors.Is(err, policy.ErrNotRegular):
		return err
	default:
		return fmt.Errorf("open %s: %w", rel, err)
	}
}

// notFound returns PATH_NOT_FOUND with up to three near names that exist
// and are not denied.
func (s *Source) notFound(rel string) error {
	e := retrieve.Errorf(retrieve.CodePathNotFound, "%s does not exist", rel).
		WithHint("check the path; it is relative to the workspace root")
	e.Alternatives = s.nearNames(rel)
	if len(e.Alternatives) > 0 {
		e.Hint = "did you mean one of the alternatives?"
	}
	return e
}

func (s *Source) nearNames(rel string) []string {
	dir, base := path.Split(rel)
	// Walk up to the nearest directory that exists.
	for dir != "" {
		if fi, err := s.ws.Stat(strings.TrimSuffix(dir, "/")); err == nil && fi.IsDir() {
			break
		}
		dir, base = path.Split(strings.TrimSuffix(dir, "/"))
	}
	d := strings.TrimSuffix(dir, "/")
	if d == "" {
		d = "."
	}
	entries, err := s.ws.ReadDir(d)
	if err != nil {
		return nil
	}
	type cand struct {
		name string
		dist int
	}
	var cands []cand
	lb := strings.ToLower(base)
	for _, ent := range entries {
		name := dir + ent.Name()
		if s.deny.Denied(name) {
			continue
		}
		dist := levenshtein(lb, strings.ToLower(ent.Name()))
		if dist <= max(2, len(base)/3) || strings.HasPrefix(strings.ToLower(ent.Name()), lb) {
			cands = append(cands, cand{name, dist})
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].dist != cands[j].dist {
			return cands[i].dist < cands[j].dist
		}
		return cands[i].name < cands[j].name
	})
	var out []string
	for i := 0; i < len(cands) && i < 3; i++ {
		out = append(out, cands[i].name)
	}
	return out
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
