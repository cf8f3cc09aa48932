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
		mtime: st.Mtim.Nano(),
		ctime: st.Ctim.Nano(),
	}, true
}

// statData gives the stat fields git keeps in an index entry, truncated to
// 32 bits as the index stores them.
func statData(fi os.FileInfo) (gitStat, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return gitStat{}, false
	}
	return gitStat{
		ctimeSec: uint32(st.Ctim.Sec), ctimeNsec: uint32(st.Ctim.Nsec),
		mtimeSec: uint32(st.Mtim.Sec), mtimeNsec: uint32(st.Mtim.Nsec),
		ino: uint32(st.Ino), uid: st.Uid, gid: st.Gid,
	}, true
}
