// Package memory is the memory source: it retrieves agent memory notes as
// memory:<tier>/<file>.md so that a fact from memory is cited like any
// other source (source_type memory, authority medium, version = the note's
// content hash).
package memory

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/retrieve-dev/retrieve"
	mem "github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/workspace"
)

// Options configure the memory source.
type Options struct {
	// Root is the workspace root; Dir the memory folder inside it (detected
	// when empty: memory/, else x-ipe-docs/memory/).
	Root string
	Dir  string
	// FS is the workspace (its deny list is obeyed here too); when nil, New
	// opens Root with the built-in deny list.
	FS *workspace.FS
}

// Source reads memory notes.
type Source struct {
	svc *mem.Service
}

var (
	_ retrieve.Source  = (*Source)(nil)
	_ retrieve.Schemer = (*Source)(nil)
)

// New returns the memory source of a workspace.
func New(opts Options) (*Source, error) {
	svc, err := mem.New(mem.Options{Root: opts.Root, Dir: opts.Dir, FS: opts.FS})
	if err != nil {
		return nil, err
	}
	return &Source{svc: svc}, nil
}

// Kind implements retrieve.Source.
func (s *Source) Kind() string { return "memory" }

// Schemes implements retrieve.Schemer: memory:<tier>/<file>.md.
func (s *Source) Schemes() []string { return []string{"memory"} }

// Fetch implements retrieve.Source.
func (s *Source) Fetch(ctx context.Context, req *retrieve.Request) (*retrieve.Document, error) {
	ref := strings.TrimPrefix(req.Target, "memory:")
	rel := path.Clean(strings.TrimPrefix(filepath.ToSlash(ref), "./"))
	tier, name, ok := strings.Cut(rel, "/")
	if !ok || !mem.ValidTier(tier) || name == "" || strings.Contains(name, "/") || !strings.HasSuffix(name, ".md") {
		return nil, retrieve.Errorf(retrieve.CodeInvalidPath, "%q is not a memory note reference", req.Target).
			WithHint("use memory:<tier>/<file>.md with tier episodic, semantic or procedural")
	}
	wsRel := rel
	if d := s.svc.Dir(); d != "." {
		wsRel = d + "/" + rel
	}
	// The workspace refuses a denied name, a link out of the root and a
	// link to a denied file.
	f, fi, err := s.svc.FS().OpenInfo(wsRel)
	if workspace.Refused(err) {
		return nil, err
	}
	if err == nil && !fi.Mode().IsRegular() {
		f.Close()
		err = fs.ErrNotExist
	}
	if err != nil {
		e := retrieve.Errorf(retrieve.CodePathNotFound, "File not found: %s", wsRel).
			WithHint("list the notes with retrieve memory list")
		if !errors.Is(err, fs.ErrNotExist) {
			e = e.WithErr(err)
		}
		return nil, e
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodePermissionDenied, "%s cannot be read", wsRel).WithErr(err)
	}
	sum := sha256.Sum256(data)
	version := "sha256:" + hex.EncodeToString(sum[:])
	p := mem.ParseNote(data)
	mtime := fi.ModTime().UTC()
	locator := "memory:" + rel
	meta := map[string]any{
		"memory_dir":      s.svc.Dir(),
		"path":            wsRel,
		"memory_tier":     tier,
		"memory_entry_id": p.Note.ID,
		"title":           p.Note.Title,
		"tags":            nonNil(p.Note.Tags),
	}
	doc := &retrieve.Document{
		Body:         io.NopCloser(bytes.NewReader(data)),
		Size:         int64(len(data)),
		Format:       "markdown",
		Name:         name,
		Locator:      locator,
		Label:        locator,
		Spans:        true,
		Version:      &version,
		LastModified: &mtime,
		Authority:    retrieve.AuthorityMedium,
		Reliability:  "Agent memory note: written by an agent or a person, not checked against its sources",
		Metadata:     meta,
		Assumptions:  []string{"A memory note records what an agent noted; it may be out of date or wrong"},
	}
	if p.Warning != "" {
		doc.Assumptions = append(doc.Assumptions, "The note's frontmatter is broken ("+p.Warning+"); its metadata may be missing")
	}
	return doc, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
