package file

import (
	"os"
	"syscall"
)

func statID(fi os.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{
		key:   fileKey{dev: uint64(st.Dev), ino: uint64(st.Ino)},
		size:  st.Size,
		mtime: st.Mtimespec.Nano(),
		ctime: st.Ctimespec.Nano(),
	}, true
}
