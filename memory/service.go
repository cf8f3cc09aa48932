package memory

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
)

// Folder names inside a memory folder.
const (
	WorkingDir  = ".working"
	OntologyDir = ".ontology"
	// DefaultDir is the memory folder of a workspace; XIPEDir is the X-IPE
	// location, used when it exists and DefaultDir does not.
	DefaultDir = "memory"
	XIPEDir    = "x-ipe-docs/memory"
)

// Options configure a Service.
type Options struct {
	// Root is the workspace root.
	Root string
	// Dir is the memory folder relative to Root (or absolute inside it);
	// when empty, DetectDir picks it.
	Dir string
	// Index is the full-text index; without it, searches scan the files.
	Index store.MemoryIndex
	// Now returns the current time (time.Now when nil).
	Now func() time.Time
	// FullCheckInterval bounds how often a long-lived Service stats every
	// note file for hand edits made in place; folder changes (new, removed,
	// renamed notes) are seen on every query. 0 stats every file on every
	// query.
	FullCheckInterval time.Duration
}

// Service is the memory keeper and extractor of one memory folder. Its
// methods take typed inputs and return typed outputs, for the CLI, the MCP
// server and the HTTP API alike. It is safe for concurrent use.
type Service struct {
	root  string
	dir   string // absolute
	rel   string // workspace-relative, slash-separated
	index store.MemoryIndex
	now   func() time.Time
	every time.Duration

	mu        sync.Mutex // serializes index syncs
	states    map[string]store.MemoryFileState
	dirMtimes map[string]int64
	lastFull  time.Time
}

// DetectDir returns the memory folder of root: DefaultDir when it exists,
// else XIPEDir when that exists, else DefaultDir.
func DetectDir(root string) string {
	if fi, err := os.Stat(filepath.Join(root, DefaultDir)); err == nil && fi.IsDir() {
		return DefaultDir
	}
	if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(XIPEDir))); err == nil && fi.IsDir() {
		return XIPEDir
	}
	return DefaultDir
}

// New returns the Service of a memory folder. The folder need not exist
// (Init creates it).
func New(opts Options) (*Service, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "bad workspace root %q", opts.Root).WithErr(err)
	}
	d := opts.Dir
	if d == "" {
		d = DetectDir(root)
	}
	abs := d
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, filepath.FromSlash(d))
	}
	abs = filepath.Clean(abs)
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, retrieve.Errorf(retrieve.CodeInvalidPath, "the memory folder %s is outside the workspace %s", d, root).
			WithHint("pass --memory-dir with a folder inside the workspace")
	}
	s := &Service{root: root, dir: abs, rel: filepath.ToSlash(rel), index: opts.Index, now: opts.Now, every: opts.FullCheckInterval}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// Dir returns the memory folder, relative to the workspace root.
func (s *Service) Dir() string { return s.rel }

// AbsDir returns the memory folder's absolute path.
func (s *Service) AbsDir() string { return s.dir }

// workspacePath returns the workspace-relative path of a memory-relative one.
func (s *Service) workspacePath(p string) string {
	if s.rel == "." {
		return p
	}
	return s.rel + "/" + p
}

// abs returns the absolute path of a memory-relative slash path.
func (s *Service) abs(p string) string { return filepath.Join(s.dir, filepath.FromSlash(p)) }

// notePath turns what a user gave (memory:tier/x.md, tier/x.md, a
// workspace-relative or absolute path) into a memory-relative path of a
// note, "tier/name.md". It does not check that the file exists.
func (s *Service) notePath(target string) (string, error) {
	t := strings.TrimSpace(target)
	t = strings.TrimPrefix(t, "memory:")
	var rel string
	if filepath.IsAbs(t) {
		r, err := filepath.Rel(s.dir, filepath.Clean(t))
		if err != nil {
			return "", invalidPath(target)
		}
		rel = filepath.ToSlash(r)
	} else {
		rel = pathClean(t)
		if s.rel != "." && strings.HasPrefix(rel, s.rel+"/") {
			rel = strings.TrimPrefix(rel, s.rel+"/")
		}
	}
	if rel == ".." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/") {
		return "", invalidPath(target)
	}
	tier, name, ok := strings.Cut(rel, "/")
	if !ok || name == "" || strings.Contains(name, "/") || !(ValidTier(tier) || tier == WorkingDir) || !strings.HasSuffix(name, ".md") {
		return "", invalidPath(target)
	}
	return rel, nil
}

func pathClean(p string) string {
	p = filepath.ToSlash(p)
	c := filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
	return strings.TrimPrefix(c, "./")
}

func invalidPath(target string) error {
	return retrieve.Errorf(retrieve.CodeInvalidPath, "%q is not a note path of the memory folder", target).
		WithHint("name a note as <tier>/<file>.md (episodic, semantic or procedural), or by its memory_entry_id")
}
