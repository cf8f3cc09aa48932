package workspace

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
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

// beneath is the root's directory, opened through the root, for
// openBeneath; nil when it cannot be opened.
func beneath(root *os.Root) *os.File {
	d, err := root.Open(".")
	if err != nil {
		return nil
	}
	return d
}

// openBeneath opens name (clean, slash-separated, relative) under the
// directory dir in one openat2(2) that refuses to follow any symlink or to
// cross a mount point on the way: when it succeeds, the file opened is
// exactly dir/name, so its final path is name, known without asking the
// kernel. ok is false otherwise (a link or a mount on the way, a kernel
// before 5.6, any error): the caller opens the file the general way,
// which reports the error or follows the link inside the root.
func openBeneath(dir *os.File, dirName, name string, flags int) (*os.File, bool) {
	if dir == nil {
		return nil, false
	}
	rc, err := dir.SyscallConn()
	if err != nil {
		return nil, false
	}
	fd := -1
	cerr := rc.Control(func(dfd uintptr) {
		fd, err = unix.Openat2(int(dfd), filepath.FromSlash(name), &unix.OpenHow{
			Flags:   uint64(flags | unix.O_CLOEXEC),
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_NO_XDEV,
		})
	})
	if cerr != nil || err != nil || fd < 0 {
		return nil, false
	}
	return os.NewFile(uintptr(fd), filepath.Join(dirName, filepath.FromSlash(name))), true
}
