package workspace

import (
	"os"
	"strconv"
	"strings"
)

// kernelPath asks the kernel where an opened file is: the target of
// /proc/self/fd/N, after every link. ok is false when /proc cannot say
// (not mounted, or the file was removed meanwhile).
func kernelPath(f *os.File) (p string, ok bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return "", false
	}
	var lerr error
	cerr := rc.Control(func(fd uintptr) {
		p, lerr = os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(fd), 10))
	})
	if cerr != nil || lerr != nil || !strings.HasPrefix(p, "/") || strings.HasSuffix(p, " (deleted)") {
		return "", false
	}
	return p, true
}
