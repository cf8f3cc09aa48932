// Package workspace is the one confined file system of a workspace. Every
// reader and writer of workspace files (the file source, memory, the wiki,
// outline, quotes) goes through an FS: an os.Root opened once, so that every
// path is resolved relative to the root's descriptor and a symlink is
// followed inside the root only. The deny list (policy.Deny) is applied to
// the name asked for and again to the final path of the file that was
// opened, so a link swapped between a check and an open reads nothing it
// should not. A regular file with several hard links is refused: its other
// names cannot be checked.
//
// It is a leaf package: it imports the standard library and policy only,
// and returns policy's sentinel errors (ErrOutsideRoot, ErrSensitive,
// ErrHardLink, ErrBadName), which the root package maps to error codes.
// A test (TestSecurityNoWorkspaceIOOutsideFS) checks that no other code
// of the module opens, stats or writes workspace paths with the os package.
package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/retrieve-dev/retrieve/policy"
)

// FS is a workspace directory opened once. It is safe for concurrent use.
type FS struct {
	root *os.Root
	dir  string   // absolute, as opened
	real string   // dir with its symlinks resolved when it was opened
	top  *os.File // the root's directory, for openBeneath (nil: none)
	deny *policy.Deny
}

// Open opens dir as a workspace, with the built-in deny list, dir's
// .retrieveignore and the extra patterns (from the configuration).
func Open(dir string, extraDeny []string) (*FS, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	deny, err := policy.NewDeny(abs, extraDeny)
	if err != nil {
		return nil, err
	}
	return OpenWithDeny(abs, deny)
}

// OpenWithDeny opens dir as a workspace with a deny list already compiled.
func OpenWithDeny(dir string, deny *policy.Deny) (*FS, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		root.Close()
		return nil, err
	}
	if deny == nil {
		deny = policy.CompileDeny(nil, nil)
	}
	return &FS{root: root, dir: abs, real: real, deny: deny, top: beneath(root)}, nil
}

// Close releases the root's descriptor.
func (w *FS) Close() error {
	if w.top != nil {
		w.top.Close()
	}
	return w.root.Close()
}

// Dir returns the workspace directory's absolute path.
func (w *FS) Dir() string { return w.dir }

// Deny returns the deny list in force.
func (w *FS) Deny() *policy.Deny { return w.deny }

// Denied reports whether a workspace-relative name is on the deny list.
func (w *FS) Denied(name string) bool { return w.deny.Denied(name) }

// Abs returns the absolute path of a workspace-relative name, for messages.
func (w *FS) Abs(name string) string { return filepath.Join(w.dir, filepath.FromSlash(name)) }

// Rel turns a target (workspace-relative, or absolute inside the workspace)
// into a clean slash-separated workspace-relative name; "." is the root.
// It refuses a name that leaves the root lexically (ErrOutsideRoot) and one
// that cannot name a file (ErrBadName).
func (w *FS) Rel(target string) (string, error) {
	if err := policy.CheckName(target); err != nil {
		return "", err
	}
	if target != "" && filepath.IsAbs(filepath.FromSlash(target)) {
		if r, err := policy.Rel(w.real, target); err == nil {
			return r, nil
		}
	}
	return policy.Rel(w.dir, target)
}

// clean checks and cleans a workspace-relative name.
func (w *FS) clean(name string) (string, error) {
	if err := policy.CheckName(name); err != nil {
		return "", err
	}
	n := path.Clean(filepath.ToSlash(name))
	if n == "" || n == ".." || strings.HasPrefix(n, "../") || strings.HasPrefix(n, "/") {
		return "", fmt.Errorf("%w: %s", policy.ErrOutsideRoot, name)
	}
	return n, nil
}

// checkName cleans name and refuses a denied one.
func (w *FS) checkName(name string) (string, error) {
	n, err := w.clean(name)
	if err != nil {
		return "", err
	}
	if w.deny.Denied(n) {
		return "", fmt.Errorf("%w: %s", policy.ErrSensitive, n)
	}
	return n, nil
}

// wrap turns the os.Root errors that are not plain I/O errors into policy
// sentinels: an escape from the root, a name too long. Other errors (not
// found, permission, a symlink loop) are returned as they are.
func wrap(name string, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	switch {
	case errors.Is(err, syscall.ENXIO), errors.Is(err, syscall.ENODEV):
		// A Unix socket, or a device without a driver: not a file to read.
		return fmt.Errorf("%w: %s: %w", policy.ErrNotRegular, name, err)
	case errors.Is(err, syscall.ENAMETOOLONG):
		return fmt.Errorf("%w: %s: %w", policy.ErrBadName, name, err)
	case errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes"):
		return fmt.Errorf("%w: %s (a link leads out of it)", policy.ErrOutsideRoot, name)
	}
	return err
}

// verify checks the file that was opened: its final path (where the kernel
// says it is, after every link; name itself when it was opened directly,
// with no link on the way) must lie inside the root and must not be
// denied, and a regular file must have one hard link. It returns the final
// workspace-relative path.
func (w *FS) verify(f *os.File, name string, direct bool) (string, fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return "", nil, err
	}
	if !fi.Mode().IsRegular() && !fi.IsDir() {
		return "", nil, fmt.Errorf("%w: %s is a %s", policy.ErrNotRegular, name, kindOf(fi.Mode()))
	}
	final := name // opened by openBeneath: no link, no mount on the way
	if !direct {
		if final, err = w.finalPath(f, name, fi); err != nil {
			return "", nil, err
		}
	}
	if final != name && w.deny.Denied(final) {
		return "", nil, fmt.Errorf("%w: %s (it leads to %s)", policy.ErrSensitive, name, final)
	}
	if n := nlink(fi); fi.Mode().IsRegular() && n > 1 {
		return "", nil, fmt.Errorf("%w: %s has %d names; its other names cannot be checked against the root and the deny list", policy.ErrHardLink, name, n)
	}
	return final, fi, nil
}

// finalPath returns the workspace-relative path of an opened file: from the
// kernel (/proc/self/fd on Linux) when it can say, else by resolving name
// again and checking that it still is the same file.
func (w *FS) finalPath(f *os.File, name string, fi fs.FileInfo) (string, error) {
	if p, ok := kernelPath(f); ok {
		return w.relReal(p, name)
	}
	p, err := filepath.EvalSymlinks(filepath.Join(w.real, filepath.FromSlash(name)))
	if err != nil {
		return "", fmt.Errorf("%w: %s changed while it was opened", policy.ErrSensitive, name)
	}
	rel, err := w.relReal(p, name)
	if err != nil {
		return "", err
	}
	again, err := w.root.Lstat(filepath.FromSlash(rel))
	if err != nil || !os.SameFile(fi, again) {
		return "", fmt.Errorf("%w: %s changed while it was opened", policy.ErrSensitive, name)
	}
	return rel, nil
}

func (w *FS) relReal(p, name string) (string, error) {
	if p == w.real {
		return ".", nil
	}
	r, err := filepath.Rel(w.real, p)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: %s (it leads out of it)", policy.ErrOutsideRoot, name)
	}
	return filepath.ToSlash(r), nil
}

// Open opens a file or directory for reading.
func (w *FS) Open(name string) (*os.File, error) {
	f, _, err := w.OpenInfo(name)
	return f, err
}

// OpenInfo opens a file or directory for reading and returns its info too.
func (w *FS) OpenInfo(name string) (*os.File, fs.FileInfo, error) {
	f, fi, _, err := w.OpenResolved(name)
	return f, fi, err
}

// OpenResolved opens a file or directory for reading and returns its info
// and its final workspace-relative path (after links).
func (w *FS) OpenResolved(name string) (*os.File, fs.FileInfo, string, error) {
	n, err := w.checkName(name)
	if err != nil {
		return nil, nil, "", err
	}
	// Non-blocking: opening a FIFO for reading would wait for a writer
	// forever (issue #32); verify refuses it once it is open.
	// A path without a link or a mount on the way is opened in one call,
	// and is where its name says (no need to ask the kernel where it is:
	// a readlink of /proc/self/fd per open); any other goes through the
	// root, which follows links inside it, and is then located.
	f, direct := openBeneath(w.top, w.dir, n, os.O_RDONLY|openNonBlock)
	if !direct {
		if f, err = w.root.OpenFile(filepath.FromSlash(n), os.O_RDONLY|openNonBlock, 0); err != nil {
			return nil, nil, "", wrap(n, err)
		}
	}
	final, fi, err := w.verify(f, n, direct)
	if err != nil {
		f.Close()
		return nil, nil, "", err
	}
	return f, fi, final, nil
}

// ReadFile reads a whole file.
func (w *FS) ReadFile(name string) ([]byte, error) {
	f, fi, err := w.OpenInfo(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR}
	}
	return io.ReadAll(f)
}

// Stat returns a file's info, following links inside the root. A denied
// name is refused.
func (w *FS) Stat(name string) (fs.FileInfo, error) {
	n, err := w.checkName(name)
	if err != nil {
		return nil, err
	}
	fi, err := w.root.Stat(filepath.FromSlash(n))
	return fi, wrap(n, err)
}

// Lstat returns a file's info without following a final link. A denied
// name is refused.
func (w *FS) Lstat(name string) (fs.FileInfo, error) {
	n, err := w.checkName(name)
	if err != nil {
		return nil, err
	}
	fi, err := w.root.Lstat(filepath.FromSlash(n))
	return fi, wrap(n, err)
}

// openDir opens a directory to list: ENOTDIR for anything else.
func (w *FS) openDir(name string) (*os.File, error) {
	f, fi, err := w.OpenInfo(name)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: syscall.ENOTDIR}
	}
	return f, nil
}

// ReadDir lists a directory, sorted by name, without its denied entries.
func (w *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := w.openDir(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	n, _ := w.clean(name)
	out := ents[:0]
	for _, e := range ents {
		if !w.deny.Denied(path.Join(n, e.Name())) {
			out = append(out, e)
		}
	}
	sortEntries(out)
	return out, nil
}

// WalkDir walks the tree at name like fs.WalkDir, inside the root, without
// following directory links and without entering or reporting denied
// paths. Paths given to fn are workspace-relative.
func (w *FS) WalkDir(name string, fn fs.WalkDirFunc) error {
	n, err := w.checkName(name)
	if err != nil {
		return err
	}
	return fs.WalkDir(w.root.FS(), n, func(p string, d fs.DirEntry, err error) error {
		if p != n && w.deny.Denied(p) {
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		return fn(p, d, err)
	})
}

// MkdirAll creates a directory and its parents inside the root.
func (w *FS) MkdirAll(name string, perm fs.FileMode) error {
	n, err := w.checkName(name)
	if err != nil {
		return err
	}
	if n == "." {
		return nil
	}
	return wrap(n, w.root.MkdirAll(filepath.FromSlash(n), perm))
}

// OpenFile opens a file with flags (for a lock file, an append-only log).
// The final path is checked as for Open.
func (w *FS) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	n, err := w.checkName(name)
	if err != nil {
		return nil, err
	}
	f, err := w.root.OpenFile(filepath.FromSlash(n), flag|openNonBlock, perm)
	if err != nil {
		return nil, wrap(n, err)
	}
	if _, _, err := w.verify(f, n, false); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// WriteFileAtomic writes data to name through a temporary file in the same
// directory and a rename, so readers see the old or the new content, never
// a part; durable syncs the file before the rename. The directory must
// exist.
func (w *FS) WriteFileAtomic(name string, data []byte, perm fs.FileMode, durable bool) error {
	n, err := w.checkName(name)
	if err != nil {
		return err
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := path.Join(path.Dir(n), ".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := w.root.OpenFile(filepath.FromSlash(tmp), os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return wrap(n, err)
	}
	final, _, err := w.verify(f, tmp, false)
	if err == nil && w.deny.Denied(path.Join(path.Dir(final), path.Base(n))) {
		err = fmt.Errorf("%w: %s (its folder leads to %s)", policy.ErrSensitive, n, path.Dir(final))
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = w.root.Rename(filepath.FromSlash(tmp), filepath.FromSlash(n))
	}
	if err != nil {
		_ = w.root.Remove(filepath.FromSlash(tmp))
		return wrap(n, err)
	}
	return nil
}

// Remove removes a file or an empty directory. A denied name is refused.
func (w *FS) Remove(name string) error {
	n, err := w.checkName(name)
	if err != nil {
		return err
	}
	return wrap(n, w.root.Remove(filepath.FromSlash(n)))
}

// Rename renames a file inside the root. Denied names are refused.
func (w *FS) Rename(oldName, newName string) error {
	o, err := w.checkName(oldName)
	if err != nil {
		return err
	}
	n, err := w.checkName(newName)
	if err != nil {
		return err
	}
	return wrap(n, w.root.Rename(filepath.FromSlash(o), filepath.FromSlash(n)))
}

func sortEntries(ents []fs.DirEntry) {
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}

// Refused reports whether err is a refusal of the workspace (a path out of
// the root, a denied path, a hard link, a bad name) rather than an I/O
// error: callers return such an error as it is, for its own code.
func Refused(err error) bool {
	return errors.Is(err, policy.ErrOutsideRoot) || errors.Is(err, policy.ErrSensitive) ||
		errors.Is(err, policy.ErrHardLink) || errors.Is(err, policy.ErrBadName) || errors.Is(err, policy.ErrNotRegular)
}

// kindOf names a file type for a message.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file (" + m.Type().String() + ")"
}
