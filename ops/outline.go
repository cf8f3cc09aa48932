package ops

import (
	"context"
	"slices"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
)

// Outliner is what outline runs on: the engine, which reads and parses a
// file through its source, and the workspace's directory listing.
type Outliner struct {
	Engine *engine.Engine
	// Files lists the files of target when it is a directory of the
	// workspace (isDir true); any other target is not one (source/file
	// DirFiles).
	Files func(ctx context.Context, target string) (files []string, isDir bool, err error)
	// Kinds are the symbol kinds a kinds filter may name.
	Kinds []string
}

// OutlineInput is the input of outline: a target, a kinds filter and a
// page.
type OutlineInput struct {
	Target string   `json:"target" jsonschema:"A source file, git:REV:PATH or a workspace directory."`
	Kinds  []string `json:"kinds,omitempty" jsonschema:"Only these kinds (class, function…)."`
	Limit  int      `json:"limit,omitempty" jsonschema:"Files per page (default 50)."`
	Cursor string   `json:"cursor,omitempty" jsonschema:"next_cursor of the previous page."`
	Budget *int     `json:"budget,omitempty" jsonschema:"Message budget in bytes."`
	// All puts every file on one page: the CLI without --limit and
	// --cursor. It is no input of the tool.
	All bool `json:"-"`
}

// OutlineSkip is a file of a directory that was not outlined, and why.
type OutlineSkip struct {
	Target  string        `json:"target"`
	Code    retrieve.Code `json:"code"`
	Message string        `json:"message"`
}

// OutlineOutput is one page of outlines.
type OutlineOutput struct {
	// Outlines are the page's files with their symbols; in a directory,
	// files without symbols are left out.
	Outlines []*retrieve.FileOutline `json:"outlines"`
	// Skipped are the page's directory files that could not be outlined (a
	// language this build cannot parse, a file over the parse limit …).
	Skipped []OutlineSkip `json:"skipped"`
	// Files counts the source files the targets name, on every page.
	Files int `json:"files"`
	// NextCursor asks for the next page; empty on the last.
	NextCursor string `json:"next_cursor"`
	// Dir tells the CLI whether a directory was outlined.
	Dir bool `json:"-"`
}

// Outline pages.
const (
	DefaultOutlineLimit = 50
	MaxOutlineLimit     = 500
)

type outlineFile struct {
	target string
	inDir  bool
}

// Outline reads one page of the outlines of in.Target and more (the CLI's
// further paths), in order: an item is one file's outline (outline and
// `retrieve outline PATH… --limit/--cursor`). A directory stands for its
// source files (the deny list and .gitignore applied), and in it a file
// that cannot be outlined is listed in Skipped, not a failure; a file named
// directly that cannot be outlined fails the call. Only workspace files
// and git revisions are outlined: other targets are
// INPUT_VALIDATION_FAILED.
func (o *Outliner) Outline(ctx context.Context, in OutlineInput, more ...string) (*OutlineOutput, error) {
	if _, err := CallBudget(ctx, in.Budget); err != nil {
		return nil, err
	}
	targets := append([]string{in.Target}, more...)
	for _, k := range in.Kinds {
		if !slices.Contains(o.Kinds, k) {
			return nil, retrieve.Errorf(retrieve.CodeInputValidation, "%q is not a symbol kind", k).
				WithHint("use one of %s", strings.Join(o.Kinds, ", "))
		}
	}
	spec := PageSpec{List: "outline", Filter: Fingerprint(targets, in.Kinds), Cursor: in.Cursor, Limit: in.Limit,
		Default: DefaultOutlineLimit, Max: MaxOutlineLimit, Reserve: 256}
	c, limit, err := spec.Start()
	if err != nil {
		return nil, err
	}
	if in.All {
		limit = -1
	}
	var files []outlineFile
	out := &OutlineOutput{Outlines: []*retrieve.FileOutline{}, Skipped: []OutlineSkip{}}
	for _, t := range targets {
		if strings.TrimSpace(t) == "" {
			return nil, retrieve.Errorf(retrieve.CodeInputValidation, "target is required").
				WithHint("pass a source file, git:<rev>:<path> or a directory of the workspace")
		}
		if err := o.workspaceOnly(t); err != nil {
			return nil, err
		}
		listed, isDir, err := o.Files(ctx, t)
		if err != nil {
			return nil, retrieve.Errorf(retrieve.CodeInternal, "list %s", t).WithErr(err).
				WithHint("check that the directory is readable")
		}
		if !isDir {
			files = append(files, outlineFile{target: t})
			continue
		}
		out.Dir = true
		for _, f := range listed {
			if o.Engine.CanOutline(f) {
				files = append(files, outlineFile{target: f, inDir: true})
			}
		}
	}
	out.Files = len(files)
	room := pageRoom(ctx, spec.Reserve)
	i := min(c.Offset, len(files))
	for ; i < len(files) && (limit < 0 || len(out.Outlines) < limit); i++ {
		f := files[i]
		fo, err := o.Engine.Outline(ctx, f.target, in.Kinds)
		var item any = fo
		switch {
		case err != nil && !f.inDir:
			return nil, err
		case err != nil:
			e := retrieve.AsError(err)
			item = OutlineSkip{Target: f.target, Code: e.Code, Message: e.Message}
		case f.inDir && len(fo.Symbols) == 0:
			continue
		}
		size := ItemSize(ctx, item)
		if size > room {
			if len(out.Outlines)+len(out.Skipped) == 0 {
				return nil, itemTooLarge(i, spec.List)
			}
			break
		}
		room -= size
		if s, ok := item.(OutlineSkip); ok {
			out.Skipped = append(out.Skipped, s)
		} else {
			out.Outlines = append(out.Outlines, fo)
		}
	}
	if i < len(files) {
		next := c
		next.Offset = i
		out.NextCursor = next.Encode()
	}
	return out, nil
}

// workspaceOnly refuses targets of sources outside the workspace (the web,
// an API, a database): outline reads workspace files and git revisions.
func (o *Outliner) workspaceOnly(target string) error {
	reg := o.Engine.Registry()
	src, err := reg.Resolve(&retrieve.Request{Target: target})
	if err != nil {
		return err
	}
	// A workspace path (no scheme: the path source), or a path at a
	// revision (the source that reads paths at versions owns its scheme).
	scheme, _ := reg.SchemeOf(target)
	if pv, ok := src.(retrieve.PathVersioner); scheme != "" && !(ok && pv.ReadsPathVersions()) {
		return retrieve.Errorf(retrieve.CodeInputValidation, "outline reads workspace files and git revisions, and %s is a %s target", target, src.Kind()).
			WithHint("outline a source file, git:<rev>:<path> or a directory of the workspace; retrieve other targets with retrieve")
	}
	return nil
}

// OutlineOp is the outline operation.
func OutlineOp(o *Outliner) *Op {
	return Typed(Spec{
		Name: "outline", Title: "Outline source files", ReadOnly: true,
		Description: `The symbols (classes, functions…) of a source file or directory, with line spans; cite one with retrieve and sections. Pass next_cursor back as cursor.`,
	}, func(ctx context.Context, in OutlineInput) (*OutlineOutput, error) { return o.Outline(ctx, in) })
}
