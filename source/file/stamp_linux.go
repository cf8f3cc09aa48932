package file

import (
	"io/fs"
	"syscall"
)

// stampOf is the stamp of the file at p (exists is false when it cannot be
// read). A read in a git repository stamps three or four of git's files
// (fingerprint), some of them absent (an unborn branch's ref, packed-refs):
// the system call alone, without os.Stat's FileInfo and its error value
// for a missing file. Its mode is the raw st_mode: stamps of git's files
// are compared with one another only.
func stampOf(p string) stamp {
	var st syscall.Stat_t
	for {
		err := syscall.Stat(p, &st)
		if err == nil {
			break
		}
		if err != syscall.EINTR {
			return stamp{}
		}
	}
	return stamp{
		id: fileID{
			key:   fileKey{dev: uint64(st.Dev), ino: uint64(st.Ino)},
			size:  st.Size,
			mtime: st.Mtim.Nano(),
			ctime: st.Ctim.Nano(),
		},
		mode:   fs.FileMode(st.Mode),
		exists: true,
	}
}
