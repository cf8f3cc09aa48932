package memory

import (
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/workspace"
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

// DefaultFullCheckInterval is how often a long-lived Service stats every
// note file to catch in-place edits.
const DefaultFullCheckInterval = 2 * time.Second

// Options configure a Service.
type Options struct {
	// Root is the workspace root.
	Root string
	// FS is the workspace, shared with its other readers; when nil, New
	// opens Root with the built-in deny list.
	FS *workspace.FS
	// Dir is the memory folder relative to Root (or absolute inside it);
	// when empty, DetectDir picks it.
	Dir string
	// Index is the full-text index; without it, searches scan the files.
	Index Index
	// Now returns the current time (time.Now when nil).
	Now func() time.Time
	// FullCheckInterval bounds how often a long-lived Service stats every
	// note file (mtime and size) for hand edits made in place; folder
	// changes (new, removed or renamed notes, the keeper's atomic writes,
	// git checkouts) are seen on every query through the tier folders'
	// mtimes. 0 means DefaultFullCheckInterval; a negative value stats every
	// file on every query. A new Service starts with a full check unless
	// CheckFile says when the last one was.
	FullCheckInterval time.Duration
	// CheckFile, when set, is where the Service records when it last
	// checked every note file and the tier folders' mtimes it saw then (a
	// small file, replaced atomically), so that the next Service — the next
	// CLI run — goes on from there: within FullCheckInterval of the last
	// full check, a query whose folders did not change reads nothing but
	// the index. Name one file per memory folder and index store.
	CheckFile string
	// Evidence resolves and re-checks the evidence of notes (evidence,
	// why, verify); without it, writes that name evidence fail.
	Evidence EvidenceResolver
}

// Service is the memory keeper and extractor of one memory folder. Its
// methods take typed inputs and return typed outputs, for the CLI, the MCP
// server and the HTTP API alike. It is safe for concurrent use.
type Service struct {
	fs    *workspace.FS
	root  string
	dir   string // absolute
	rel   string // workspace-relative, slash-separated
	index Index
	now   func() time.Time
	every time.Duration

	mu         sync.Mutex // serializes index syncs
	states     map[string]FileState
	dirMtimes  map[string]int64
	lastFull   time.Time
	checkFile  string
	checkRead  bool      // checkFile was read
	savedAt    time.Time // when checkFile was last written
	watch      *watcher  // the file watcher, when Watch started one
	evidence   EvidenceResolver
	edgeVerify EdgeVerifier // guarded by mu
	// denyOK says every name the index holds was checked against this
	// workspace's deny list (a full listing made it so, or the check file
	// says so for the same list): a listing then checks only new names.
	denyOK bool
	// digests and indexed are what the last update saw (recordListing).
	digests map[string]uint64
	indexed int
}

// DetectDir returns the memory folder of a workspace: DefaultDir when it
// exists, else XIPEDir when that exists, else DefaultDir.
func DetectDir(ws *workspace.FS) string {
	if fi, err := ws.Stat(DefaultDir); err == nil && fi.IsDir() {
		return DefaultDir
	}
	if fi, err := ws.Stat(XIPEDir); err == nil && fi.IsDir() {
		return XIPEDir
	}
	return DefaultDir
}

// New returns the Service of a memory folder. The folder need not exist
// (Init creates it).
func New(opts Options) (*Service, error) {
	ws := opts.FS
	if ws == nil {
		var err error
		if ws, err = workspace.Open(opts.Root, nil); err != nil {
			return nil, retrieve.Errorf(retrieve.CodeInputValidation, "bad workspace root %q", opts.Root).
				WithHint("pass --root with an existing directory").WithErr(err)
		}
	}
	root := ws.Dir()
	d := opts.Dir
	if d == "" {
		d = DetectDir(ws)
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
	s := &Service{fs: ws, root: root, dir: abs, rel: filepath.ToSlash(rel), index: opts.Index, now: opts.Now, every: opts.FullCheckInterval,
		checkFile: opts.CheckFile, dirMtimes: map[string]int64{}, evidence: opts.Evidence}
	if s.now == nil {
		s.now = time.Now
	}
	switch {
	case s.every == 0:
		s.every = DefaultFullCheckInterval
	case s.every < 0:
		s.every = 0
	}
	return s, nil
}

// Dir returns the memory folder, relative to the workspace root.
func (s *Service) Dir() string { return s.rel }

// FS returns the workspace the service reads and writes through.
func (s *Service) FS() *workspace.FS { return s.fs }

// AbsDir returns the memory folder's absolute path.
func (s *Service) AbsDir() string { return s.dir }

// workspacePath returns the workspace-relative path of a memory-relative one.
func (s *Service) workspacePath(p string) string {
	if s.rel == "." {
		return p
	}
	return s.rel + "/" + p
}

// name returns the workspace-relative name of a memory-relative slash path
// ("" is the memory folder), for the workspace FS.
func (s *Service) name(p string) string {
	if p == "" {
		return s.rel
	}
	return s.workspacePath(p)
}

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
