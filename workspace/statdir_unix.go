//go:build unix

package workspace

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// statAt returns an lstat of the entries of the open directory d (at n,
// workspace-relative): fstatat on its descriptor, which resolves one name
// instead of the whole path.
func statAt(d *os.File, _ *FS, _ string) func(string, *DirStat) error {
	fd := int(d.Fd())
	return func(name string, out *DirStat) error {
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return err
		}
		out.Size = st.Size
		out.ModTime = st.Mtim.Nano()
		out.ChangeTime = st.Ctim.Nano()
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
			out.Mode = 0
		case unix.S_IFDIR:
			out.Mode = fs.ModeDir
		case unix.S_IFLNK:
			out.Mode = fs.ModeSymlink
		default:
			out.Mode = fs.ModeIrregular
		}
		return nil
	}
}
