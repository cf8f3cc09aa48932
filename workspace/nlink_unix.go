//go:build unix

package workspace

import (
	"io/fs"
	"syscall"
)

// nlink returns a file's number of hard links (1 when unknown).
func nlink(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
