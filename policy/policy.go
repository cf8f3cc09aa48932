// Package policy holds the safety rules that every source obeys: workspace
// roots and the deny list for files. It is a leaf package: it imports no
// other package of this module, and the engine maps its sentinel errors to
// error codes.
package policy

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	ignore "github.com/sabhiram/go-gitignore"
)

// Sentinel errors; wrap them with context.
var (
	// ErrOutsideRoot means a path leaves the workspace root (.., an absolute
	// path elsewhere, or a symlink pointing out).
	ErrOutsideRoot = errors.New("path is outside the workspace root")
	// ErrSensitive means a path matches the deny list.
	ErrSensitive = errors.New("path is on the deny list")
	// ErrHardLink means a regular file has more than one hard link: its other
	// names, which may be denied or outside the root, cannot be checked.
	ErrHardLink = errors.New("file has several hard links")
	// ErrBadName means a path cannot name a file: a NUL byte, a name longer
	// than MaxNameBytes or a path longer than MaxPathBytes.
	ErrBadName = errors.New("path is not a valid file name")
)

// Name limits: the usual file system limits (NAME_MAX, PATH_MAX), checked
// before any system call so that the caller gets ErrBadName, not an
// internal error.
const (
	MaxNameBytes = 255
	MaxPathBytes = 4096
)

// CheckName returns ErrBadName when p cannot name a file: it holds a NUL
// byte, one of its names is longer than MaxNameBytes, or it is longer than
// MaxPathBytes.
func CheckName(p string) error {
	if strings.IndexByte(p, 0) >= 0 {
		return fmt.Errorf("%w: it contains a NUL byte", ErrBadName)
	}
	if len(p) > MaxPathBytes {
		return fmt.Errorf("%w: %d bytes long, more than %d", ErrBadName, len(p), MaxPathBytes)
	}
	for _, part := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == filepath.Separator }) {
		if len(part) > MaxNameBytes {
			return fmt.Errorf("%w: a name of %d bytes, more than %d (%.40s…)", ErrBadName, len(part), MaxNameBytes, part)
		}
	}
	return nil
}

// DefaultDeny is the built-in deny list, in gitignore syntax. It is a
// floor: .retrieveignore and the workspace configuration can add to it but
// never remove from it (a "!.env" there re-allows nothing), and it matches
// without regard to case (.ENV, ID_RSA, SERVER.KEY), as a case-insensitive
// file system would open them.
var DefaultDeny = []string{
	".env", ".env.*", ".env*",
	"*.pem", "*.key", "*.p12", "*.pfx",
	"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
	".ssh/", ".aws/", ".gnupg/", ".netrc", ".git-credentials",
	"credentials.*", "secrets.*",
	".git/",
	".retrieve/retrieve.db*",
}

// IgnoreFile is the name of the workspace's own deny list (gitignore syntax).
const IgnoreFile = ".retrieveignore"

// maxIgnoreBytes bounds the .retrieveignore read.
const maxIgnoreBytes = 1 << 20

// Deny decides whether a workspace-relative path may be read. It holds two
// matchers: the built-in floor and the user's rules, so that a user's
// negation ("!.env") can only undo a user's own pattern.
type Deny struct {
	floor *ignore.GitIgnore
	user  *ignore.GitIgnore
}

// NewDeny compiles the default deny list, the root's .retrieveignore (if
// any, read inside the root: a link out of it is an error) and the extra
// patterns.
func NewDeny(root string, extra []string) (*Deny, error) {
	var ignoreFile []byte
	f, err := os.OpenInRoot(root, IgnoreFile)
	switch {
	case err == nil:
		ignoreFile, err = io.ReadAll(io.LimitReader(f, maxIgnoreBytes))
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", IgnoreFile, err)
		}
	case errors.Is(err, os.ErrNotExist):
	default:
		return nil, fmt.Errorf("read %s: %w", IgnoreFile, err)
	}
	return CompileDeny(ignoreFile, extra), nil
}

// CompileDeny compiles the default deny list, the content of a
// .retrieveignore and extra patterns.
func CompileDeny(ignoreFile []byte, extra []string) *Deny {
	var user []string
	for _, line := range strings.Split(string(ignoreFile), "\n") {
		user = append(user, strings.TrimRight(line, "\r"))
	}
	user = append(user, extra...)
	return &Deny{matcher(DefaultDeny), matcher(user)}
}

func matcher(patterns []string) *ignore.GitIgnore {
	lower := make([]string, len(patterns))
	for i, p := range patterns {
		lower[i] = strings.ToLower(p)
	}
	return ignore.CompileIgnoreLines(lower...)
}

// Denied reports whether rel (slash-separated, relative to the root) or any
// of its parent directories is on the deny list, in any letter case.
func (d *Deny) Denied(rel string) bool {
	rel = strings.ToLower(path.Clean(filepath.ToSlash(rel)))
	if rel == "." || rel == "" || rel == "/" {
		return false
	}
	return denied(d.floor, rel) || denied(d.user, rel)
}

func denied(m *ignore.GitIgnore, rel string) bool {
	// rel+"/" too: a folder pattern (".ssh/") denies the folder itself, as
	// a listing names it without a slash.
	if m.MatchesPath(rel) || m.MatchesPath(rel+"/") {
		return true
	}
	// A pattern such as ".ssh/" matches the directory; check every parent so
	// that ".ssh/config" is denied too.
	for dir := path.Dir(rel); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if m.MatchesPath(dir + "/") {
			return true
		}
	}
	return false
}

// Rel turns a target path into a clean slash-separated path relative to
// root. Absolute paths are accepted when they lie inside root. A path that
// leaves root lexically returns ErrOutsideRoot. Symlinks are not resolved
// here: Resolve does that.
func Rel(root, target string) (string, error) {
	if target == "" {
		return "", fmt.Errorf("%w: empty path", ErrOutsideRoot)
	}
	p := filepath.FromSlash(target)
	if filepath.IsAbs(p) {
		absRoot, err := filepath.Abs(root)
		if err != nil {
			return "", fmt.Errorf("resolve root: %w", err)
		}
		r, err := filepath.Rel(absRoot, filepath.Clean(p))
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			// The root may itself be reached through a symlink.
			if real, rerr := filepath.EvalSymlinks(absRoot); rerr == nil {
				if r2, err2 := filepath.Rel(real, filepath.Clean(p)); err2 == nil && r2 != ".." && !strings.HasPrefix(r2, ".."+string(filepath.Separator)) {
					return filepath.ToSlash(r2), nil
				}
			}
			return "", fmt.Errorf("%w: %s", ErrOutsideRoot, target)
		}
		p = r
	}
	p = filepath.Clean(p)
	if p == ".." || strings.HasPrefix(p, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: %s", ErrOutsideRoot, target)
	}
	return filepath.ToSlash(p), nil
}
