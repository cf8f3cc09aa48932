//go:build !unix

package workspace

import (
	"os"
	"path"
	"path/filepath"
)

// statAt returns an lstat of the entries of the directory at n
// (workspace-relative) through the workspace's root.
func statAt(_ *os.File, w *FS, n string) func(string, *DirStat) error {
	return func(name string, out *DirStat) error {
		fi, err := w.root.Lstat(filepath.FromSlash(path.Join(n, name)))
		if err != nil {
			return err
		}
		out.Size = fi.Size()
		out.ModTime = fi.ModTime().UnixNano()
		out.ChangeTime = out.ModTime
		out.Mode = fi.Mode().Type()
		return nil
	}
}
