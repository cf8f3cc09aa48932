// Package policy holds the safety rules that every source obeys: workspace
// roots and the deny list for files. It is a leaf package: it imports no
// other package of this module, and the engine maps its sentinel errors to
// error codes.
package policy

import (
	"errors"
	"fmt"
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
)

// DefaultDeny is the built-in deny list, in gitignore syntax. It applies
// on top of .retrieveignore and the workspace configuration.
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

// Deny decides whether a workspace-relative path may be read.
type Deny struct {
	matcher  *ignore.GitIgnore
	patterns []string
}

// NewDeny compiles the default deny list, the root's .retrieveignore (if
// any) and the extra patterns.
func NewDeny(root string, extra []string) (*Deny, error) {
	patterns := append([]string{}, DefaultDeny...)
	b, err := os.ReadFile(filepath.Join(root, IgnoreFile))
	switch {
	case err == nil:
		for _, line := range strings.Split(string(b), "\n") {
			patterns = append(patterns, strings.TrimRight(line, "\r"))
		}
	case errors.Is(err, os.ErrNotExist):
	default:
		return nil, fmt.Errorf("read %s: %w", IgnoreFile, err)
	}
	patterns = append(patterns, extra...)
	return &Deny{matcher: ignore.CompileIgnoreLines(patterns...), patterns: patterns}, nil
}

// Denied reports whether rel (slash-separated, relative to the root) or any
// of its parent directories is on the deny list.
func (d *Deny) Denied(rel string) bool {
	rel = path.Clean(filepath.ToSlash(rel))
	if rel == "." || rel == "" {
		return false
	}
	if d.matcher.MatchesPath(rel) {
		return true
	}
	// A pattern such as ".ssh/" matches the directory; check every parent so
	// that ".ssh/config" is denied too.
	for dir := path.Dir(rel); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if d.matcher.MatchesPath(dir + "/") {
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

// RealRoot resolves the symlinks of a root directory once, for Resolve.
func RealRoot(root string) (string, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("resolve root: %w", err)
	}
	return filepath.Abs(real)
}

// Resolve follows symlinks of rel inside realRoot (from RealRoot) and
// returns the real path, relative to it. A link that points outside returns
// ErrOutsideRoot. A missing path returns the os error
// (errors.Is(err, fs.ErrNotExist)).
func Resolve(realRoot, rel string) (string, error) {
	real, err := filepath.EvalSymlinks(filepath.Join(realRoot, filepath.FromSlash(rel)))
	if err != nil {
		return "", err
	}
	r, err := filepath.Rel(realRoot, real)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: %s points outside it", ErrOutsideRoot, rel)
	}
	return filepath.ToSlash(r), nil
}
