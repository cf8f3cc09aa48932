package memory

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/intl"
	"github.com/retrieve-dev/retrieve/workspace"
)

// keeperMu serializes the writers of this process; the lock file serializes
// processes.
var keeperMu sync.Mutex

// lockName is the keeper's lock file in the memory folder.
const lockName = ".keeper.lock"

// InitInput asks for the memory folder to be created.
type InitInput struct{}

// InitOutput says what Init created.
type InitOutput struct {
	Dir     string   `json:"dir" yaml:"dir"`
	Created []string `json:"created" yaml:"created"`
}

// Init creates the memory folder and its sub-folders. It is idempotent.
func (s *Service) Init(ctx context.Context, in InitInput) (*InitOutput, error) {
	out := &InitOutput{Dir: s.rel, Created: []string{}}
	dirs := []string{"", Episodic, Semantic, Procedural, WorkingDir, WorkingDir + "/overview", WorkingDir + "/extracted",
		OntologyDir, OntologyDir + "/schema", OntologyDir + "/instances", OntologyDir + "/vocabulary"}
	for _, d := range dirs {
		p := s.name(d)
		if fi, err := s.fs.Stat(p); err == nil {
			if !fi.IsDir() {
				return nil, retrieve.Errorf(retrieve.CodeInvalidPath, "%s exists and is not a folder", s.workspacePath(d)).
					WithHint("move the file away, then run retrieve memory init again")
			}
			continue
		}
		if err := s.fs.MkdirAll(p, 0o755); err != nil {
			return nil, writeFailed("cannot create "+p, err)
		}
		out.Created = append(out.Created, strings.TrimSuffix(s.workspacePath(d), "/"))
	}
	return out, nil
}

func writeFailed(msg string, err error) error {
	if workspace.Refused(err) {
		return retrieve.AsError(err)
	}
	hint := "check that the memory folder is writable"
	if errors.Is(err, fs.ErrPermission) {
		hint = "permission denied: check the folder's permissions"
	}
	return retrieve.Errorf(retrieve.CodeWriteFailed, "%s", msg).WithHint("%s", hint).WithErr(err)
}

// CreateInput is a new note.
type CreateInput struct {
	Type     string         `json:"memory_type" yaml:"memory_type"`
	Title    string         `json:"title" yaml:"title"`
	Content  string         `json:"content" yaml:"content"`
	Tags     []string       `json:"tags,omitempty" yaml:"tags,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty" yaml:"metadata,omitempty"`
	// Evidence are the citations the note is written from: references of
	// any source kind, or retrieval ids of the ledger. Each must resolve.
	Evidence []string `json:"evidence,omitempty" yaml:"evidence,omitempty"`
	// Session is the recorded agent session the note is written in: the
	// note links it, and without Evidence the session's reads are its
	// evidence.
	Session string `json:"session_id,omitempty" yaml:"session_id,omitempty"`
	// ValidFrom is when what the note says began to hold (a date or an
	// RFC 3339 time; default: when its newest evidence was read). A new
	// note holds until now: update sets valid_to.
	ValidFrom string `json:"valid_from,omitempty" yaml:"valid_from,omitempty"`
	prov      *Provenance
}

// WriteOutput is the note a write left on disk.
type WriteOutput struct {
	ID   string `json:"memory_entry_id" yaml:"memory_entry_id"`
	Path string `json:"path" yaml:"path"`
	Note Note   `json:"note" yaml:"note"`
}

// lock takes the keeper lock of the folder.
func (s *Service) lock() (func(), error) {
	keeperMu.Lock()
	f, err := s.fs.OpenFile(s.name(lockName), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		keeperMu.Unlock()
		if errors.Is(err, fs.ErrNotExist) {
			return nil, s.notInitialized()
		}
		return nil, writeFailed("cannot take the keeper lock", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		keeperMu.Unlock()
		return nil, writeFailed("cannot take the keeper lock", err)
	}
	return func() {
		_ = unlockFile(f)
		f.Close()
		keeperMu.Unlock()
	}, nil
}

// missing is the error of a memory folder that cannot be used: the
// workspace's refusal (a link out of the root…) as it is, else "not
// initialized".
func (s *Service) missing(err error) error {
	if workspace.Refused(err) {
		return retrieve.AsError(err)
	}
	return s.notInitialized()
}

func (s *Service) notInitialized() error {
	return retrieve.Errorf(retrieve.CodePathNotFound, "the memory folder %s does not exist", s.rel).
		WithHint("run retrieve memory init (or pass --memory-dir)")
}

func (s *Service) timestamp() string { return s.now().UTC().Format(time.RFC3339) }

func checkTier(t string) error {
	if !ValidTier(t) {
		return retrieve.Errorf(retrieve.CodeInvalidMemoryType, "invalid memory_type %q", t).
			WithHint("use one of: episodic, semantic, procedural")
	}
	return nil
}

func cleanTags(tags []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, t := range tags {
		for _, x := range strings.Split(t, ",") {
			x = strings.TrimSpace(x)
			if x != "" && !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
		}
	}
	return out
}

// Create writes a new note with the next id of its tier and day.
func (s *Service) Create(ctx context.Context, in CreateInput) (*WriteOutput, error) {
	if err := checkTier(in.Type); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Title) == "" {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "title is required").WithHint("give the note a title")
	}
	if strings.TrimSpace(in.Content) == "" {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "content is required").WithHint("give the note some content")
	}
	if _, err := s.fs.Stat(s.name(in.Type)); err != nil {
		return nil, s.missing(err)
	}
	// The evidence is resolved before the lock and before any write: one
	// that does not resolve leaves nothing behind.
	prov, err := s.resolveProvenance(ctx, in.Evidence, in.Session, in.ValidFrom, "")
	if err != nil {
		return nil, err
	}
	in.prov = prov
	unlock, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	return s.createLocked(in)
}

func (s *Service) createLocked(in CreateInput) (*WriteOutput, error) {
	now := s.now().UTC()
	n, err := s.nextSeq(in.Type, now)
	if err != nil {
		return nil, err
	}
	ts := now.Format(time.RFC3339)
	note := Note{
		ID: FormatID(in.Type, now, n), Title: strings.TrimSpace(in.Title), Type: in.Type,
		Tags: cleanTags(in.Tags), Metadata: in.Metadata, Created: ts, Updated: ts, Body: in.Content,
	}
	if in.prov != nil {
		note.SetProvenance(*in.prov)
	}
	stem := Slug(note.Title)
	if stem == "" {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "the title %q has no letters or digits to name the note's file", note.Title).
			WithHint("give the note a title with %s", intl.SlugAllowed)
	}
	name := stem + ".md"
	for i := 2; ; i++ {
		if _, err := s.fs.Lstat(s.name(in.Type + "/" + name)); errors.Is(err, fs.ErrNotExist) {
			break
		}
		name = fmt.Sprintf("%s-%d.md", stem, i)
	}
	rel := in.Type + "/" + name
	if err := s.writeNote(rel, note); err != nil {
		return nil, err
	}
	return &WriteOutput{ID: note.ID, Path: s.workspacePath(rel), Note: note}, nil
}

// nextSeq is the highest NNN of the tier's ids of that day, plus one. Only
// files changed since the day before are read: a note created that day
// cannot be older.
func (s *Service) nextSeq(tier string, now time.Time) (int, error) {
	day := now.Format("20060102")
	since := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).Add(-24 * time.Hour)
	entries, err := s.fs.ReadDir(s.name(tier))
	if err != nil {
		return 0, writeFailed("cannot read "+s.workspacePath(tier), err)
	}
	high := 0
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		fi, err := e.Info()
		if err != nil || fi.ModTime().Before(since) {
			continue
		}
		id := s.readID(tier + "/" + e.Name())
		if _, d, n, ok := parseID(id); ok && d == day && n > high {
			high = n
		}
	}
	return high + 1, nil
}

// readID reads memory_entry_id from the head of a note file.
func (s *Service) readID(rel string) string {
	f, err := s.fs.Open(s.name(rel))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), 64<<10)
	for i := 0; sc.Scan() && i < 40; i++ {
		line := sc.Text()
		if i > 0 && strings.TrimSpace(line) == "---" {
			break
		}
		if v, ok := strings.CutPrefix(line, "memory_entry_id:"); ok {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}

// writeNote renders n, its body ended by a newline in the file (the note
// returned to the caller keeps the content as given), and writes it.
func (s *Service) writeNote(rel string, n Note) error {
	if n.Body != "" && !strings.HasSuffix(n.Body, "\n") {
		n.Body += "\n"
	}
	data, err := n.Render()
	if err != nil {
		return writeFailed("cannot write "+s.workspacePath(rel), err)
	}
	return s.writeAtomic(rel, data)
}

// writeAtomic writes data to the memory-relative path through a temporary
// file in the same folder and a rename.
func (s *Service) writeAtomic(rel string, data []byte) error {
	if err := s.fs.WriteFileAtomic(s.name(rel), data, 0o644, true); err != nil {
		return writeFailed("cannot write "+s.workspacePath(rel), err)
	}
	return nil
}

// ReadInput names a note by memory_entry_id or path.
type ReadInput struct {
	Target string `json:"target" yaml:"target"`
}

// ReadOutput is a note as it is on disk.
type ReadOutput struct {
	ID      string `json:"memory_entry_id" yaml:"memory_entry_id"`
	Path    string `json:"path" yaml:"path"`
	Note    Note   `json:"note" yaml:"note"`
	Warning string `json:"warning,omitempty" yaml:"warning,omitempty"`
}

// resolve finds the memory-relative path of a note named by id or path.
func (s *Service) resolve(target string) (string, error) {
	t := strings.TrimSpace(target)
	if t == "" {
		return "", retrieve.Errorf(retrieve.CodeInputValidation, "a memory_entry_id or a note path is required").
			WithHint("name the note, e.g. sem-20260416-001 or semantic/flask-jinja2-templating.md")
	}
	if tier := TierOfID(t); tier != "" {
		entries, err := s.fs.ReadDir(s.name(tier))
		if err != nil {
			return "", retrieve.Errorf(retrieve.CodeNotFound, "no memory entry %s", t).WithHint("list the notes with retrieve memory list")
		}
		for _, e := range entries {
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".md") && s.readID(tier+"/"+e.Name()) == t {
				return tier + "/" + e.Name(), nil
			}
		}
		return "", retrieve.Errorf(retrieve.CodeNotFound, "no memory entry %s", t).WithHint("list the notes with retrieve memory list")
	}
	rel, err := s.notePath(t)
	if err != nil {
		return "", err
	}
	fi, err := s.fs.Stat(s.name(rel))
	if workspace.Refused(err) {
		return "", retrieve.AsError(err)
	}
	if err != nil || !fi.Mode().IsRegular() {
		return "", retrieve.Errorf(retrieve.CodePathNotFound, "File not found: %s", s.workspacePath(rel)).
			WithHint("list the notes with retrieve memory list")
	}
	return rel, nil
}

func (s *Service) load(rel string) (Parsed, error) {
	data, err := s.fs.ReadFile(s.name(rel))
	if err != nil {
		if workspace.Refused(err) {
			return Parsed{}, retrieve.AsError(err)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return Parsed{}, retrieve.Errorf(retrieve.CodePathNotFound, "File not found: %s", s.workspacePath(rel))
		}
		return Parsed{}, retrieve.Errorf(retrieve.CodePermissionDenied, "cannot read %s", s.workspacePath(rel)).WithErr(err)
	}
	return ParseNote(data), nil
}

// loadNote resolves a note named by id or path and reads it, its
// defaults filled: what Read and Why start from.
func (s *Service) loadNote(target string) (string, Parsed, error) {
	rel, err := s.resolve(target)
	if err != nil {
		return "", Parsed{}, err
	}
	p, err := s.load(rel)
	if err != nil {
		return "", Parsed{}, err
	}
	fillDefaults(&p.Note, rel)
	return rel, p, nil
}

// Read returns a note.
func (s *Service) Read(ctx context.Context, in ReadInput) (*ReadOutput, error) {
	rel, p, err := s.loadNote(in.Target)
	if err != nil {
		return nil, err
	}
	return &ReadOutput{ID: p.Note.ID, Path: s.workspacePath(rel), Note: p.Note, Warning: p.Warnings()}, nil
}

// fillDefaults completes a note read from disk: the tier from its folder,
// the title from its first heading or file name, empty lists.
func fillDefaults(n *Note, rel string) {
	tier, name, _ := strings.Cut(rel, "/")
	if n.Type == "" || !ValidTier(n.Type) {
		if ValidTier(tier) {
			n.Type = tier
		}
	}
	if n.Title == "" {
		n.Title = firstHeading(n.Body)
		if n.Title == "" {
			n.Title = strings.TrimSuffix(name, ".md")
		}
	}
	if n.Tags == nil {
		n.Tags = []string{}
	}
	if n.Metadata == nil {
		n.Metadata = map[string]any{}
	}
}

func firstHeading(body string) string {
	for _, line := range strings.SplitN(body, "\n", 50) {
		if t, ok := strings.CutPrefix(strings.TrimSpace(line), "# "); ok {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

// UpdateInput changes a note. Nil fields are kept; Metadata is merged into
// the note's metadata (a null value removes the key).
type UpdateInput struct {
	Target   string         `json:"target" yaml:"target"`
	Title    *string        `json:"title,omitempty" yaml:"title,omitempty"`
	Content  *string        `json:"content,omitempty" yaml:"content,omitempty"`
	Tags     *[]string      `json:"tags,omitempty" yaml:"tags,omitempty"`
	AddTags  []string       `json:"add_tags,omitempty" yaml:"add_tags,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty" yaml:"metadata,omitempty"`
	// Evidence, when given, replaces the note's evidence (each must
	// resolve); Session links the note to a recorded session; ValidFrom and
	// ValidTo set its valid time ("-" clears ValidTo).
	Evidence  []string `json:"evidence,omitempty" yaml:"evidence,omitempty"`
	Session   string   `json:"session_id,omitempty" yaml:"session_id,omitempty"`
	ValidFrom string   `json:"valid_from,omitempty" yaml:"valid_from,omitempty"`
	ValidTo   string   `json:"valid_to,omitempty" yaml:"valid_to,omitempty"`
}

// Update rewrites a note with the changes asked for and bumps `updated`.
// The file keeps its name, so citations stay valid.
func (s *Service) Update(ctx context.Context, in UpdateInput) (*WriteOutput, error) {
	provGiven := len(in.Evidence) > 0 || in.Session != "" || in.ValidFrom != "" || in.ValidTo != ""
	if in.Title == nil && in.Content == nil && in.Tags == nil && len(in.AddTags) == 0 && in.Metadata == nil && !provGiven {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "nothing to update").
			WithHint("give at least one of title, content, tags, add_tags, metadata, evidence, session_id, valid_from, valid_to")
	}
	if in.Title != nil && strings.TrimSpace(*in.Title) == "" {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "title cannot be empty")
	}
	validTo := in.ValidTo
	if validTo == "-" {
		validTo = ""
	}
	var prov *Provenance
	if provGiven {
		var err error
		if prov, err = s.resolveProvenance(ctx, in.Evidence, in.Session, in.ValidFrom, validTo); err != nil {
			return nil, err
		}
	}
	unlock, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	rel, err := s.resolve(in.Target)
	if err != nil {
		return nil, err
	}
	p, err := s.load(rel)
	if err != nil {
		return nil, err
	}
	if p.Warning != "" && p.HasFrontmatter {
		return nil, retrieve.Errorf(retrieve.CodeParseFailed, "%s has broken frontmatter: %s", s.workspacePath(rel), p.Warning).
			WithHint("fix the frontmatter by hand first: an update would lose it")
	}
	n := p.Note
	fillDefaults(&n, rel)
	if in.Title != nil {
		n.Title = strings.TrimSpace(*in.Title)
	}
	if in.Content != nil {
		n.Body = *in.Content
	}
	if in.Tags != nil {
		n.Tags = cleanTags(*in.Tags)
	}
	if len(in.AddTags) > 0 {
		n.Tags = cleanTags(append(n.Tags, in.AddTags...))
	}
	for k, v := range in.Metadata {
		if v == nil {
			delete(n.Metadata, k)
		} else {
			n.Metadata[k] = v
		}
	}
	if prov != nil {
		if err := mergeProvenance(&n, *prov, in); err != nil {
			return nil, retrieve.Errorf(retrieve.CodeParseFailed, "%s: %v", s.workspacePath(rel), err).
				WithHint("fix the retrieve: block of the frontmatter by hand first")
		}
	}
	n.Updated = s.timestamp()
	if n.Created == "" {
		n.Created = n.Updated
	}
	if err := s.writeNote(rel, n); err != nil {
		return nil, err
	}
	return &WriteOutput{ID: n.ID, Path: s.workspacePath(rel), Note: n}, nil
}

// DeleteInput names the note to delete.
type DeleteInput struct {
	Target string `json:"target" yaml:"target"`
}

// DeleteOutput says what was deleted.
type DeleteOutput struct {
	ID      string `json:"memory_entry_id" yaml:"memory_entry_id"`
	Path    string `json:"path" yaml:"path"`
	Deleted bool   `json:"deleted" yaml:"deleted"`
}

// Delete removes a note.
func (s *Service) Delete(ctx context.Context, in DeleteInput) (*DeleteOutput, error) {
	unlock, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	rel, err := s.resolve(in.Target)
	if err != nil {
		return nil, err
	}
	id := s.readID(rel)
	if err := s.fs.Remove(s.name(rel)); err != nil {
		return nil, writeFailed("cannot delete "+s.workspacePath(rel), err)
	}
	return &DeleteOutput{ID: id, Path: s.workspacePath(rel), Deleted: true}, nil
}

// ListInput filters the notes: by tier, and by tags (a note must have all).
type ListInput struct {
	Type string   `json:"memory_type,omitempty" yaml:"memory_type,omitempty"`
	Tags []string `json:"tags,omitempty" yaml:"tags,omitempty"`
}

// ListEntry is one note of a list.
type ListEntry struct {
	ID      string   `json:"memory_entry_id" yaml:"memory_entry_id"`
	Title   string   `json:"title" yaml:"title"`
	Type    string   `json:"memory_type" yaml:"memory_type"`
	Tags    []string `json:"tags" yaml:"tags"`
	Path    string   `json:"path" yaml:"path"`
	Created string   `json:"created" yaml:"created"`
	Updated string   `json:"updated" yaml:"updated"`
	Warning string   `json:"warning,omitempty" yaml:"warning,omitempty"`
}

// ListOutput is the notes, by tier then id.
type ListOutput struct {
	Entries []ListEntry `json:"entries" yaml:"entries"`
	Total   int         `json:"total" yaml:"total"`
}

// List lists notes.
func (s *Service) List(ctx context.Context, in ListInput) (*ListOutput, error) {
	tiers := Tiers
	if in.Type != "" {
		if err := checkTier(in.Type); err != nil {
			return nil, err
		}
		tiers = []string{in.Type}
	}
	if _, err := s.fs.Stat(s.rel); err != nil {
		return nil, s.missing(err)
	}
	want := cleanTags(in.Tags)
	out := &ListOutput{Entries: []ListEntry{}}
	for _, tier := range tiers {
		entries, _ := s.fs.ReadDir(s.name(tier))
		for _, e := range entries {
			if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			rel := tier + "/" + e.Name()
			p, err := s.load(rel)
			if err != nil {
				continue
			}
			fillDefaults(&p.Note, rel)
			if !hasAll(p.Note.Tags, want) {
				continue
			}
			n := p.Note
			out.Entries = append(out.Entries, ListEntry{ID: n.ID, Title: n.Title, Type: n.Type, Tags: n.Tags, Path: s.workspacePath(rel),
				Created: n.Created, Updated: n.Updated, Warning: p.Warnings()})
		}
	}
	sort.SliceStable(out.Entries, func(i, j int) bool {
		a, b := out.Entries[i], out.Entries[j]
		if a.Type != b.Type {
			return tierRank(a.Type) < tierRank(b.Type)
		}
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		return a.Path < b.Path
	})
	out.Total = len(out.Entries)
	return out, nil
}

func tierRank(t string) int {
	for i, x := range Tiers {
		if x == t {
			return i
		}
	}
	return len(Tiers)
}

func hasAll(have, want []string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			if strings.EqualFold(h, w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// PromoteInput moves a draft from .working/ into a tier as a new note.
// Title and Tags override the draft's own.
type PromoteInput struct {
	Source string   `json:"source" yaml:"source"`
	Type   string   `json:"memory_type" yaml:"memory_type"`
	Title  string   `json:"title,omitempty" yaml:"title,omitempty"`
	Tags   []string `json:"tags,omitempty" yaml:"tags,omitempty"`
}

// Promote creates a note from a draft under .working/ and removes the draft.
func (s *Service) Promote(ctx context.Context, in PromoteInput) (*WriteOutput, error) {
	if err := checkTier(in.Type); err != nil {
		return nil, err
	}
	src := pathClean(strings.TrimPrefix(strings.TrimSpace(in.Source), "memory:"))
	if s.rel != "." {
		src = strings.TrimPrefix(src, s.rel+"/")
	}
	src = strings.TrimPrefix(src, WorkingDir+"/")
	if src == "" || src == "." || src == ".." || strings.HasPrefix(src, "../") || strings.HasPrefix(src, "/") {
		return nil, retrieve.Errorf(retrieve.CodeInvalidPath, "%q is not a draft under %s/", in.Source, s.workspacePath(WorkingDir)).
			WithHint("name a file under .working/, e.g. extracted/draft.md")
	}
	rel := WorkingDir + "/" + src
	unlock, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	data, err := s.fs.ReadFile(s.name(rel))
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodePathNotFound, "File not found: %s", s.workspacePath(rel)).
			WithHint("drafts live under %s/", s.workspacePath(WorkingDir))
	}
	p := ParseNote(data)
	n := p.Note
	title := strings.TrimSpace(in.Title)
	if title == "" {
		title = n.Title
	}
	if title == "" {
		title = firstHeading(n.Body)
	}
	if title == "" {
		title = strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))
	}
	tags := n.Tags
	if in.Tags != nil {
		tags = in.Tags
	}
	meta := n.Metadata
	if meta == nil {
		meta = map[string]any{}
	}
	meta["promoted_from"] = s.workspacePath(rel)
	body := n.Body
	if strings.TrimSpace(body) == "" {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "the draft %s is empty", s.workspacePath(rel))
	}
	if _, err := s.fs.Stat(s.name(in.Type)); err != nil {
		return nil, s.missing(err)
	}
	out, err := s.createLocked(CreateInput{Type: in.Type, Title: title, Content: body, Tags: tags, Metadata: meta})
	if err != nil {
		return nil, err
	}
	if err := s.fs.Remove(s.name(rel)); err != nil {
		return nil, writeFailed("the note was written but the draft "+s.workspacePath(rel)+" could not be removed", err)
	}
	return out, nil
}
