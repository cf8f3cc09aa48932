// Package policy holds the safety rules that every source obeys: workspace
// roots and the deny list for files. It is a leaf package: it imports no
// other package of this module, and the engine maps its sentinel errors to
// error codes.
package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/retrieve-dev/retrieve/internal/sentinel"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Sentinel errors; wrap them with context.
var (
	// ErrOutsideRoot means a path leaves the workspace root (.., an absolute
	// path elsewhere, or a symlink pointing out).
	ErrOutsideRoot = sentinel.OutsideRoot
	// ErrSensitive means a path matches the deny list.
	ErrSensitive = sentinel.Sensitive
	// ErrHardLink means a regular file has more than one hard link: its other
	// names, which may be denied or outside the root, cannot be checked.
	ErrHardLink = sentinel.HardLink
	// ErrBadName means a path cannot name a file: a NUL byte, a name longer
	// than MaxNameBytes or a path longer than MaxPathBytes.
	ErrBadName = sentinel.BadName
	// ErrNotRegular means a path names a FIFO, a socket or a device: such
	// a file is never read (a FIFO blocks its reader forever, a device
	// never ends).
	ErrNotRegular = sentinel.NotRegular
	// ErrTooLarge means a file is larger than its reader's cap.
	ErrTooLarge = sentinel.FileTooLarge
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
	floor *rules
	user  *rules
	sum   string // Fingerprint
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
	h := sha256.New()
	for _, list := range [][]string{DefaultDeny, user} {
		for _, l := range list {
			h.Write([]byte(l))
			h.Write([]byte{'\n'})
		}
		h.Write([]byte{0})
	}
	return &Deny{matcher(DefaultDeny), matcher(user), hex.EncodeToString(h.Sum(nil))}
}

// Fingerprint identifies the list's patterns (built-in and user's): two
// lists with the same fingerprint deny the same paths. A cache of paths
// already checked against one list may skip checking them again only
// under the same fingerprint.
func (d *Deny) Fingerprint() string { return d.sum }

// rules is a gitignore matcher: go-git's patterns (the matcher git's own
// Go implementation uses), one per line, evaluated in order so that the
// last pattern matching a path decides (a "!" pattern re-includes it, as in
// git). A pattern runs only on paths holding its literal words: every path
// a pattern can match contains them (".env" for ".env.*", "pem" for
// "*.pem"), and a strings.Contains is cheaper than the glob match (a sweep
// of 100,000 memory notes checks every path against every line).
type rules struct {
	lines []rule
}

// compiledPatterns counts the patterns parsed (tests: parsing is lazy).
var compiledPatterns atomic.Int64

type rule struct {
	p     func() gitignore.Pattern // parsed on first use
	words []string                 // literal runs every match contains; nil: always run
}

func matcher(patterns []string) *rules {
	r := &rules{}
	for _, line := range patterns {
		l := strings.ToLower(strings.TrimRight(line, "\r"))
		if strings.TrimSpace(l) == "" || l[0] == '#' {
			continue // no pattern, as git reads it
		}
		body := strings.TrimPrefix(l, "!")
		words, ok := literalWords(strings.Trim(body, " "))
		if !ok {
			words = nil
		}
		r.lines = append(r.lines, rule{p: sync.OnceValue(func() gitignore.Pattern {
			compiledPatterns.Add(1)
			return gitignore.ParsePattern(l, nil)
		}), words: words})
	}
	return r
}

// literalWords returns the runs of letters, digits, '.', '_' and '-' of a
// gitignore pattern: they match only themselves, so a matching path holds
// each. Other characters ('*', '?', '/', which "**" makes optional) only
// split runs. ok is false for a pattern with characters whose meaning the
// analysis does not follow (brackets, backslash escapes…): such a pattern
// runs on every path.
func literalWords(p string) (words []string, ok bool) {
	if p == "" || p[0] == '!' || p[0] == '#' {
		return nil, false
	}
	start := -1
	for i := 0; i <= len(p); i++ {
		var c byte = '/'
		if i < len(p) {
			c = p[i]
		}
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-':
			if start < 0 {
				start = i
			}
			continue
		case c == '*' || c == '?' || c == '/' || c == ' ':
		default:
			return nil, false
		}
		if start >= 0 {
			words = append(words, p[start:i])
			start = -1
		}
	}
	return words, true
}

// match reports whether the last pattern matching rel (split at '/' in
// parts; a directory when isDir) excludes it.
func (r *rules) match(rel string, parts []string, isDir bool) bool {
	excluded := false
	for i := range r.lines {
		l := &r.lines[i]
		if !containsAll(rel, l.words) {
			continue
		}
		switch l.p().Match(parts, isDir) {
		case gitignore.Exclude:
			excluded = true
		case gitignore.Include:
			excluded = false
		}
	}
	return excluded
}

func containsAll(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// Denied reports whether rel (slash-separated, relative to the root) or any
// of its parent directories is on the deny list, in any letter case. A
// negation in .retrieveignore or the config re-includes a path its earlier
// patterns denied, as in git; it cannot re-include a path under a denied
// directory, nor anything the built-in list denies.
func (d *Deny) Denied(rel string) bool {
	rel = strings.ToLower(path.Clean(filepath.ToSlash(rel)))
	if rel == "." || rel == "" || rel == "/" {
		return false
	}
	rel = strings.TrimPrefix(rel, "/")
	return denied(d.floor, rel) || denied(d.user, rel)
}

func denied(m *rules, rel string) bool {
	parts := strings.Split(rel, "/")
	// A denied directory denies all it holds: git does not look inside an
	// excluded directory, so no negation brings a file under it back.
	end := 0
	for i := 1; i < len(parts); i++ {
		end += len(parts[i-1])
		if m.match(rel[:end], parts[:i], true) {
			return true
		}
		end++ // the slash
	}
	// The path as a file, and as a folder (a listing names a folder without
	// its slash, and ".ssh/" denies the folder itself).
	return m.match(rel, parts, false) || m.match(rel, parts, true)
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
