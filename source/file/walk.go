package file

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"sort"
	"strings"

	"github.com/retrieve-dev/retrieve/workspace"
)

// ListDir lists the files under the workspace directory rel (slash
// separated, relative to root), sorted, without the files the deny list
// names. In a git work tree these are the tracked and the untracked but not
// ignored files; elsewhere the tree is walked inside the workspace (no
// folder link followed), the deny list pruning directories and .git,
// .retrieve and node_modules skipped.
func ListDir(ctx context.Context, ws *workspace.FS, rel string) ([]string, error) {
	deny := ws.Deny()
	files, err := gitFiles(ctx, ws.Dir(), rel)
	if err != nil {
		if files, err = walkFiles(ws, rel); err != nil {
			return nil, err
		}
	}
	out := files[:0]
	for _, f := range files {
		if !deny.Denied(f) {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out, nil
}

// DirFiles lists the files of target when it names a directory of the
// workspace (ListDir; isDir true), for outline; any other target (a file,
// a reference of another source, a path the file source will refuse) is
// not a directory: nil, false, and the source reports on it when it is
// read.
func DirFiles(ctx context.Context, ws *workspace.FS, target string) (files []string, isDir bool, err error) {
	if strings.Contains(target, ":") {
		return nil, false, nil
	}
	rel, err := ws.Rel(target)
	if err != nil {
		return nil, false, nil
	}
	fi, err := ws.Stat(rel)
	if err != nil || !fi.IsDir() {
		return nil, false, nil
	}
	if files, err = ListDir(ctx, ws, rel); err != nil {
		return nil, true, fmt.Errorf("list %s: %w", rel, err)
	}
	return files, true, nil
}

// gitFiles lists the tracked and untracked, not ignored, files under rel
// when the root is a git work tree.
func gitFiles(ctx context.Context, root, rel string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--full-name", "--", rel)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		return nil, err
	}
	// --full-name paths are relative to the repository top, which may be
	// above the workspace root.
	top, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "--show-prefix").Output()
	if err != nil {
		return nil, err
	}
	prefix := strings.TrimSpace(string(top))
	var out []string
	for _, f := range strings.Split(stdout.String(), "\x00") {
		if f == "" || !strings.HasPrefix(f, prefix) {
			continue
		}
		out = append(out, strings.TrimPrefix(f, prefix))
	}
	return out, nil
}

// walkFiles lists the files under rel outside git: the workspace walk
// prunes denied directories and follows no folder link, and .git and the
// state directory are skipped.
func walkFiles(ws *workspace.FS, rel string) ([]string, error) {
	var out []string
	err := ws.WalkDir(rel, func(r string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			if r != "." && (d.Name() == ".git" || d.Name() == ".retrieve" || d.Name() == "node_modules") {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			out = append(out, r)
		}
		return nil
	})
	return out, err
}
