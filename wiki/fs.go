package wiki

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/retrieve-dev/retrieve/workspace"
)

// root returns the confined file system the wiki reads and writes through
// and the wiki folder's name in it: the workspace FS when the wiki folder
// lies inside it, else the wiki folder itself opened as a root (created
// first when create is set). A link under the wiki folder is followed
// inside that root only, and the deny list applies to the final path.
func (w *Wiki) root(create bool) (*workspace.FS, string, error) {
	if w.FS != nil {
		if rel, err := filepath.Rel(w.FS.Dir(), w.Dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return w.FS, filepath.ToSlash(rel), nil
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.own != nil {
		return w.own, ".", nil
	}
	if create {
		// The wiki folder itself is the caller's choice (a library user, an
		// import or export folder); what lies under it is confined.
		if err := os.MkdirAll(w.Dir, 0o755); err != nil {
			return nil, "", err
		}
	}
	ws, err := workspace.Open(w.Dir, nil)
	if err != nil {
		return nil, "", err
	}
	w.own = ws
	return ws, ".", nil
}

// name returns the FS name of a wiki-relative path.
func name(prefix, rel string) string { return path.Join(prefix, rel) }

func (w *Wiki) readFile(rel string) ([]byte, error) {
	ws, pre, err := w.root(false)
	if err != nil {
		return nil, err
	}
	return ws.ReadFile(name(pre, rel))
}

func (w *Wiki) stat(rel string) (fs.FileInfo, error) {
	ws, pre, err := w.root(false)
	if err != nil {
		return nil, err
	}
	return ws.Stat(name(pre, rel))
}

func (w *Wiki) lstat(rel string) (fs.FileInfo, error) {
	ws, pre, err := w.root(false)
	if err != nil {
		return nil, err
	}
	return ws.Lstat(name(pre, rel))
}

func (w *Wiki) readDir(rel string) ([]fs.DirEntry, error) {
	ws, pre, err := w.root(false)
	if err != nil {
		return nil, err
	}
	return ws.ReadDir(name(pre, rel))
}

func (w *Wiki) writeAtomic(rel string, data []byte) error {
	ws, pre, err := w.root(true)
	if err != nil {
		return err
	}
	return ws.WriteFileAtomic(name(pre, rel), data, 0o644, false)
}

func (w *Wiki) mkdirAll(rel string) error {
	ws, pre, err := w.root(true)
	if err != nil {
		return err
	}
	return ws.MkdirAll(name(pre, rel), 0o755)
}

func (w *Wiki) openFile(rel string, flag int) (*os.File, error) {
	ws, pre, err := w.root(true)
	if err != nil {
		return nil, err
	}
	return ws.OpenFile(name(pre, rel), flag, 0o644)
}

// notExist reports a missing file or folder.
func notExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
